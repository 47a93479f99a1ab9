import { PointColumns, ReadProgress, SLOT_C, SLOT_D, SLOT_H, SLOT_P, SLOT_S } from '../columns.js';
import {
  emptyLap,
  noWheelSensor,
  pausesBetweenSegments,
  UNKNOWN_RECORDING,
  type ReaderOptions,
  type ReaderResult,
  type TrackDraft,
} from '../draft.js';
import { boundedFileText } from '../file-text.js';
import type { Lap, RecordedTotals, TrackSensors, Warning } from '../model.js';
import { endRow, parseLatitude, parseLongitude, setChannelValue, setValue } from './rows.js';
import { readXml } from './sax.js';
import { expectedByteLength, type FileBytes } from '../streamed-bytes.js';
import { normalizeSport } from './sport.js';
import { parseIsoSeconds, parseNumber } from './values.js';

const COURSE_WHEEL_REASON = 'TCX: a Course is a planned route, not a recording';

/** An `Activity` or a `Course` being read. */
interface OpenContainer {
  isCourse: boolean;
  /** depth of the `Activity`/`Course` element (the root is 1) */
  depth: number;
  columns: PointColumns;
  /** the `Sport` attribute as written, for the wheel-sensor reason */
  sportAttribute: string | null;
  biking: boolean;
  startTime: number | null;
  name: string | null;
  device: string | null;
  /** `Creator/UnitId` when it names a unit (not 0) */
  serialNumber: string | null;
  laps: Lap[];
  /** points with SensorState Present, and those of them that also carry DistanceMeters in a Biking activity */
  presentPoints: number;
  wheelPoints: number;
  /** rows where a lap's second or later `Track` begins: Garmin starts a new one after the timer stopped */
  segmentStarts: number[];
  /** `Track`s begun in the current lap */
  lapTracks: number;
  /** what was wrong with this activity or course alone: a text shortened (issue 17) */
  warnings: Warning[];
}

/** The Trackpoint being read; one object for the whole file, reset at each Trackpoint (no per-point objects). */
interface PointState {
  /** row in the container's columns, -1 outside a Trackpoint */
  row: number;
  depth: number;
  present: boolean;
  runCadence: number;
}

/**
 * Reads TCX (issue 2): every `Activity`, wherever it sits (also inside `MultiSportSession`), is a ride with
 * its laps and the trackpoints of all their tracks; every `Course` is a route.
 *
 * Elements are matched by local name and by their parent, never by prefix: a Lap's `DistanceMeters` is not a
 * Trackpoint's, and the TPX `Speed`/`Watts` extension is read whether it uses `ns3:`, a default namespace or
 * none. Trackpoints without a `Position` are kept (indoor rides).
 *
 * The wheel-sensor rule (docs/contributors/architecture.md, `@rideport/ridefile`): a point's speed and distance come from a wheel
 * sensor only when the activity's Sport is Biking and the point has `SensorState` Present and carries
 * `DistanceMeters`.
 */
export function readTcx(bytes: FileBytes, options: ReaderOptions): ReaderResult {
  const warnings: Warning[] = [];
  const drafts: TrackDraft[] = [];
  let creator: string | null = null;
  /** local names of the open elements, root first */
  const path: string[] = [];
  let container: OpenContainer | null = null;
  let lap: Lap | null = null;
  let lapDepth = -1;
  const point: PointState = { row: -1, depth: -1, present: false, runCadence: NaN };
  const progress = new ReadProgress(expectedByteLength(bytes));

  readXml(
    bytes,
    {
      open(name, attributes) {
        path.push(name);
        const depth = path.length;
        if (point.row >= 0) return; // values inside a Trackpoint are read when their element closes
        if (container === null) {
          if (name === 'Activity') {
            container = newContainer(false, depth, options, progress);
            const sport = attributes['Sport'] ?? null;
            container.sportAttribute = sport;
            container.biking = sport?.trim() === 'Biking';
          } else if (name === 'Course' && path[depth - 2] === 'Courses') {
            container = newContainer(true, depth, options, progress);
          }
        } else if (name === 'Trackpoint') {
          point.row = container.columns.append();
          point.depth = depth;
          point.present = false;
          point.runCadence = NaN;
        } else if (name === 'Lap' && !container.isCourse && depth === container.depth + 1) {
          // A Course's Lap only restates the course's length; it is not a recorded lap.
          lap = emptyLap();
          const startTime = parseIsoSeconds(attributes['StartTime'] ?? '');
          lap.startTime = Number.isNaN(startTime) ? null : startTime;
          lapDepth = depth;
          container.lapTracks = 0;
        } else if (name === 'Track' && lap !== null && depth === lapDepth + 1) {
          container.lapTracks += 1;
          if (container.lapTracks > 1) container.segmentStarts.push(container.columns.length);
        }
      },

      close(name, text, droppedChars) {
        const depth = path.length;
        const parent = path[depth - 2];
        path.pop();
        if (container === null) return;

        if (point.row >= 0) {
          if (depth === point.depth) {
            endPoint(container, point);
            point.row = -1;
          } else {
            readPointValue(container.columns, point, name, parent, text);
          }
          return;
        }

        if (depth === container.depth) {
          if (!container.isCourse) creator ??= container.device;
          if (container.columns.length > 0) drafts.push(toDraft(container));
          container = null;
          return;
        }

        if (lap !== null) {
          if (depth === lapDepth) {
            container.laps.push(lap);
            lap = null;
          } else {
            readLapValue(lap, name, parent, text);
          }
          return;
        }

        if (depth === container.depth + 1) {
          if (name === 'Id' && !container.isCourse) {
            const startTime = parseIsoSeconds(text);
            container.startTime = Number.isNaN(startTime) ? null : startTime;
          } else if (name === 'Name' && container.isCourse) {
            container.name = boundedFileText('name', text, container.warnings, droppedChars);
          }
        } else if (parent === 'Creator' && depth === container.depth + 2) {
          if (name === 'Name')
            container.device = boundedFileText('device', text, container.warnings, droppedChars);
          else if (name === 'UnitId') container.serialNumber = unitId(text);
        }
      },
    },
    warnings,
    { progress },
  );

  return { creator, drafts, warnings };
}

function newContainer(
  isCourse: boolean,
  depth: number,
  options: ReaderOptions,
  progress: ReadProgress,
): OpenContainer {
  return {
    isCourse,
    depth,
    columns: new PointColumns(options.maxPoints, undefined, progress),
    sportAttribute: null,
    biking: false,
    startTime: null,
    name: null,
    device: null,
    serialNumber: null,
    laps: [],
    presentPoints: 0,
    wheelPoints: 0,
    segmentStarts: [],
    lapTracks: 0,
    warnings: [],
  };
}

function readPointValue(
  columns: PointColumns,
  point: PointState,
  name: string,
  parent: string | undefined,
  text: string,
): void {
  const { row } = point;
  switch (name) {
    case 'Time':
      if (parent === 'Trackpoint') setValue(columns.t, row, parseIsoSeconds(text));
      break;
    case 'LatitudeDegrees':
      if (parent === 'Position') setValue(columns.y, row, parseLatitude(text));
      break;
    case 'LongitudeDegrees':
      if (parent === 'Position') setValue(columns.x, row, parseLongitude(text));
      break;
    case 'AltitudeMeters':
      if (parent === 'Trackpoint') setValue(columns.e, row, parseNumber(text));
      break;
    case 'DistanceMeters':
      if (parent === 'Trackpoint') setChannelValue(columns, SLOT_D, row, parseNumber(text));
      break;
    case 'Value':
      if (parent === 'HeartRateBpm') setChannelValue(columns, SLOT_H, row, parseNumber(text));
      break;
    case 'Cadence':
      if (parent === 'Trackpoint') setChannelValue(columns, SLOT_C, row, parseNumber(text));
      break;
    case 'RunCadence':
      point.runCadence = parseNumber(text);
      break;
    case 'SensorState':
      if (parent === 'Trackpoint') point.present = text.trim() === 'Present';
      break;
    // TPX extension (ActivityExtension v2), under any prefix.
    case 'Speed':
      if (parent === 'TPX') setChannelValue(columns, SLOT_S, row, parseNumber(text));
      break;
    case 'Watts':
      if (parent === 'TPX') setChannelValue(columns, SLOT_P, row, parseNumber(text));
      break;
    default:
      break;
  }
}

function endPoint(container: OpenContainer, point: Readonly<PointState>): void {
  const { columns } = container;
  const { row } = point;
  // RunCadence only when the point has no Cadence (running files carry one or the other).
  if (Number.isNaN(columns.c[row]!)) setChannelValue(columns, SLOT_C, row, point.runCadence);
  if (!endRow(columns, row)) return;
  if (!point.present) return;
  container.presentPoints += 1;
  if (container.biking && !Number.isNaN(columns.d[row]!)) {
    columns.wheel[row] = 1;
    container.wheelPoints += 1;
  }
}

function readLapValue(lap: Lap, name: string, parent: string | undefined, text: string): void {
  if (parent === 'Lap') {
    switch (name) {
      case 'TotalTimeSeconds':
        lap.timerSeconds = numberOrNull(text);
        break;
      case 'DistanceMeters':
        lap.distanceMeters = numberOrNull(text);
        break;
      case 'MaximumSpeed':
        lap.maxSpeedMetersPerSecond = numberOrNull(text);
        break;
      case 'Calories':
        lap.calories = numberOrNull(text);
        break;
      case 'Cadence':
        lap.avgCadenceRpm = numberOrNull(text) ?? lap.avgCadenceRpm;
        break;
      default:
        break;
    }
  } else if (name === 'Value') {
    if (parent === 'AverageHeartRateBpm') lap.avgHeartRateBpm = numberOrNull(text);
    else if (parent === 'MaximumHeartRateBpm') lap.maxHeartRateBpm = numberOrNull(text);
  } else if (parent === 'LX') {
    // Lap extension (ActivityExtension v2); running laps give their cadence only here.
    switch (name) {
      case 'AvgSpeed':
        lap.avgSpeedMetersPerSecond = numberOrNull(text);
        break;
      case 'AvgWatts':
        lap.avgPowerWatts = numberOrNull(text);
        break;
      case 'MaxWatts':
        lap.maxPowerWatts = numberOrNull(text);
        break;
      case 'MaxBikeCadence':
        lap.maxCadenceRpm = numberOrNull(text);
        break;
      case 'AvgRunCadence':
        lap.avgCadenceRpm ??= numberOrNull(text);
        break;
      case 'MaxRunCadence':
        lap.maxCadenceRpm ??= numberOrNull(text);
        break;
      default:
        break;
    }
  }
}

function toDraft(container: OpenContainer): TrackDraft {
  const { columns, laps } = container;
  if (container.isCourse) {
    return {
      kind: 'route',
      name: container.name,
      sport: null,
      subSport: null,
      startTime: null,
      columns,
      laps: [],
      sensors: noWheelSensor(COURSE_WHEEL_REASON),
      recorded: null,
      calories: null,
      device: null,
      recording: UNKNOWN_RECORDING,
      warnings: container.warnings,
    };
  }
  return {
    kind: 'ride',
    name: null,
    sport: container.sportAttribute === null ? null : normalizeSport(container.sportAttribute),
    subSport: null,
    startTime: container.startTime,
    columns,
    laps,
    sensors: wheelSensors(container),
    recorded: recordedTotals(laps),
    calories: sum(laps.map((each) => each.calories)),
    device: container.device,
    pauses: pausesBetweenSegments(columns, container.segmentStarts),
    recording: { serialNumber: container.serialNumber, timeCreated: null },
    warnings: container.warnings,
  };
}

/**
 * A `Creator/UnitId` (xsd:unsignedInt) as the device's serial number: Garmin Connect's export writes
 * the device's serial there, other writers 0, which names no unit (issue 16).
 */
function unitId(text: string): string | null {
  const digits = text.trim();
  if (!/^\d{1,10}$/.test(digits)) return null;
  const value = Number(digits);
  return value === 0 || value > 0xffffffff ? null : String(value);
}

/** The verdict and, in words, why (shown by `rideport inspect`). */
function wheelSensors(container: OpenContainer): TrackSensors {
  const { presentPoints, wheelPoints } = container;
  let reason: string;
  if (!container.biking) {
    const sport = container.sportAttribute === null ? 'no Sport' : `Sport "${container.sportAttribute}"`;
    reason = `TCX: not a Biking activity (${sport})`;
  } else if (wheelPoints > 0) {
    reason = `TCX: ${points(wheelPoints)} in a Biking activity carry SensorState Present with DistanceMeters`;
  } else if (presentPoints > 0) {
    reason = `TCX: ${points(presentPoints)} carry SensorState Present, but none carries DistanceMeters`;
  } else {
    reason = 'TCX: no point has SensorState Present';
  }
  return { wheelSensor: wheelPoints > 0, wheelSensorReason: reason, devices: [] };
}

function points(count: number): string {
  return count === 1 ? '1 point' : `${count} points`;
}

/** The file's own totals are the sums over its laps (TCX has no session record). */
function recordedTotals(laps: readonly Lap[]): RecordedTotals | null {
  if (laps.length === 0) return null;
  return {
    distanceMeters: sum(laps.map((each) => each.distanceMeters)),
    ascentMeters: null,
    descentMeters: null,
    elapsedSeconds: null,
    timerSeconds: sum(laps.map((each) => each.timerSeconds)),
  };
}

/** Sum of the known values, null when none is known. */
function sum(values: readonly (number | null)[]): number | null {
  let total: number | null = null;
  for (const value of values) {
    if (value !== null) total = (total ?? 0) + value;
  }
  return total;
}

function numberOrNull(text: string): number | null {
  const value = parseNumber(text);
  return Number.isNaN(value) ? null : value;
}

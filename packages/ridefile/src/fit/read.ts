import type { PointColumns } from '../columns.js';
import type { ReaderOptions, ReaderResult, TrackDraft } from '../draft.js';
import { emptyLap } from '../draft.js';
import { RideFileError, RideFileErrorCode, RideFileWarningCode } from '../errors.js';
import type { Lap, RecordedTotals, RecordingIdentity, TimeSpan, TrackSensors, Warning } from '../model.js';
import { decodeFit, type FitMessage, type FitSegment } from './decoder.js';
import { heartRateSamples, mergeHeartRates, type HeartRateSample } from './hr.js';
import { deviceName, numberField, stringField } from './names.js';
import {
  FIT_EPOCH_OFFSET_SECONDS,
  FIT_MIN_ABSOLUTE_TIME,
  snakeCase,
  typeValue,
  typeValueName,
} from './profile.js';
import { wheelSensorVerdict } from './wheel.js';

/**
 * FIT → track drafts (docs/contributors/decisions.md §5: "a FIT activity file is one trip"; each file of a chained stream
 * that holds records is its own activity). Course files become routes, and so do records that carry
 * positions but no time at all (docs/contributors/decisions.md §5: untimed tracks become routes). A file of the stream
 * without records (the `hr` file a Garmin watch appends with a strap's stored beats, settings, totals)
 * is no track: its heart rate goes into the records it covers (issue 16). Records with neither a time
 * nor a position are no track either: a file with nothing else is refused, as one without records is.
 */

const FILE_COURSE = typeValue('file', 'course');
const FILE_ACTIVITY = typeValue('file', 'activity');
const SPORT_TRANSITION = typeValue('sport', 'transition');
const EVENT_TIMER = typeValue('event', 'timer');
const TIMER_START = typeValue('eventType', 'start');
/** Every way a FIT timer stops: stop, stop_all (auto-pause writes these), stop_disable, stop_disable_all. */
const TIMER_STOPS = new Set(
  (['stop', 'stopAll', 'stopDisable', 'stopDisableAll'] as const).map((name) => typeValue('eventType', name)),
);
const LENGTH_ACTIVE = typeValue('lengthType', 'active');
const CYCLING_SPORTS = new Set([typeValue('sport', 'cycling'), typeValue('sport', 'eBiking')]);

/** The messages besides `record` this reader reads (`first` and `segment.messages` below); the decoder skips the rest. */
const READ_MESSAGES: ReadonlySet<string> = new Set([
  'fileId',
  'hr',
  'event',
  'length',
  'session',
  'sport',
  'lap',
  'deviceInfo',
  'course',
  'timestampCorrelation',
]);

export function readFit(bytes: Uint8Array, options: ReaderOptions): ReaderResult {
  const { segments, warnings } = decodeFit(bytes, { maxPoints: options.maxPoints, messages: READ_MESSAGES });
  // The strap's beats of every file of the stream, merged into each file's records by time (hr.ts).
  const heartRates = heartRateSamples(segments.flatMap((segment) => segment.messages.get('hr') ?? []));
  const drafts: TrackDraft[] = [];
  let creator: string | null = null;
  let recordsWithNothing = 0;
  for (const segment of segments) {
    const fileId = first(segment, 'fileId');
    creator ??= deviceName(fileId) ?? deviceName(creatorDeviceInfo(segment));
    if (segment.records.length === 0) continue;
    const draft = segmentDraft(segment, fileId, heartRates, warnings);
    if (draft === null) recordsWithNothing += segment.records.length;
    else drafts.push(draft);
  }
  if (drafts.length === 0 && recordsWithNothing > 0) {
    throw new RideFileError(
      RideFileErrorCode.NO_TRACKS,
      `the FIT file holds ${recordsWithNothing} record${recordsWithNothing === 1 ? '' : 's'}, but none has a time or a position: there is no ride or route to show`,
    );
  }
  return { creator, drafts, warnings };
}

/** The draft of one FIT file's records; null when they make neither a ride nor a route (nothing to show). */
function segmentDraft(
  segment: FitSegment,
  fileId: FitMessage | undefined,
  heartRates: readonly HeartRateSample[],
  warnings: Warning[],
): TrackDraft | null {
  const records = segment.records;
  // HR messages carry FIT times, so they are merged before times are converted.
  mergeHeartRates(heartRates, records);
  const toUnix = timeConverter(segment);
  const { t } = records;
  // The row count read once: a field read in a loop's condition is read again after every call in
  // the loop (the same in the other loops over whole tracks).
  const rows = records.length;
  const hadTime = anyValue(t, rows);
  let timesLost = 0;
  for (let row = 0; row < rows; row++) {
    const fitTime = t[row]!;
    // Absolute times, nearly all of them, without the call.
    if (fitTime >= FIT_MIN_ABSOLUTE_TIME) {
      t[row] = fitTime + FIT_EPOCH_OFFSET_SECONDS;
      continue;
    }
    const unixTime = toUnix(fitTime);
    if (Number.isNaN(unixTime) && !Number.isNaN(fitTime)) timesLost += 1;
    t[row] = unixTime;
  }
  if (timesLost > 0) {
    warnings.push({
      code: RideFileWarningCode.RELATIVE_TIME,
      message: `${timesLost} records carry device-relative times and the file gives no correction; they have no time`,
    });
    // A record whose only value was a device-relative time now holds nothing.
    records.compactFrom(0);
  }
  const fileType = numberField(fileId, 'type');
  // docs/contributors/decisions.md §5: a course file is a route; a FIT activity file is one trip, even when its device
  // never set its clock (its records carry device-relative times that nothing converts: it recorded a
  // ride, only its date is unknown); other records are a ride when they have times, else an untimed
  // track: a route, when it has positions to follow.
  const ride =
    fileType !== FILE_COURSE && (anyValue(t, records.length) || (fileType === FILE_ACTIVITY && hadTime));
  if (!ride && !anyValue(records.x, records.length)) return null;

  const sessions = segment.messages.get('session') ?? [];
  const sports = segment.messages.get('sport') ?? [];
  const laps = segment.messages.get('lap') ?? [];
  const verdict = wheelSensorVerdict({
    fileId,
    deviceInfos: segment.messages.get('deviceInfo') ?? [],
    activityMessages: [...sessions, ...sports, ...laps],
  });
  const sensors = markWheelRows(records, verdict, sessions, sports, toUnix);
  const course = first(segment, 'course');
  const { sport, subSport } = sportOf(sessions, course === undefined ? sports : [course, ...sports]);
  const sessionStart = numberField(sessions[0], 'startTime');

  return {
    kind: ride ? 'ride' : 'route',
    name: stringField(course, 'name') ?? stringField(sports[0], 'name'),
    sport,
    subSport,
    startTime: sessionStart === undefined ? null : nullIfNaN(toUnix(sessionStart)),
    columns: records,
    laps: laps.map((lap) => toLap(lap, toUnix)),
    sensors,
    recorded: recordedTotals(sessions),
    calories: sum(sessions, 'totalCalories'),
    device: deviceName(fileId) ?? deviceName(creatorDeviceInfo(segment)),
    recording: recordingIdentity(fileId),
    ...timing(segment, toUnix),
  };
}

/**
 * The pauses of the device's timer (issue 16, timer time): from each timer stop event (a stop, or the
 * stop_all auto-pause writes) to the start that follows; and a pool swim's active lengths.
 */
function timing(
  segment: FitSegment,
  toUnix: (fitTime: number) => number,
): { pauses?: TimeSpan[]; activeLengthsSeconds?: number } {
  const pauses: TimeSpan[] = [];
  let stoppedAt = NaN;
  for (const event of segment.messages.get('event') ?? []) {
    if (numberField(event, 'event') !== EVENT_TIMER) continue;
    const time = Math.floor(toUnix(numberField(event, 'timestamp') ?? NaN));
    if (Number.isNaN(time)) continue;
    const type = numberField(event, 'eventType');
    if (type !== undefined && TIMER_STOPS.has(type)) {
      if (Number.isNaN(stoppedAt)) stoppedAt = time;
    } else if (type === TIMER_START && !Number.isNaN(stoppedAt)) {
      if (time > stoppedAt) pauses.push([stoppedAt, time]);
      stoppedAt = NaN;
    }
  }
  const active = (segment.messages.get('length') ?? []).filter(
    (length) => numberField(length, 'lengthType') === LENGTH_ACTIVE,
  );
  const activeSeconds = sum(active, 'totalTimerTime') ?? sum(active, 'totalElapsedTime');
  return {
    ...(pauses.length === 0 ? {} : { pauses }),
    ...(activeSeconds === null ? {} : { activeLengthsSeconds: activeSeconds }),
  };
}

/**
 * The file_id's serial number and creation time (issue 16: with the device and the first record's
 * time, they identify the recording). A time_created below FIT_MIN_ABSOLUTE_TIME counts from the
 * device's power-on and names no moment: unknown.
 */
function recordingIdentity(fileId: FitMessage | undefined): RecordingIdentity {
  const serial = numberField(fileId, 'serialNumber');
  const created = numberField(fileId, 'timeCreated');
  return {
    serialNumber: serial === undefined || Number.isNaN(serial) ? null : String(serial),
    timeCreated:
      created === undefined || Number.isNaN(created) || created < FIT_MIN_ABSOLUTE_TIME
        ? null
        : created + FIT_EPOCH_OFFSET_SECONDS,
  };
}

/**
 * FIT date_time → Unix seconds. Values below 0x10000000 count from the device's power-on: they get a
 * time only when a timestamp_correlation message gives the offset; otherwise none (the caller warns).
 */
function timeConverter(segment: FitSegment): (fitTime: number) => number {
  const correlation = first(segment, 'timestampCorrelation');
  const utc = numberField(correlation, 'timestamp');
  const system = numberField(correlation, 'systemTimestamp');
  const offset =
    utc !== undefined && system !== undefined && utc >= FIT_MIN_ABSOLUTE_TIME ? utc - system : NaN;
  return (fitTime: number): number => {
    if (Number.isNaN(fitTime)) return NaN;
    if (fitTime >= FIT_MIN_ABSOLUTE_TIME) return fitTime + FIT_EPOCH_OFFSET_SECONDS;
    return Number.isNaN(offset) ? NaN : fitTime + offset + FIT_EPOCH_OFFSET_SECONDS;
  };
}

/**
 * Rows get `wheel = 1` when the verdict found a wheel sensor and the row lies in a cycling session
 * (all rows when every session is a ride, or when the file has no sessions but is a cycling file).
 */
function markWheelRows(
  records: PointColumns,
  verdict: ReturnType<typeof wheelSensorVerdict>,
  sessions: FitMessage[],
  sports: FitMessage[],
  toUnix: (fitTime: number) => number,
): TrackSensors {
  const sensors = {
    wheelSensor: verdict.wheelSensor,
    wheelSensorReason: verdict.reason,
    devices: verdict.devices,
  };
  if (!verdict.wheelSensor) return sensors;

  const sessionSports = sessions.map((session) => numberField(session, 'sport'));
  const fileSport = numberField(sports[0], 'sport');
  const allCycling =
    sessions.length > 0
      ? sessionSports.every((sport) => sport !== undefined && CYCLING_SPORTS.has(sport))
      : fileSport === undefined || CYCLING_SPORTS.has(fileSport);
  if (allCycling) {
    records.wheel.fill(1, 0, records.length);
    return sensors;
  }

  const cyclingRanges = sessions
    .filter((session) => CYCLING_SPORTS.has(numberField(session, 'sport') ?? -1))
    .map((session) => {
      const start = toUnix(numberField(session, 'startTime') ?? NaN);
      return [start, start + (numberField(session, 'totalElapsedTime') ?? NaN)] as const;
    })
    .filter(([start, end]) => !Number.isNaN(start) && !Number.isNaN(end));
  let marked = 0;
  for (let row = 0; row < records.length; row++) {
    const time = records.t[row]!;
    if (cyclingRanges.some(([start, end]) => time >= start && time <= end)) {
      records.wheel[row] = 1;
      marked += 1;
    }
  }
  if (marked === 0) {
    return {
      ...sensors,
      wheelSensor: false,
      wheelSensorReason: `${verdict.reason}, but no record lies in a cycling session`,
    };
  }
  return {
    ...sensors,
    wheelSensorReason: `${verdict.reason}; used in the cycling sessions only (${marked} records)`,
  };
}

function sportOf(
  sessions: FitMessage[],
  sports: FitMessage[],
): { sport: string | null; subSport: string | null } {
  const source = sessions.length > 0 ? sessions : sports;
  const moving = source.filter((message) => numberField(message, 'sport') !== SPORT_TRANSITION);
  const sportIds = new Set(
    moving.map((message) => numberField(message, 'sport')).filter((id) => id !== undefined),
  );
  if (sportIds.size > 1) return { sport: 'multisport', subSport: null };
  const [only] = moving;
  const sport = typeValueName('sport', numberField(only, 'sport'));
  const subSports = new Set(moving.map((message) => numberField(message, 'subSport')));
  const subSport = subSports.size === 1 ? typeValueName('subSport', numberField(only, 'subSport')) : null;
  return {
    sport: sport === null ? null : snakeCase(sport),
    subSport: subSport === null ? null : snakeCase(subSport),
  };
}

function toLap(lap: FitMessage, toUnix: (fitTime: number) => number): Lap {
  const startTime = numberField(lap, 'startTime');
  return {
    ...emptyLap(),
    startTime: startTime === undefined ? null : nullIfNaN(toUnix(startTime)),
    elapsedSeconds: numberField(lap, 'totalElapsedTime') ?? null,
    timerSeconds: numberField(lap, 'totalTimerTime') ?? null,
    distanceMeters: numberField(lap, 'totalDistance') ?? null,
    ascentMeters: numberField(lap, 'totalAscent') ?? null,
    descentMeters: numberField(lap, 'totalDescent') ?? null,
    calories: numberField(lap, 'totalCalories') ?? null,
    avgSpeedMetersPerSecond: numberField(lap, 'enhancedAvgSpeed') ?? numberField(lap, 'avgSpeed') ?? null,
    maxSpeedMetersPerSecond: numberField(lap, 'enhancedMaxSpeed') ?? numberField(lap, 'maxSpeed') ?? null,
    avgHeartRateBpm: numberField(lap, 'avgHeartRate') ?? null,
    maxHeartRateBpm: numberField(lap, 'maxHeartRate') ?? null,
    avgCadenceRpm: numberField(lap, 'avgCadence') ?? null,
    maxCadenceRpm: numberField(lap, 'maxCadence') ?? null,
    avgPowerWatts: numberField(lap, 'avgPower') ?? null,
    maxPowerWatts: numberField(lap, 'maxPower') ?? null,
  };
}

function recordedTotals(sessions: FitMessage[]): RecordedTotals | null {
  if (sessions.length === 0) return null;
  return {
    distanceMeters: sum(sessions, 'totalDistance'),
    ascentMeters: sum(sessions, 'totalAscent'),
    descentMeters: sum(sessions, 'totalDescent'),
    elapsedSeconds: sum(sessions, 'totalElapsedTime'),
    timerSeconds: sum(sessions, 'totalTimerTime'),
  };
}

function sum(messages: FitMessage[], name: string): number | null {
  let total: number | null = null;
  for (const message of messages) {
    const value = numberField(message, name);
    if (value !== undefined && !Number.isNaN(value)) total = (total ?? 0) + value;
  }
  return total;
}

function first(segment: FitSegment, name: string): FitMessage | undefined {
  return segment.messages.get(name)?.[0];
}

/** The device_info of the recording device itself (device_index 0, "creator"). */
function creatorDeviceInfo(segment: FitSegment): FitMessage | undefined {
  return segment.messages.get('deviceInfo')?.find((info) => numberField(info, 'deviceIndex') === 0);
}

/** Whether any of the first `length` values of a column is not NaN. */
function anyValue(column: ArrayLike<number>, length: number): boolean {
  for (let row = 0; row < length; row++) if (!Number.isNaN(column[row]!)) return true;
  return false;
}

function nullIfNaN(value: number): number | null {
  return Number.isNaN(value) ? null : value;
}

import type { PointColumns } from './columns.js';
import type {
  Lap,
  RecordedTotals,
  RecordingIdentity,
  TimeSpan,
  TrackKind,
  TrackSensors,
  Warning,
} from './model.js';

/**
 * What a format reader produces for one track before the shared finishing step (track.ts) turns it
 * into a public `Track`: the summary is computed from the columns and the points are built there.
 */
export interface TrackDraft {
  kind: TrackKind;
  name: string | null;
  sport: string | null;
  subSport: string | null;
  /** the file's own start time (Unix seconds) when it states one; else the first timed point is used */
  startTime: number | null;
  columns: PointColumns;
  laps: Lap[];
  sensors: TrackSensors;
  recorded: RecordedTotals | null;
  calories: number | null;
  device: string | null;
  recording: RecordingIdentity;
  /**
   * Spans in which the device's timer stood still, in time order (FIT timer stop → start, the breaks
   * between GPX/KML segments and TCX tracks); absent when the file marks none (issue 16, timer time).
   * No distance is counted across them along the positions: devices count none while their timer
   * stands, and GPX says segments are not connected (gpxpy, which FitTrackee uses, counts none either).
   */
  pauses?: TimeSpan[];
  /** A pool swim's active lengths (FIT `length` messages), summed, s; absent without lengths. */
  activeLengthsSeconds?: number;
  /**
   * What the reader found wrong with this track alone, beside the file's warnings: a text of the
   * track it shortened (file-text.ts, issue 17).
   */
  warnings?: Warning[];
}

/**
 * The pauses between the segments of a track that starts new segments at rows `segmentStarts` (GPX
 * `trkseg`, KML `gx:Track`, TCX `Track`): from the last time before each start to the first time from it.
 */
export function pausesBetweenSegments(columns: PointColumns, segmentStarts: readonly number[]): TimeSpan[] {
  const pauses: TimeSpan[] = [];
  const { t } = columns;
  for (const start of segmentStarts) {
    let before = start - 1;
    while (before >= 0 && Number.isNaN(t[before]!)) before--;
    let after = start;
    while (after < columns.length && Number.isNaN(t[after]!)) after++;
    if (before < 0 || after >= columns.length) continue;
    const from = Math.floor(t[before]!);
    const to = Math.floor(t[after]!);
    if (to > from) pauses.push([from, to]);
  }
  return pauses;
}

export interface ReaderOptions {
  maxPoints: number;
  /**
   * what is left of the file's one budget for decompressing (issue 36): the most a KMZ's KML inside its
   * archive may be (default 256 MB, docs/contributors/decisions.md §7)
   */
  maxBytes?: number;
}

export interface ReaderResult {
  creator: string | null;
  drafts: TrackDraft[];
  warnings: Warning[];
}

/** Sensors of a format that cannot say where speed or distance came from (GPX, KML). */
export function noWheelSensor(reason: string): TrackSensors {
  return { wheelSensor: false, wheelSensorReason: reason, devices: [] };
}

/** A recording whose file names neither serial number nor creation time (GPX, KML, raw points). */
export const UNKNOWN_RECORDING: Readonly<RecordingIdentity> = { serialNumber: null, timeCreated: null };

export function emptyLap(): Lap {
  return {
    source: 'file',
    startTime: null,
    elapsedSeconds: null,
    timerSeconds: null,
    distanceMeters: null,
    ascentMeters: null,
    descentMeters: null,
    calories: null,
    avgSpeedMetersPerSecond: null,
    maxSpeedMetersPerSecond: null,
    avgHeartRateBpm: null,
    maxHeartRateBpm: null,
    avgCadenceRpm: null,
    maxCadenceRpm: null,
    avgPowerWatts: null,
    maxPowerWatts: null,
  };
}

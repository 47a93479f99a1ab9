import type { PointColumns } from './columns.js';
import type { Lap, RecordedTotals, RecordingIdentity, TrackKind, TrackSensors, Warning } from './model.js';

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
}

export interface ReaderOptions {
  maxPoints: number;
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

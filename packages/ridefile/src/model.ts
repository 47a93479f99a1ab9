/**
 * The public data model of @rideport/ridefile (docs/contributors/architecture.md, "Contracts other people rely on").
 * Everything a reader produces is expressed in these types; values the file does not give are `null`.
 */

export type RideFileFormat = 'fit' | 'tcx' | 'gpx' | 'kml' | 'kmz';

/**
 * A legacy track point (docs/integrators/api.md, "Track point"). Each key is present only when known.
 * `s` and `d` appear only when a wheel sensor measured them (see `TrackSensors.wheelSensor`).
 */
export interface TrackPoint {
  /** longitude, degrees */
  x?: number;
  /** latitude, degrees */
  y?: number;
  /** elevation, m */
  e?: number;
  /** time, whole Unix seconds (fractions floored; never milliseconds) */
  t?: number;
  /** cadence, rpm */
  c?: number;
  /** heart rate, bpm */
  h?: number;
  /** power, W */
  p?: number;
  /** wheel-sensor speed, m/s */
  s?: number;
  /** wheel-sensor distance from start, m; never decreases */
  d?: number;
  /** temperature, °C */
  T?: number;
}

/** The single-letter channels a track point can carry, in the specification's order. */
export const TRACK_POINT_KEYS = ['x', 'y', 'e', 't', 'c', 'h', 'p', 's', 'd', 'T'] as const;
/** One of the single-letter keys of a `TrackPoint`. */
export type TrackPointKey = (typeof TRACK_POINT_KEYS)[number];

/** `ride`: a recording, with times; `route`: a planned course, or positions without times. */
export type TrackKind = 'ride' | 'route';

/** Something wrong with a file that was read all the same: a stable `code` and a sentence. */
export interface Warning {
  /** stable code, e.g. `RIDEFILE_TRUNCATED`, `RIDEFILE_BAD_CRC` (see errors.ts) */
  code: string;
  /** what was wrong, in words (at most `MESSAGE_MAX_CHARS` characters) */
  message: string;
}

/** What `parseRideFile` reads from one file: its format, creator, tracks and warnings. */
export interface RideFile {
  format: RideFileFormat;
  /** the recording device or program, e.g. "Garmin Edge 500" or a GPX `creator` */
  creator: string | null;
  tracks: Track[];
  warnings: Warning[];
}

/**
 * What `parseRideFileColumns` reads from one file: as `RideFile`, with each track's samples as typed
 * arrays (`ColumnarTrack`).
 */
export interface ColumnarRideFile {
  format: RideFileFormat;
  /** the recording device or program, e.g. "Garmin Edge 500" or a GPX `creator` */
  creator: string | null;
  tracks: ColumnarTrack[];
  warnings: Warning[];
}

/** One ride or route of a file: its points, laps, sensors and summary. */
export interface Track extends TrackDetails {
  points: TrackPoint[];
}

/**
 * One ride or route of a file as `parseRideFileColumns` reads it: everything a `Track` has, with its
 * samples as one typed array per channel (`columns`) instead of point objects.
 */
export interface ColumnarTrack extends TrackDetails {
  columns: TrackColumns;
}

/**
 * A channel of `TrackColumns` that holds small whole numbers in most files: a `Float32Array` when every
 * value of the track is exactly a 32-bit float (devices record cadence, heart rate, power and
 * temperature as integers, which it holds exactly in half the memory), else a `Float64Array` (a GPX
 * temperature of 21.3). Both read as plain numbers.
 */
export type NumberColumn = Float32Array | Float64Array;

/**
 * A track's samples as columns (issue 21): row `i` of every channel is the point `i` of the same track
 * read by `parseRideFile`, value for value. A sample without a value is `NaN`; a channel the track
 * never has a value in is absent. The rules of `TrackPoint` hold: `t` in whole seconds, `x` and `y`
 * both or neither, `s` and `d` only where a wheel sensor measured them, `d` never decreasing, and no
 * row without a value.
 */
export interface TrackColumns {
  /** the number of rows (points); every channel present has this length */
  length: number;
  /** longitude, degrees (WGS 84) */
  x?: Float64Array;
  /** latitude, degrees (WGS 84) */
  y?: Float64Array;
  /** elevation, m */
  e?: Float64Array;
  /** time, whole Unix seconds (fractions floored); Float64 since Int32 has no NaN and ends in 2038 */
  t?: Float64Array;
  /** cadence, rpm */
  c?: NumberColumn;
  /** heart rate, bpm */
  h?: NumberColumn;
  /** power, W */
  p?: NumberColumn;
  /** wheel-sensor speed, m/s */
  s?: Float64Array;
  /** wheel-sensor distance from start, m; never decreases */
  d?: Float64Array;
  /** temperature, °C */
  T?: NumberColumn;
}

/** What a track is beside its samples: shared by `Track` (points) and `ColumnarTrack` (columns). */
export interface TrackDetails {
  kind: TrackKind;
  name: string | null;
  /** normalised snake_case sport, e.g. `cycling`, `running`, `multisport`; null when unknown */
  sport: string | null;
  /** normalised snake_case sub-sport, e.g. `road`, `virtual_activity`, `indoor_cycling` */
  subSport: string | null;
  /** Unix seconds of the first timed point (or the file's own start time); null for untimed routes */
  startTime: number | null;
  /** what identifies the recording this track came from, beside `summary.device` and its first timed point */
  recording: RecordingIdentity;
  laps: Lap[];
  sensors: TrackSensors;
  summary: Summary;
  /**
   * What was wrong with the file where this track was read (issue 16): a cut-off end (only the last
   * track of a file, where the cut is), a bad CRC, skipped or realigned data. Empty for a sound file.
   * A track with any of these never takes the file's own totals for its summary.
   */
  warnings: Warning[];
}

/**
 * What identifies the recording a track came from (issue 16, "One ride per ride"): with the device's
 * name (`summary.device`) and the first timed point, it tells the same recording in other bytes (a
 * `.fit.gz`, a cut-off copy, a TCX or GPX exported from it) from another device's recording of the ride.
 */
export interface RecordingIdentity {
  /**
   * The recording device's serial number, as text: FIT `file_id.serial_number`, TCX `Creator/UnitId`
   * when not 0. Null when the file does not say.
   */
  serialNumber: string | null;
  /** When the device created the file, Unix seconds (FIT `file_id.time_created`); null when unknown. */
  timeCreated: number | null;
}

/** A lap of a ride, as the file records it or as computed from its points (`source`). */
export interface Lap {
  /**
   * `file`: the lap as the file records it; `points`: computed from the points of the lap's time,
   * because the file's totals do not describe the points read (a file cut off mid-lap)
   */
  source: 'file' | 'points';
  /** Unix seconds */
  startTime: number | null;
  elapsedSeconds: number | null;
  timerSeconds: number | null;
  distanceMeters: number | null;
  ascentMeters: number | null;
  descentMeters: number | null;
  calories: number | null;
  avgSpeedMetersPerSecond: number | null;
  maxSpeedMetersPerSecond: number | null;
  avgHeartRateBpm: number | null;
  maxHeartRateBpm: number | null;
  avgCadenceRpm: number | null;
  maxCadenceRpm: number | null;
  avgPowerWatts: number | null;
  maxPowerWatts: number | null;
}

/** A sensor or device the file says was connected. */
export interface SensorDevice {
  /** 0 is the recording device itself (FIT device_index) */
  index: number | null;
  /** `antplus`, `ant`, `bluetooth_low_energy`, `local`, … (FIT source_type) */
  sourceType: string | null;
  /** e.g. `bike_speed`, `bike_power`, `heart_rate`, or the raw number when the profile has no name */
  deviceType: string | null;
  manufacturer: string | null;
  product: string | null;
  name: string | null;
}

/** The sensors of a track, and whether its speed and distance (`s`, `d`) come from a wheel sensor. */
export interface TrackSensors {
  /** whether the track's `s`/`d` come from a wheel sensor (docs/contributors/architecture.md, the wheel-sensor rule) */
  wheelSensor: boolean;
  /** why the verdict is what it is, in words (shown by `rideport inspect`) */
  wheelSensorReason: string;
  devices: SensorDevice[];
}

/** Minimum, average and maximum of a channel over a track. */
export interface Stat {
  min: number;
  /** over time: each value counts for the seconds it holds until the next one (at most 30 s, pauses left out) */
  avg: number;
  max: number;
}

/** The shape of a track: back where it started, there and back the same way, or from A to B. */
export type TrackType = 'loop' | 'out_and_back' | 'point_to_point' | 'unknown';
/** How hilly a track is, from its elevation gain per distance. */
export type Terrain = 'flat' | 'rolling' | 'climbing';

/** A position in degrees (WGS 84). */
export interface Position {
  lat: number;
  lng: number;
}

/** The box around a track's positions, in degrees: south-west and north-east corners. */
export interface Bounds {
  swLat: number;
  swLng: number;
  neLat: number;
  neLng: number;
}

/** What the file itself states about the whole track (FIT session totals, TCX lap sums). */
export interface RecordedTotals {
  distanceMeters: number | null;
  ascentMeters: number | null;
  descentMeters: number | null;
  elapsedSeconds: number | null;
  timerSeconds: number | null;
}

/** A span of time, [from, to] in Unix seconds. */
export type TimeSpan = readonly [from: number, to: number];

/** A device clock that jumped between two records (set mid-ride, or a glitch of a few records). */
export interface ClockJump {
  /** Unix seconds of the first record after the jump */
  at: number;
  /** how far the clock jumped, s; negative when it went back */
  seconds: number;
}

/**
 * A track's summary (issue 16: docs/library/numbers.md "How the numbers are made" documents every rule). Whatever the
 * file, min ≤ avg ≤ max for every channel, moving ≤ elapsed, timer ≤ elapsed, and distance ÷ moving time
 * ≤ maximum speed; every total describes the points the track holds. Times are whole seconds.
 */
export interface Summary {
  /** the number of points of the track */
  pointCount: number;
  distanceMeters: number | null;
  /**
   * `file`: the file's own total (FIT session, TCX laps), used only when it describes the points read;
   * `points`: the distance the device recorded with the points; `positions`: along the positions
   */
  distanceSource: 'file' | 'points' | 'positions' | null;
  /** from the first to the last timed point, leaving out clock jumps (`clockJumps`) */
  elapsedSeconds: number | null;
  /**
   * The device's timer, which stands still while it is stopped or auto-paused: from the file's own
   * total (`file`, only when it describes the points), else the elapsed time less the pauses the file
   * marks (`pauses`: FIT timer stop and start events, GPX and KML segments, TCX tracks), else the
   * elapsed time (`points`: the file marks no pause).
   */
  timerSeconds: number | null;
  timerSource: 'file' | 'pauses' | 'points' | null;
  /** the time the rider moved faster than the sport's stop speed, from the points (or pool lengths) */
  movingSeconds: number | null;
  /** the file's own total ascent when it describes the points (FIT session), else computed from the points */
  elevationGainMeters: number | null;
  elevationLossMeters: number | null;
  elevationSource: 'file' | 'points' | null;
  /** the average is distance ÷ moving time; minimum and maximum as `speedSource` says */
  speedMetersPerSecond: Stat | null;
  /**
   * `points`: the speed the device recorded with the points; `distance`: derived from the recorded
   * distance; `positions`: derived from the positions, leaving out isolated GPS spikes
   */
  speedSource: 'points' | 'distance' | 'positions' | null;
  /** isolated GPS positions left out of the distance and the speeds: a jump no rider makes, and back */
  speedSpikesIgnored: number;
  /** jumps of the device clock, left out of the elapsed, timer and moving times */
  clockJumps: ClockJump[];
  /** zeros (no reading) left out */
  heartRateBpm: Stat | null;
  /** the average leaves zeros (coasting) out, as Strava shows it; minimum and maximum keep them */
  cadenceRpm: Stat | null;
  /** zeros kept; normalized power from 30-second rolling means of one value a second */
  powerWatts: (Stat & { normalized: number | null }) | null;
  temperatureCelsius: Stat | null;
  calories: number | null;
  /** e.g. "Garmin Edge 530" */
  device: string | null;
  bounds: Bounds | null;
  firstPosition: Position | null;
  lastPosition: Position | null;
  trackType: TrackType;
  terrain: Terrain;
  /** the file's own totals, for comparison; null when the file states none */
  recorded: RecordedTotals | null;
  /**
   * Whether the file's own numbers (`recorded`, the laps) describe the points that were read: a file
   * read whole whose totals, if any, span the points' time. When false, none of them is used: the
   * summary and each lap (`Lap.source`) are computed from the points.
   */
  recordedDescribesPoints: boolean;
}

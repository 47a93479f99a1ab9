/**
 * Whether a new ride is the same recording as a stored trip (issue 16, "One ride per ride"), and
 * whether it completes a stored cut-off copy. Pure rules, applied by the upload queue inside the
 * transaction that stores the rides (queue.ts); docs/library/numbers.md, "One ride per ride", states them for riders.
 *
 * A recording is one device's record of one activity. Its bytes vary (a `.fit` and its `.fit.gz`, a
 * copy cut off while the device was still writing, a TCX or GPX exported from it by Garmin Connect,
 * Strava or our own writers), what it records does not:
 *
 * (a) both sides know the device's serial number: the same recording when the serials are equal and
 *     the first timed points fall in the same whole second (and FIT's time_created is equal where both
 *     files state it). Different serials are different devices, whatever the points say.
 * (b) otherwise, both sides name their device: the same recording when the names agree (normalised,
 *     see `deviceKey`) and the first timed points fall in the same second.
 * (c) otherwise (a GPX exported by Garmin Connect or Strava names no device): the points decide. An
 *     export keeps the recorded positions to the centimetre, at the recorded seconds; another device
 *     on the same ride is metres away at nearly every second (its own GPS error, its own mount). So:
 *     over the seconds both tracks have a position, at least AGREEING_FRACTION of them within
 *     POSITION_TOLERANCE_METERS; without enough positions, the same heart rate, power and cadence
 *     (within CHANNEL_TOLERANCE) at that fraction of the seconds both carry each channel.
 *
 * The thresholds come from real files and from how GPS receivers err (docs/contributors/benchmarks.md, "The same-recording
 * thresholds", gives the figures; queue/same-recording.test.ts checks them on the corpus): every corpus ride
 * against our GPX and TCX exports of it, and gpsbabel's GPX of a Garmin Edge 705 TCX, agree to under
 * 0.0001 m at every second both have; a track moved by 5 m or more agrees at none.
 */
import { haversineMeters, type Track, type TrackPoint } from '@rideport/ridefile';
import type { TimeRange } from '../store/track-columns.js';

/** What a stored trip or a new ride says about the recording it came from. */
export interface RecordingFacts {
  /** the device's serial number (FIT file_id, TCX Creator/UnitId); null when unknown */
  serialNumber: string | null;
  /** FIT file_id.time_created, Unix seconds; null when unknown */
  timeCreated: number | null;
  /** the device's name as the file gives it, e.g. "Garmin Edge 530"; null when unknown */
  device: string | null;
  /** the first and last timed point, whole Unix seconds; null when no point has a time */
  firstTime: number | null;
  lastTime: number | null;
}

/** What a parsed track says of its recording; `range`: its points' timeRange (store/track-columns.ts). */
export function trackFacts(track: Track, range: TimeRange | null): RecordingFacts {
  return {
    serialNumber: track.recording.serialNumber,
    timeCreated: track.recording.timeCreated,
    device: track.summary.device,
    firstTime: range?.first ?? null,
    lastTime: range?.last ?? null,
  };
}

/**
 * Positions of an export agree with the recording's to well under a millimetre (the corpus rides
 * with positions, exported to GPX and to TCX: at most 0.00008 m over 559,332 seconds); a writer
 * that rounds to 5 decimal places moves them by at most 0.8 m. Two receivers on one bike err
 * independently: with errors of 1 m per axis that wander over a minute (a very good fix), 68 % of
 * their seconds lie within 2 m of each other, 92 % within 3 m (simulated). 2 m keeps every export
 * and leaves such a pair apart.
 */
export const POSITION_TOLERANCE_METERS = 2;

/**
 * "Nearly all" seconds: 95 %. Exports agree at every second; the pair of good receivers above at 68 %.
 * The margin lets an export that dropped or re-rounded a few points still agree.
 */
export const AGREEING_FRACTION = 0.95;

/**
 * Seconds in common needed before the points can say "the same": fewer say nothing either way, and the
 * rides are then kept apart (overlapping). A track shorter than this is compared over all its seconds.
 */
export const MIN_COMMON_SECONDS = 30;

/** Heart rate, power and cadence of an export are the recorded values rounded to whole units. */
export const CHANNEL_TOLERANCE = 1;

export type SameRecordingRule = 'serial' | 'device' | 'points';

export type Identity =
  /** (a) or (b) decided: the same recording by this rule */
  | { kind: 'same'; rule: Exclude<SameRecordingRule, 'points'> }
  /** (a) or (b) decided: not the same recording */
  | { kind: 'different' }
  /** (c): only the points can tell */
  | { kind: 'compare points' };

/** Rules (a) and (b): what the identities alone decide. */
export function compareIdentities(a: RecordingFacts, b: RecordingFacts): Identity {
  const sameStart = a.firstTime !== null && a.firstTime === b.firstTime;
  if (a.serialNumber !== null && b.serialNumber !== null) {
    const created = a.timeCreated === null || b.timeCreated === null || a.timeCreated === b.timeCreated;
    return a.serialNumber === b.serialNumber && sameStart && created
      ? { kind: 'same', rule: 'serial' }
      : { kind: 'different' };
  }
  const aDevice = deviceKey(a.device);
  const bDevice = deviceKey(b.device);
  if (aDevice !== null && bDevice !== null) {
    return aDevice === bDevice && sameStart ? { kind: 'same', rule: 'device' } : { kind: 'different' };
  }
  return { kind: 'compare points' };
}

/**
 * A device name as rule (b) compares it: lower case, letters and digits only, without a leading
 * "garmin" (Garmin Connect's TCX says "Edge 520" where the FIT file_id reads "Garmin Edge 520", and
 * GoldenCheetah's files "EDGE705"). Null for no name.
 */
export function deviceKey(device: string | null): string | null {
  if (device === null) return null;
  const key = device
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '')
    .replace(/^garmin(?=.)/, '');
  return key === '' ? null : key;
}

/** How the points of two tracks compare over the seconds both have. */
export interface PointAgreement {
  /** seconds both tracks have a position */
  positionSeconds: number;
  /** of those, the seconds whose positions lie within POSITION_TOLERANCE_METERS */
  positionsWithin: number;
  /** seconds both tracks carry heart rate, power or cadence (a second counts once per channel) */
  channelSeconds: number;
  /** of those, the channel values equal within CHANNEL_TOLERANCE */
  channelsEqual: number;
  /** the seconds with a position of the track that has fewer of them */
  fewerPositioned: number;
  /** the seconds with heart rate, power or cadence (once per channel) of the track with fewer */
  fewerChannels: number;
}

const CHANNELS = ['h', 'p', 'c'] as const;

/** The keys the rules read of a point. */
export const COMPARED_KEYS = ['x', 'y', 't', 'h', 'p', 'c'] as const;

/**
 * A track's points as the rules read them: a column per compared key, NaN where a point has no value.
 * A stored trip's are read so from its packed form (PackedPointsReader.columns), never made into
 * objects (issue 36: two rides of 2,000,000 points compared as objects took 5 s and 600 MB).
 */
export type ComparedPoints = Record<(typeof COMPARED_KEYS)[number], Float64Array>;

/** Points to compare: as objects, or already as columns. */
export type PointsToCompare = readonly TrackPoint[] | ComparedPoints;

/** The points as the rules' columns (the same columns when they are columns already). */
export function comparedPoints(points: PointsToCompare): ComparedPoints {
  if (!isPointList(points)) return points;
  const columns = Object.fromEntries(
    COMPARED_KEYS.map((key) => [key, new Float64Array(points.length).fill(NaN)]),
  ) as ComparedPoints;
  points.forEach((point, i) => {
    for (const key of COMPARED_KEYS) {
      const value = point[key];
      if (value !== undefined) columns[key][i] = value;
    }
  });
  return columns;
}

function isPointList(points: PointsToCompare): points is readonly TrackPoint[] {
  return Array.isArray(points);
}

/** A track's seconds, each with the row of its first point (in file order), ascending. */
interface Seconds {
  seconds: Float64Array;
  rows: Int32Array;
  /** of those points, how many have a position */
  positioned: number;
  /** and how many heart rate, power and cadence values they carry */
  channels: number;
}

const hasPosition = (points: ComparedPoints, row: number): boolean =>
  !Number.isNaN(points.x[row]!) && !Number.isNaN(points.y[row]!);

/** Each second's first point, of the points that have a time; and how many carry what is compared. */
function bySecond(points: ComparedPoints): Seconds {
  const { t } = points;
  const order = timedRowsByTime(t);
  const seconds = new Float64Array(order.length);
  const rows = new Int32Array(order.length);
  let count = 0;
  let positioned = 0;
  let channels = 0;
  for (const row of order) {
    const second = t[row]!;
    if (count > 0 && seconds[count - 1] === second) continue;
    seconds[count] = second;
    rows[count] = row;
    count += 1;
    if (hasPosition(points, row)) positioned += 1;
    for (const channel of CHANNELS) if (!Number.isNaN(points[channel][row]!)) channels += 1;
  }
  return { seconds: seconds.subarray(0, count), rows: rows.subarray(0, count), positioned, channels };
}

/** Rows packed with their time into one number, when the times allow (timedRowsByTime). */
const ROW_BITS = 2 ** 21;

/**
 * The rows that have a time, by time and, within a second, in file order. A ride's times mostly
 * ascend already; otherwise each row and its whole-second time are sorted as one number (the time's
 * offset from the first times 2^21, plus the row), natively, where an ordering function on two
 * million rows took seconds.
 */
function timedRowsByTime(t: Float64Array): Int32Array {
  let timed = 0;
  let ascending = true;
  let min = Infinity;
  let max = -Infinity;
  let whole = true;
  for (let row = 0; row < t.length; row++) {
    const time = t[row]!;
    if (Number.isNaN(time)) continue;
    if (time < max) ascending = false;
    if (!Number.isInteger(time)) whole = false;
    min = Math.min(min, time);
    max = Math.max(max, time);
    timed += 1;
  }
  const rows = new Int32Array(timed);
  let next = 0;
  for (let row = 0; row < t.length; row++) if (!Number.isNaN(t[row]!)) rows[next++] = row;
  if (ascending) return rows;
  if (whole && t.length <= ROW_BITS && (max - min + 1) * ROW_BITS <= Number.MAX_SAFE_INTEGER) {
    const keys = Float64Array.from(rows, (row) => (t[row]! - min) * ROW_BITS + row);
    keys.sort();
    return Int32Array.from(keys, (key) => key % ROW_BITS);
  }
  return Int32Array.from([...rows].sort((a, b) => t[a]! - t[b]! || a - b));
}

export function comparePoints(a: PointsToCompare, b: PointsToCompare): PointAgreement {
  const aPoints = comparedPoints(a);
  const bPoints = comparedPoints(b);
  const aSeconds = bySecond(aPoints);
  const bSeconds = bySecond(bPoints);
  // The track with fewer seconds is "point" below and the other "other", as the rules were first written.
  const [fewer, fewerPoints, more, morePoints] =
    aSeconds.seconds.length <= bSeconds.seconds.length
      ? [aSeconds, aPoints, bSeconds, bPoints]
      : [bSeconds, bPoints, aSeconds, aPoints];
  const agreement: PointAgreement = {
    positionSeconds: 0,
    positionsWithin: 0,
    channelSeconds: 0,
    channelsEqual: 0,
    fewerPositioned: Math.min(aSeconds.positioned, bSeconds.positioned),
    fewerChannels: Math.min(aSeconds.channels, bSeconds.channels),
  };
  // Both tracks' seconds ascend: the seconds both have are found in one pass over each.
  let j = 0;
  for (let i = 0; i < fewer.seconds.length; i++) {
    const second = fewer.seconds[i]!;
    while (j < more.seconds.length && more.seconds[j]! < second) j++;
    if (j === more.seconds.length) break;
    if (more.seconds[j] !== second) continue;
    const point = fewer.rows[i]!;
    const other = more.rows[j]!;
    if (hasPosition(fewerPoints, point) && hasPosition(morePoints, other)) {
      agreement.positionSeconds += 1;
      const within =
        haversineMeters(
          fewerPoints.y[point]!,
          fewerPoints.x[point]!,
          morePoints.y[other]!,
          morePoints.x[other]!,
        ) <= POSITION_TOLERANCE_METERS;
      if (within) agreement.positionsWithin += 1;
    }
    for (const channel of CHANNELS) {
      const value = fewerPoints[channel][point]!;
      const otherValue = morePoints[channel][other]!;
      if (Number.isNaN(value) || Number.isNaN(otherValue)) continue;
      agreement.channelSeconds += 1;
      if (Math.abs(value - otherValue) <= CHANNEL_TOLERANCE) agreement.channelsEqual += 1;
    }
  }
  return agreement;
}

/**
 * Rule (c) on the agreement: positions decide when there are enough of them in common (MIN_COMMON_SECONDS,
 * or every position of a track that has fewer); otherwise heart rate, power and cadence do, by the
 * same measure. Too little in common decides nothing: not the same.
 */
export function pointsAgree(agreement: PointAgreement): boolean {
  const enough = (available: number): number => Math.max(1, Math.min(MIN_COMMON_SECONDS, available));
  if (agreement.positionSeconds >= enough(agreement.fewerPositioned)) {
    return agreement.positionsWithin >= AGREEING_FRACTION * agreement.positionSeconds;
  }
  if (agreement.positionSeconds > 0 || agreement.channelSeconds < enough(agreement.fewerChannels)) {
    return false;
  }
  return agreement.channelsEqual >= AGREEING_FRACTION * agreement.channelSeconds;
}

/** A recording as the rules read it: its facts and its points. */
export interface Recording {
  facts: RecordingFacts;
  points: PointsToCompare;
}

/**
 * Whether two rides are the same recording: their time ranges touch, and rules (a), (b) or (c) say
 * so. (The upload queue applies the same rules in one-ride.ts, reading stored points only for (c).)
 */
export function sameRecording(a: Recording, b: Recording): boolean {
  const { firstTime: aFirst, lastTime: aLast } = a.facts;
  const { firstTime: bFirst, lastTime: bLast } = b.facts;
  if (aFirst === null || aLast === null || bFirst === null || bLast === null) return false;
  if (aFirst > bLast || bFirst > aLast) return false;
  const identity = compareIdentities(a.facts, b.facts);
  if (identity.kind !== 'compare points') return identity.kind === 'same';
  return pointsAgree(comparePoints(a.points, b.points));
}

/**
 * Whether `incoming`, the same recording as `stored`, is more complete than it: a stored copy cut off
 * before the end (issue 16: "when the new file is more complete than a stored cut-off copy, it
 * replaces the copy's points"). The stored points must end earlier and be a prefix in time of the new
 * file's: they start no earlier, and the new file has at least as many timed points over the stored
 * span, so replacing loses nothing. A whole stored ride is never replaced by a shorter copy.
 */
export function completes(stored: Recording, incoming: Recording): boolean {
  const { firstTime: storedFirst, lastTime: storedLast } = stored.facts;
  const { firstTime: newFirst, lastTime: newLast } = incoming.facts;
  if (storedFirst === null || storedLast === null || newFirst === null || newLast === null) return false;
  if (!(storedLast < newLast) || storedFirst < newFirst) return false;
  const timedIn = (points: PointsToCompare): number =>
    comparedPoints(points).t.reduce((n, time) => (time >= storedFirst && time <= storedLast ? n + 1 : n), 0);
  return timedIn(incoming.points) >= timedIn(stored.points);
}

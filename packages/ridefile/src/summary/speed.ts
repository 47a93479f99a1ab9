import type { PointColumns } from '../columns.js';
import { ownDistance, type CumulativeDistance } from './distance.js';
import { MAX_MOVING_GAP_SECONDS } from './time.js';

/** Speeds derived from a distance are measured over at least this long, so GPS jitter makes no spikes. */
const DERIVED_SPEED_WINDOW_SECONDS = 5;

export interface SpeedRange {
  min: number;
  max: number;
  /** isolated GPS speed samples left out */
  spikes: number;
}

/**
 * A recorded GPS speed sample that no rider reaches and leaves again within a second or two: up from
 * both neighbours by more than this acceleration (about 1 g). Wheel-sensor speed is taken as recorded.
 */
const SPEED_SPIKE_ACCELERATION_METERS_PER_SECOND2 = 10;

/**
 * The lowest and highest speed the device recorded; null without any. Wheel-sensor speed is taken as
 * recorded; an isolated GPS speed sample far above both its neighbours (a device's Doppler speed
 * glitching to 216 km/h for one second between 22 km/h samples) is left out.
 */
export function recordedSpeedRange(columns: PointColumns): SpeedRange | null {
  const { s, t, wheel } = columns;
  const n = columns.length;
  let min = Infinity;
  let max = -Infinity;
  let spikes = 0;
  let previous = -1;
  for (let i = 0; i < n; i++) {
    const value = s[i]!;
    if (!(value >= 0) || value === Infinity) continue;
    // Most samples are no steeper rise than a rider makes; only those are looked at closer.
    if (
      wheel[i] === 0 &&
      previous >= 0 &&
      value - s[previous]! > SPEED_SPIKE_ACCELERATION_METERS_PER_SECOND2 * (t[i]! - t[previous]!) &&
      isSpeedSpike(s, t, previous, i, nextSpeed(s, i + 1, n), n)
    ) {
      spikes += 1;
    } else {
      if (value < min) min = value;
      if (value > max) max = value;
    }
    previous = i;
  }
  return min === Infinity ? null : { min, max, spikes };
}

/** The first row from `from` on with a recorded speed; `n` when none. */
function nextSpeed(s: Float64Array, from: number, n: number): number {
  let next = from;
  while (next < n && !(s[next]! >= 0 && s[next]! !== Infinity)) next++;
  return next;
}

function isSpeedSpike(
  s: Float64Array,
  t: Float64Array,
  before: number,
  at: number,
  after: number,
  n: number,
): boolean {
  if (after >= n) return false;
  const toSpike = t[at]! - t[before]!;
  const fromSpike = t[after]! - t[at]!;
  if (!(toSpike > 0 && fromSpike > 0)) return false;
  return (
    (s[at]! - s[before]!) / toSpike > SPEED_SPIKE_ACCELERATION_METERS_PER_SECOND2 &&
    (s[at]! - s[after]!) / fromSpike > SPEED_SPIKE_ACCELERATION_METERS_PER_SECOND2
  );
}

/**
 * The lowest and highest speed over windows of at least DERIVED_SPEED_WINDOW_SECONDS along a cumulative
 * distance, between rows that have a distance of their own (ownDistance: not a row between sparse
 * positions, nor a GPS spike left out); windows across a gap longer than MAX_MOVING_GAP_SECONDS are no
 * speed. Null without two such rows far enough apart.
 */
export function derivedSpeedRange(columns: PointColumns, distance: CumulativeDistance): SpeedRange | null {
  const cumulative = distance.meters;
  const n = columns.length;
  const { t } = columns;
  // Whole seconds, as the points and every other time of the summary.
  const second = (row: number): number => Math.floor(t[row]!);
  const measured = ownDistance(distance);
  const usable = (row: number): boolean => !Number.isNaN(t[row]!) && measured(row);
  let min = Infinity;
  let max = -Infinity;
  let start = 0;
  let beforeStart = -1; // the last usable row before `start`
  for (let end = 0; end < n; end++) {
    if (!usable(end)) continue;
    while (start < end && (!usable(start) || second(end) - second(start) > DERIVED_SPEED_WINDOW_SECONDS)) {
      if (usable(start)) beforeStart = start;
      start++;
    }
    // `start` is now the first row within the window; step back one so the window spans at least its length.
    const from = beforeStart >= 0 ? beforeStart : start;
    const seconds = second(end) - second(from);
    if (seconds < DERIVED_SPEED_WINDOW_SECONDS || seconds > MAX_MOVING_GAP_SECONDS) continue;
    const speed = (cumulative[end]! - cumulative[from]!) / seconds;
    if (speed < min) min = speed;
    if (speed > max) max = speed;
  }
  return min === Infinity ? null : { min, max, spikes: 0 };
}

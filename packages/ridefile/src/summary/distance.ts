import type { PointColumns } from '../columns.js';
import { haversineMeters } from '../geo.js';
import type { Pauses } from './clock.js';

export interface CumulativeDistance {
  /** distance from the start at each row, m */
  meters: Float64Array;
  source: 'points' | 'positions' | null;
  /**
   * The rows with a distance of their own, rather than the total carried over from the row before:
   * those where this column (the recorded distance, or the latitude) has a value, and that are not
   * `spikeRows`. See ownDistance.
   */
  measured: Float64Array;
  /** positions left out as isolated GPS spikes (only for `positions`) */
  spikeRows: ReadonlySet<number>;
}

/** Whether a row has a distance of its own (CumulativeDistance.measured), as one function per track. */
export function ownDistance(distance: CumulativeDistance): (row: number) => boolean {
  const { measured, spikeRows } = distance;
  if (spikeRows.size === 0) return (row) => !Number.isNaN(measured[row]!);
  return (row) => !Number.isNaN(measured[row]!) && !spikeRows.has(row);
}

const NO_ROWS: ReadonlySet<number> = new Set();

/**
 * An isolated GPS spike: one position reached and left again with an acceleration no rider reaches
 * (about 1 g; a bicycle brakes at up to 0.6 g and accelerates far less), while its neighbours are
 * consistent with each other. Such a position is left out of the distance and the speeds (issue 16:
 * "maximum speed from positions ignores isolated GPS spikes").
 */
const SPIKE_ACCELERATION_METERS_PER_SECOND2 = 10;

/**
 * The distance from the start at each row. The file's own when it records one (any row with `d`): its
 * first value plus every increase, so a counter that restarts (a new lap or activity) still adds up.
 * Otherwise along the positions, without isolated spikes and without the way covered while the device's
 * timer stood still (`pauses`: devices count no distance then, and neither do we).
 */
export function cumulativeDistance(columns: PointColumns, pauses?: Pauses): CumulativeDistance {
  const n = columns.length;
  const { d } = columns;
  let firstDistance = 0;
  while (firstDistance < n && Number.isNaN(d[firstDistance]!)) firstDistance++;
  if (firstDistance < n) {
    return { meters: fileDistance(d, n, firstDistance), source: 'points', measured: d, spikeRows: NO_ROWS };
  }
  return positionDistance(columns, pauses);
}

/**
 * The recorded distance `d` made cumulative: each value plus the drops of the counter before it, zero
 * before the first value and the last total across rows without one. A column that already is
 * cumulative (a value on every row, from zero up, never dropping: nearly every recording) is returned
 * itself, read-only, so a long ride's summary allocates no array as long as its columns (issue 2, peak
 * memory).
 */
function fileDistance(d: Float64Array, n: number, firstDistance: number): Float64Array {
  if (firstDistance === 0 && isCumulative(d, n)) return d;
  const meters = new Float64Array(n);
  // cumulative = value + offset; the offset grows by each drop, so the total never goes back.
  let offset = Math.max(0, d[firstDistance]!) - d[firstDistance]!;
  let previous = d[firstDistance]!;
  let running = 0;
  for (let i = firstDistance; i < n; i++) {
    const value = d[i]!;
    if (!Number.isNaN(value)) {
      if (value < previous) offset += previous - value;
      previous = value;
      running = value + offset;
    }
    meters[i] = running;
  }
  return meters;
}

function isCumulative(d: Float64Array, n: number): boolean {
  if (!(d[0]! >= 0)) return false;
  for (let i = 1; i < n; i++) if (!(d[i]! >= d[i - 1]!)) return false;
  return true;
}

/**
 * Along the positions. Each position is judged once its successor is known (a spike is a way out and
 * back), so the rows up to it are filled one position late.
 */
function positionDistance(columns: PointColumns, pauses: Pauses | undefined): CumulativeDistance {
  const n = columns.length;
  const { x, y } = columns;
  const meters = new Float64Array(n);
  const spikeRows = new Set<number>();
  let running = 0;
  let filled = 0; // rows [0, filled) have their distance
  // The last accepted position (a), and the one waiting for its successor to be judged (b).
  let a = -1;
  let b = -1;
  let any = false;
  for (let c = 0; c <= n; c++) {
    if (c < n && (Number.isNaN(y[c]!) || Number.isNaN(x[c]!))) continue;
    any ||= c < n;
    if (b >= 0) {
      // The way to b, measured once: the leg of the distance, and the way out of a possible spike.
      const toB = a >= 0 ? haversineMeters(y[a]!, x[a]!, y[b]!, x[b]!) : 0;
      if (a >= 0 && c < n && isSpike(columns, a, b, c, toB)) {
        spikeRows.add(b);
      } else {
        if (a >= 0 && !pausedBetween(columns, a, b, pauses)) running += toB;
        a = b;
      }
      // Rows up to b (b itself, if it was a spike, keeps the total at a).
      while (filled <= b) meters[filled++] = running;
    }
    b = c;
  }
  while (filled < n) meters[filled++] = running;
  return {
    meters,
    source: any ? 'positions' : null,
    measured: y,
    spikeRows,
  };
}

/** Whether the device's timer stood still for the whole way from position row `from` to row `to`. */
function pausedBetween(columns: PointColumns, from: number, to: number, pauses: Pauses | undefined): boolean {
  if (pauses === undefined || pauses.count === 0) return false;
  const { t } = columns;
  const start = Math.floor(t[from]!);
  const end = Math.floor(t[to]!);
  return end > start && pauses.within(start, end) >= end - start;
}

/**
 * Whether position b, between a and c, is reached and left with an acceleration no rider reaches.
 * `toB`: the way from a to b, m. Most positions are reached at no such speed and need nothing more.
 */
function isSpike(columns: PointColumns, a: number, b: number, c: number, toB: number): boolean {
  const { x, y, t } = columns;
  const toSeconds = t[b]! - t[a]!;
  const fromSeconds = t[c]! - t[b]!;
  if (!(toSeconds > 0 && fromSeconds > 0)) return false; // untimed, or times out of order: nothing to judge by
  const out = toB / toSeconds;
  // out − direct > limit needs out > limit, as the direct speed is never below zero.
  if (out <= SPIKE_ACCELERATION_METERS_PER_SECOND2 * toSeconds) return false;
  // The other two ways on a local plane: exact enough to tell a jump of tens of metres, and cheaper.
  const metersPerDegreeLng = METERS_PER_DEGREE * Math.cos((y[b]! * Math.PI) / 180);
  const direct = planarMeters(y[a]!, x[a]!, y[c]!, x[c]!, metersPerDegreeLng) / (toSeconds + fromSeconds);
  const back = planarMeters(y[b]!, x[b]!, y[c]!, x[c]!, metersPerDegreeLng) / fromSeconds;
  return (
    (out - direct) / toSeconds > SPIKE_ACCELERATION_METERS_PER_SECOND2 &&
    (back - direct) / fromSeconds > SPIKE_ACCELERATION_METERS_PER_SECOND2
  );
}

/** Metres per degree of latitude (mean Earth radius, as geo.ts). */
const METERS_PER_DEGREE = (6_371_008.8 * Math.PI) / 180;

function planarMeters(
  lat1: number,
  lng1: number,
  lat2: number,
  lng2: number,
  metersPerDegreeLng: number,
): number {
  const dy = (lat2 - lat1) * METERS_PER_DEGREE;
  const dx = (lng2 - lng1) * metersPerDegreeLng;
  return Math.sqrt(dx * dx + dy * dy);
}

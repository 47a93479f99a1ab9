import type { PointColumns } from '../columns.js';
import { haversineMeters } from '../geo.js';
import type { Pauses } from './clock.js';

export interface CumulativeDistance {
  /** distance from the start at each row, m */
  meters: Float64Array;
  source: 'points' | 'positions' | null;
  /**
   * Whether row `i` has a distance of its own (a recorded distance, or a position that is not a spike),
   * rather than the total carried over from the row before.
   */
  measuredAt: (i: number) => boolean;
  /** positions left out as isolated GPS spikes (only for `positions`) */
  spikes: number;
}

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
    return {
      meters: fileDistance(d, n, firstDistance),
      source: 'points',
      measuredAt: (i) => !Number.isNaN(d[i]!),
      spikes: 0,
    };
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
      if (a >= 0 && c < n && isSpike(columns, a, b, c)) {
        spikeRows.add(b);
      } else {
        if (a >= 0) running += legMeters(columns, a, b, pauses);
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
    measuredAt: (i) => !Number.isNaN(y[i]!) && !Number.isNaN(x[i]!) && !spikeRows.has(i),
    spikes: spikeRows.size,
  };
}

/** The way from position row `from` to row `to`, none of it while a pause of the device lasted. */
function legMeters(columns: PointColumns, from: number, to: number, pauses: Pauses | undefined): number {
  const { x, y, t } = columns;
  if (pauses !== undefined && pauses.count > 0) {
    const start = Math.floor(t[from]!);
    const end = Math.floor(t[to]!);
    if (end > start && pauses.within(start, end) >= end - start) return 0;
  }
  return haversineMeters(y[from]!, x[from]!, y[to]!, x[to]!);
}

/** Whether position b, between a and c, is reached and left with an acceleration no rider reaches. */
function isSpike(columns: PointColumns, a: number, b: number, c: number): boolean {
  const { x, y, t } = columns;
  const toB = t[b]! - t[a]!;
  const fromB = t[c]! - t[b]!;
  if (!(toB > 0 && fromB > 0)) return false; // untimed, or times out of order: nothing to judge by
  const direct = haversineMeters(y[a]!, x[a]!, y[c]!, x[c]!) / (toB + fromB);
  const out = haversineMeters(y[a]!, x[a]!, y[b]!, x[b]!) / toB;
  const back = haversineMeters(y[b]!, x[b]!, y[c]!, x[c]!) / fromB;
  return (
    (out - direct) / toB > SPIKE_ACCELERATION_METERS_PER_SECOND2 &&
    (back - direct) / fromB > SPIKE_ACCELERATION_METERS_PER_SECOND2
  );
}

import { RideFileError, RideFileErrorCode } from './errors.js';

/** Default cap on points in one track (decisions.md §7: 2,000,000 track points in one ride). */
export const DEFAULT_MAX_POINTS = 2_000_000;

const INITIAL_CAPACITY = 1024;

/**
 * Column-wise storage of a track's samples while a reader runs: one Float64Array per channel,
 * NaN where a sample has no value. Readers append rows; the finishing step (track.ts) computes the
 * summary from the columns and builds the `TrackPoint` objects once, in the specification's key order.
 *
 * `s` and `d` hold what the device recorded (GPS-derived or wheel), and `wheel` marks the rows whose
 * speed and distance a wheel sensor measured; only those rows get `s`/`d` in the output points.
 */
export class PointColumns {
  length = 0;
  x: Float64Array;
  y: Float64Array;
  e: Float64Array;
  /** Unix seconds, possibly fractional until the points are built */
  t: Float64Array;
  c: Float64Array;
  h: Float64Array;
  p: Float64Array;
  s: Float64Array;
  d: Float64Array;
  T: Float64Array;
  wheel: Uint8Array;
  /** the ten channels in the specification's key order (x y e t c h p s d T), for index-based writers */
  channels: Float64Array[];
  readonly #maxPoints: number;

  constructor(maxPoints = DEFAULT_MAX_POINTS, capacityHint = INITIAL_CAPACITY) {
    this.#maxPoints = maxPoints;
    const capacity = Math.max(1, Math.min(capacityHint, maxPoints));
    this.x = new Float64Array(capacity);
    this.y = new Float64Array(capacity);
    this.e = new Float64Array(capacity);
    this.t = new Float64Array(capacity);
    this.c = new Float64Array(capacity);
    this.h = new Float64Array(capacity);
    this.p = new Float64Array(capacity);
    this.s = new Float64Array(capacity);
    this.d = new Float64Array(capacity);
    this.T = new Float64Array(capacity);
    this.wheel = new Uint8Array(capacity);
    this.channels = this.#channelList();
  }

  #channelList(): Float64Array[] {
    return [this.x, this.y, this.e, this.t, this.c, this.h, this.p, this.s, this.d, this.T];
  }

  /** Appends an empty row (every channel NaN) and returns its index. Re-read the column fields after calling. */
  append(): number {
    const index = this.length;
    if (index >= this.#maxPoints) {
      throw new RideFileError(
        RideFileErrorCode.TOO_LARGE,
        `a track holds more than ${this.#maxPoints} points`,
      );
    }
    if (index === this.x.length) this.#grow();
    this.length = index + 1;
    // Rows start empty: writing NaN here is cheaper than filling the whole capacity ahead of use.
    this.x[index] = this.y[index] = this.e[index] = this.t[index] = this.c[index] = NaN;
    this.h[index] = this.p[index] = this.s[index] = this.d[index] = this.T[index] = NaN;
    this.wheel[index] = 0;
    return index;
  }

  /** Drops the last row (a reader found it held nothing). */
  dropLast(): void {
    if (this.length > 0) this.length -= 1;
  }

  /** Removes the rows from `from` on that hold no value, keeping the others in order. */
  compactFrom(from = 0): void {
    let kept = from;
    for (let row = from; row < this.length; row++) {
      if (!this.hasAnyValue(row)) continue;
      if (row !== kept) this.#moveRow(row, kept);
      kept += 1;
    }
    this.length = kept;
  }

  #moveRow(from: number, to: number): void {
    for (const channel of this.channels) channel[to] = channel[from]!;
    this.wheel[to] = this.wheel[from]!;
  }

  /** Whether row `i` carries any value at all. */
  hasAnyValue(i: number): boolean {
    return !(
      Number.isNaN(this.x[i]!) &&
      Number.isNaN(this.y[i]!) &&
      Number.isNaN(this.e[i]!) &&
      Number.isNaN(this.t[i]!) &&
      Number.isNaN(this.c[i]!) &&
      Number.isNaN(this.h[i]!) &&
      Number.isNaN(this.p[i]!) &&
      Number.isNaN(this.s[i]!) &&
      Number.isNaN(this.d[i]!) &&
      Number.isNaN(this.T[i]!)
    );
  }

  #grow(): void {
    const current = this.x.length;
    const next = Math.min(Math.max(current * 2, INITIAL_CAPACITY), this.#maxPoints);
    this.x = grown(this.x, next);
    this.y = grown(this.y, next);
    this.e = grown(this.e, next);
    this.t = grown(this.t, next);
    this.c = grown(this.c, next);
    this.h = grown(this.h, next);
    this.p = grown(this.p, next);
    this.s = grown(this.s, next);
    this.d = grown(this.d, next);
    this.T = grown(this.T, next);
    const wheel = new Uint8Array(next);
    wheel.set(this.wheel);
    this.wheel = wheel;
    this.channels = this.#channelList();
  }
}

function grown(source: Float64Array, length: number): Float64Array {
  const target = new Float64Array(length);
  target.set(source);
  return target;
}

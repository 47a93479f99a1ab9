import { RideFileError, RideFileErrorCode } from './errors.js';

/** Default cap on points in one track (docs/contributors/decisions.md §7: 2,000,000 track points in one ride). */
export const DEFAULT_MAX_POINTS = 2_000_000;

const INITIAL_CAPACITY = 1024;

/** Room left above a growth's estimate of a track's rows, so that an estimate a little low grows once. */
const ESTIMATE_MARGIN = 1.0625;

/**
 * The share of a track's rows that its columns may hold empty beyond them once trimmed: the room a
 * growth's ESTIMATE_MARGIN leaves, with some to spare (PointColumns.trimmedChannels).
 */
const TRIM_IN_PLACE_SLACK = 0.125;

/** The least a growth multiplies the capacity by when an estimate says less (an estimate too low). */
const LEAST_GROWTH = 1.5;

/**
 * How far an XML reader is through its file, in characters of its text, for sizing a track's columns
 * (issue 36: doubling, a 2,000,000-point track held 1,048,576 rows and 2,000,000 more while it grew,
 * about 200 MB, in each parse thread). `total` is the file's length in bytes, or what its gzip says it
 * inflates to: a hint, which a file's bytes can make wrong but never past the cap on points.
 */
export class ReadProgress {
  /** characters read so far */
  read = 0;

  constructor(readonly total: number | null) {}
}

/** A channel's values: Float64, or Float32 for a whole-number channel while every value fits exactly. */
export type Column = Float64Array | Float32Array;

// Channel slots: indexes into PointColumns.channels, in the specification's key order.
export const SLOT_X = 0;
export const SLOT_Y = 1;
export const SLOT_E = 2;
export const SLOT_T = 3;
export const SLOT_C = 4;
export const SLOT_H = 5;
export const SLOT_P = 6;
export const SLOT_S = 7;
export const SLOT_D = 8;
export const SLOT_TEMPERATURE = 9;

/** PointColumns' fields by slot. */
const CHANNEL_FIELDS = ['x', 'y', 'e', 't', 'c', 'h', 'p', 's', 'd', 'T'] as const;

/**
 * Column-wise storage of a track's samples while a reader runs: one typed array per channel, NaN where a
 * sample has no value. Readers append rows; the finishing step (track.ts) computes the summary from the
 * columns and builds the `TrackPoint` objects once, in the specification's key order.
 *
 * Cadence, heart rate, power and temperature start as Float32 columns: devices record them as small
 * whole numbers (FIT: 8 and 16 bits), which Float32 holds exactly in half the memory, and the columns
 * live beside the points while those are built (issue 2, peak memory). A value Float32 cannot hold
 * exactly (a GPX temperature of 21.3) widens its channel to Float64 first: write such channels through
 * `set`, or call `widen` before writing them directly.
 *
 * `s` and `d` hold what the device recorded (GPS-derived or wheel), and `wheel` marks the rows whose
 * speed and distance a wheel sensor measured; only those rows get `s`/`d` in the output points.
 *
 * Every row past `length` is kept empty (NaN, `wheel` 0) up to the capacity, filled in bulk when the
 * columns are made or grown, so `append` only counts (issue 21: the FIT record loop appends a row per
 * record): whatever removes rows (`dropLast`, `compactFrom`) empties them again.
 *
 * `x y e t` have columns of their own from the start. The other channels are absent until a value is
 * written to them: until then their fields are one shared column that is NaN throughout, which reads as
 * a channel without values and costs no memory per channel (issue 36: a GPX ride has four channels of
 * ten; 48 MB less of a parse thread's peak at 2,000,000 points). Write those channels through `set`
 * (which makes the channel's own column with its first value), or call `own` before writing one
 * directly; a value written into the shared column is found when the rows are finished (`finishRows`).
 */
export class PointColumns {
  length = 0;
  x: Float64Array;
  y: Float64Array;
  e: Float64Array;
  /** Unix seconds, possibly fractional until the points are built */
  t: Float64Array;
  c: Column;
  h: Column;
  p: Column;
  s: Float64Array;
  d: Float64Array;
  T: Column;
  wheel: Uint8Array;
  /** the ten channels by slot, in the specification's key order (x y e t c h p s d T) */
  channels: Column[];
  /** the column of every channel still absent: NaN throughout (see the class comment) */
  #absent: Float64Array;
  readonly #maxPoints: number;
  readonly #progress: ReadProgress | null;
  /** `#progress.read` when the track began */
  readonly #readBefore: number;

  /**
   * `progress`: the reader's progress through the file, from which a growth estimates the rows the
   * track will hold (the rows so far, in proportion to the text read since the track began), where
   * doubling would otherwise hold up to twice the track's rows while it grows.
   */
  constructor(
    maxPoints = DEFAULT_MAX_POINTS,
    capacityHint = INITIAL_CAPACITY,
    progress: ReadProgress | null = null,
  ) {
    this.#maxPoints = maxPoints;
    this.#progress = progress;
    this.#readBefore = progress?.read ?? 0;
    const capacity = Math.max(1, Math.min(capacityHint, maxPoints));
    this.x = new Float64Array(capacity).fill(NaN);
    this.y = new Float64Array(capacity).fill(NaN);
    this.e = new Float64Array(capacity).fill(NaN);
    this.t = new Float64Array(capacity).fill(NaN);
    this.#absent = new Float64Array(capacity).fill(NaN);
    this.c = this.h = this.p = this.s = this.d = this.T = this.#absent;
    this.wheel = new Uint8Array(capacity);
    this.channels = this.#channelList();
  }

  #channelList(): Column[] {
    return CHANNEL_FIELDS.map((field) => this[field]);
  }

  /**
   * Writes `value` into channel `slot` at `row`, making the channel's column first if it was absent,
   * and widening it first if it cannot hold the value exactly. NaN (no value) makes no column.
   */
  set(slot: number, row: number, value: number): void {
    let column = this.channels[slot]!;
    if (column === this.#absent) {
      if (Number.isNaN(value)) return;
      column = this.own(slot);
    }
    if (column instanceof Float32Array && Math.fround(value) !== value && !Number.isNaN(value)) {
      column = this.widen(slot);
    }
    column[row] = value;
  }

  /** Whether channel `slot` has a column of its own: a value was written to it (see the class comment). */
  has(slot: number): boolean {
    return this.channels[slot] !== this.#absent;
  }

  /**
   * Channel `slot`'s own column, made empty if the channel was absent (Float32 for cadence, heart rate,
   * power and temperature, as the class comment says) and returned. Re-read the column fields after calling.
   */
  own(slot: number): Column {
    const column = this.channels[slot]!;
    if (column !== this.#absent) return column;
    const capacity = this.#absent.length;
    // x y e t are never absent; of the others, speed and distance are Float64.
    const made = slot === SLOT_S || slot === SLOT_D ? new Float64Array(capacity) : new Float32Array(capacity);
    made.fill(NaN);
    this.#setField(slot, made);
    this.channels = this.#channelList();
    return made;
  }

  /** Makes channel `slot` a Float64 column (keeping its values) and returns it. Re-read the column fields after calling. */
  widen(slot: number): Float64Array {
    const column = this.channels[slot] === this.#absent ? this.own(slot) : this.channels[slot]!;
    if (column instanceof Float64Array) return column;
    const wide = new Float64Array(column.length);
    wide.set(column);
    this.#setField(slot, wide);
    this.channels = this.#channelList();
    return wide;
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
    return index;
  }

  /** Drops the last row (a reader found it held nothing, or took it back). */
  dropLast(): void {
    if (this.length > 0) {
      this.length -= 1;
      this.#clearRows(this.length, this.length + 1);
    }
  }

  /** Removes the rows from `from` on that hold no value, keeping the others in order. */
  compactFrom(from = 0): void {
    const rows = this.length;
    let kept = from;
    for (let row = from; row < rows; row++) {
      if (!this.hasAnyValue(row)) continue;
      if (row !== kept) this.#moveRow(row, kept);
      kept += 1;
    }
    this.#clearRows(kept, rows);
    this.length = kept;
  }

  /** Empties rows [from, to), which lie past the rows in use (see the class comment). */
  #clearRows(from: number, to: number): void {
    if (to <= from) return;
    for (const channel of this.channels) if (channel !== this.#absent) channel.fill(NaN, from, to);
    this.wheel.fill(0, from, to);
  }

  /**
   * Makes the rows what the output holds, in place, once the summary and the laps have read the
   * recorded values (issue 21: the columnar and the object output share this step): `t` floored to
   * whole seconds; `x` and `y` both or neither; `s` and `d` only on rows a wheel sensor measured, `d`
   * as its running maximum (never backwards); and the rows left without any value removed (a recorded
   * speed or distance without a wheel sensor says nothing of its own). `wheel` has no meaning after.
   */
  finishRows(): void {
    if (!this.#absent.every(Number.isNaN)) {
      // A reader wrote into an absent channel's field instead of through `set` or `own`: the value
      // would show in every absent channel. A bug of ours, never the file's.
      throw new Error('PointColumns: a value in an absent channel');
    }
    const { x, y, t, s, d, wheel } = this;
    let wheelDistance = -Infinity;
    // Only a row without a time can be empty: the rows are looked at whole only then, and compacted
    // from the first empty one, if any (most tracks have none).
    let firstEmpty = -1;
    const rows = this.length;
    for (let row = 0; row < rows; row++) {
      if (Number.isNaN(x[row]!) || Number.isNaN(y[row]!)) x[row] = y[row] = NaN;
      const time = Math.floor(t[row]!);
      t[row] = time;
      if (wheel[row] !== 1) {
        s[row] = d[row] = NaN;
      } else if (!Number.isNaN(d[row]!)) {
        if (d[row]! > wheelDistance) wheelDistance = d[row]!;
        d[row] = wheelDistance;
      }
      if (firstEmpty < 0 && Number.isNaN(time) && !this.hasAnyValue(row)) firstEmpty = row;
    }
    if (firstEmpty >= 0) this.compactFrom(firstEmpty);
  }

  /**
   * Shortens every channel to the rows in use and returns them; a channel without any value is null.
   * Where the rows left empty are few (up to TRIM_IN_PLACE_SLACK of the rows, as after a growth sized
   * by the reader's progress) a channel becomes a view of its first rows, its buffer kept whole: a copy
   * would hold each channel twice until the next collection (issue 36: 53 MB more of a parse thread's
   * peak at 2,000,000 points). Else the rows are copied, one channel at a time.
   */
  trimmedChannels(): (Column | null)[] {
    const { channels } = this;
    const inPlace = this.x.length - this.length <= this.length * TRIM_IN_PLACE_SLACK;
    const trimmed: (Column | null)[] = [];
    for (let slot = 0; slot < channels.length; slot++) {
      const column = channels[slot]!;
      if (column === this.#absent) {
        trimmed.push(null);
        continue;
      }
      const used =
        column.length === this.length
          ? column
          : inPlace
            ? column.subarray(0, this.length)
            : column.slice(0, this.length);
      // The long column is garbage from here: no field or list entry holds it any more.
      channels[slot] = used;
      this.#setField(slot, used);
      trimmed.push(hasValue(used) ? used : null);
    }
    return trimmed;
  }

  #setField(slot: number, column: Column): void {
    // x y e t s d are Float64 columns whenever they are set (the class comment).
    (this as unknown as Record<(typeof CHANNEL_FIELDS)[number], Column>)[CHANNEL_FIELDS[slot]!] = column;
  }

  #moveRow(from: number, to: number): void {
    // The shared column of the absent channels is NaN throughout: moving within it changes nothing.
    for (const channel of this.channels) channel[to] = channel[from]!;
    this.wheel[to] = this.wheel[from]!;
  }

  /** Whether row `i` carries any value at all. */
  hasAnyValue(i: number): boolean {
    for (const channel of this.channels) if (!Number.isNaN(channel[i]!)) return true;
    return false;
  }

  /** The rows a track has room for once grown: as many as the reader's progress says it will hold, else twice its rows. */
  #grownCapacity(current: number): number {
    const progress = this.#progress;
    const readHere = progress === null ? 0 : progress.read - this.#readBefore;
    const left = progress?.total == null ? 0 : progress.total - progress.read;
    if (readHere <= 0 || left <= 0) return Math.max(current * 2, INITIAL_CAPACITY);
    const expected = Math.ceil(this.length * (1 + left / readHere) * ESTIMATE_MARGIN);
    return Math.max(expected, Math.ceil(current * LEAST_GROWTH), current + INITIAL_CAPACITY);
  }

  /** How many rows the columns have room for now (tests: how they grew). */
  get capacity(): number {
    return this.x.length;
  }

  #grow(): void {
    const current = this.x.length;
    const next = Math.min(this.#grownCapacity(current), this.#maxPoints);
    const absent = this.#absent;
    this.#absent = new Float64Array(next).fill(NaN);
    this.channels.forEach((channel, slot) => {
      this.#setField(slot, channel === absent ? this.#absent : grownColumn(channel, next));
    });
    const wheel = new Uint8Array(next);
    wheel.set(this.wheel);
    this.wheel = wheel;
    this.channels = this.#channelList();
  }
}

function hasValue(column: Column): boolean {
  for (let i = 0; i < column.length; i++) if (!Number.isNaN(column[i]!)) return true;
  return false;
}

/** `source` in a column of its kind `length` long, the rows past its own empty. */
function grownColumn(source: Column, length: number): Column {
  const target = source instanceof Float64Array ? new Float64Array(length) : new Float32Array(length);
  target.set(source);
  target.fill(NaN, source.length);
  return target;
}

/**
 * The stored forms of a route's or trip's points (issue 4; migration 004), in one codec module that
 * the store and the upload queue's worker threads share (issue 35):
 * - packed: binary columns, written when the asset is created (cheap to make, in the upload queue's
 *   worker threads as anywhere, and to move between threads: one ArrayBuffer);
 * - JSON: the array text of legacy track points (docs/integrators/api.md, "Track point"), keys in the
 *   specification's order, rendered from the packed form the first time the points are read and kept,
 *   so that single-record responses splice it in as it is, without parsing or re-serialising
 *   thousands of points per request.
 *
 * Packed layout (little-endian), version 2:
 *   u8 version, u8 0, u16 mask of the TRACK_POINT_KEYS that any point has, u32 point count N;
 *   then for each key in the mask, in TRACK_POINT_KEYS order: u32 count P of points that have it,
 *   u8 value width W (1, 2, 4 or 8 bytes), u8 scale, u16 0, float64 base; when P < N a bitmap of N
 *   bits (bit i: point i has it) padded to a multiple of 8 bytes; then the P values, padded so too.
 *   W = 8: the values as float64. Otherwise unsigned integers n of W bytes, each value being
 *   (base + n) / 10^scale, or (base + n) × 180 / 2^31 for scale 255 (FIT's semicircles).
 * Devices record in fixed steps (whole seconds, beats and watts, 0.2 m of altitude, centimetres of
 * distance, semicircles of latitude): a 24,000-point FIT ride packs into about a quarter of the bytes of
 * float64 columns, which the upload queue writes to the database and its log for every upload
 * (issue 5). A column is stored as integers only when every value reads back as exactly the same
 * number; otherwise as float64. A value that is not a finite number is not stored (JSON has no NaN;
 * every key is optional).
 *
 * Version 3 (issue 36, "the stored points are compact") is version 2 with one more value width, 0: the
 * steps as varint deltas. Such a section's values are a u32 byte length L, then P LEB128 varints, each
 * the zigzag of (n_j − n_{j−1}) with n_{−1} = 0, padded (with L's four bytes) to a multiple of 8. A
 * column is written so when that is smaller than its fixed width: a ride's steps change little from
 * one point to the next (a second of time, a few metres of position), so most take one byte where the
 * fixed width took four, and a ride packs into about a third of version 2's bytes, which the main
 * thread writes to the database and reads back at each rendering.
 *
 * Versions 1 (float64 values only, no per-key width, scale and base) and 2 are still read: databases
 * hold them.
 */
import { TRACK_POINT_KEYS, type TrackColumns, type TrackPoint } from '@rideport/ridefile';

const VERSION = 3;
const HEADER_BYTES = 8;
const SECTION_HEADER_BYTES = 16;

/** scale: the value is (base + n) × 180 / 2^31, a FIT position in semicircles */
const SEMICIRCLES = 255;
const DEGREES_PER_SEMICIRCLE = 180 / 2 ** 31;
/** the most decimal places tried before a column is stored as float64 */
const MAX_DECIMALS = 9;
const POWERS_OF_TEN = Array.from({ length: MAX_DECIMALS + 1 }, (_, k) => 10 ** k);

const padded = (bytes: number): number => Math.ceil(bytes / 8) * 8;

/** How one column's values are stored. */
interface ColumnEncoding {
  /** bytes per value: 8 for float64, else an unsigned integer; 0: varint deltas (version 3) */
  width: 0 | 1 | 2 | 4 | 8;
  scale: number;
  base: number;
}

/** ColumnEncoding.width of a column stored as varint deltas of its steps */
const VARINT = 0;
/** the u32 byte length in front of a varint section's values */
const VARINT_LENGTH_BYTES = 4;

/** The zigzag of a whole number: 0, −1, 1, −2, … as 0, 1, 2, 3, …, in floating point (past 2^31). */
const zigzag = (delta: number): number => (delta >= 0 ? 2 * delta : -2 * delta - 1);
const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

/** How many bytes the LEB128 varint of `z` (a whole number ≥ 0) takes. */
function varintBytes(z: number): number {
  let bytes = 1;
  while (z >= 128) {
    z = Math.floor(z / 128);
    bytes++;
  }
  return bytes;
}

/** The bytes a column of steps `u` (present values only, NaN skipped) takes as varint deltas. */
function varintSize(column: Float64Array, base: number): number {
  let size = 0;
  let previous = 0;
  for (let i = 0; i < column.length; i++) {
    const value = column[i]!;
    if (value !== value) continue;
    const u = value - base;
    size += varintBytes(zigzag(u - previous));
    previous = u;
  }
  return size;
}

/** The bytes of a section's values: fixed width, or a varint section's length, varints and padding. */
const valuesBytes = (n: number, encoding: ColumnEncoding, varints: number): number =>
  encoding.width === VARINT ? padded(VARINT_LENGTH_BYTES + varints) : padded(n * encoding.width);

const FLOAT64: ColumnEncoding = { width: 8, scale: 0, base: 0 };

const decoded = (n: number, { scale, base }: ColumnEncoding): number =>
  scale === SEMICIRCLES
    ? (base + n) * DEGREES_PER_SEMICIRCLE
    : scale === 0
      ? base + n
      : (base + n) / POWERS_OF_TEN[scale]!;

/**
 * The whole number of steps at `scale` that reads back as exactly `value`, or NaN when there is none.
 * -0 has none (base + offset would read back as +0).
 */
function stepOf(value: number, scale: number): number {
  if (value === 0 && 1 / value < 0) return NaN;
  if (scale === 0) return Number.isSafeInteger(value) ? value : NaN;
  const semicircles = scale === SEMICIRCLES;
  const n = semicircles
    ? Math.round(value / DEGREES_PER_SEMICIRCLE)
    : Math.round(value * POWERS_OF_TEN[scale]!);
  const back = semicircles ? n * DEGREES_PER_SEMICIRCLE : n / POWERS_OF_TEN[scale]!;
  return back === value && Math.abs(n) <= Number.MAX_SAFE_INTEGER ? n : NaN;
}

/** The smallest and largest steps of a column. */
interface StepRange {
  min: number;
  max: number;
}

/**
 * Puts the steps at `scale` of the column's values into `scratch` (NaN where the column has none) and
 * their range into `range`; -1 when every value is a whole number of steps (`stepOf`), else the index
 * of the first value that is not.
 */
function stepColumn(column: Float64Array, scale: number, scratch: Float64Array, range: StepRange): number {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < column.length; i++) {
    const value = column[i]!;
    if (value !== value) {
      scratch[i] = NaN;
      continue;
    }
    const n = stepOf(value, scale);
    if (n !== n) return i;
    scratch[i] = n;
    if (n < min) min = n;
    if (n > max) max = n;
  }
  range.min = min;
  range.max = max;
  return -1;
}

/**
 * The narrowest exact form for the present (non-NaN) values of a column: the fewest decimal places,
 * or semicircles, that every value is a whole number of, with the smallest as base and the others
 * as unsigned offsets from it ((base + offset) is the value's whole number of steps, so it reads back
 * as the value itself). When the column is stored as integers, its values are replaced by their
 * steps (`scratch`: room for one column). The column has at least one value.
 */
function encodeColumn(column: Float64Array, scratch: Float64Array): ColumnEncoding {
  let first = 0;
  while (Number.isNaN(column[first]!)) first++;
  let scale = scaleOf(column[first]!, 0);
  const range: StepRange = { min: 0, max: 0 };
  while (scale >= 0) {
    const failed = stepColumn(column, scale, scratch, range);
    if (failed < 0) break;
    // A value that needs more decimal places than those before it (which then have them too).
    // Scales only grow, so this ends.
    scale = scaleOf(column[failed]!, scale);
  }
  if (scale < 0) return FLOAT64;
  const spread = range.max - range.min;
  const width = spread <= 0xff ? 1 : spread <= 0xffff ? 2 : spread <= 0xffffffff ? 4 : 8;
  if (width === 8) return FLOAT64;
  column.set(scratch);
  return { width, scale, base: range.min };
}

/**
 * A column's encoding (encodeColumn) and its varints' bytes: varint deltas (version 3) where they
 * take fewer bytes than its fixed width, else that width (0 varint bytes).
 */
function encodeColumnCompactly(
  column: Float64Array,
  present: number,
  scratch: Float64Array,
): { encoding: ColumnEncoding; varints: number } {
  const encoding = encodeColumn(column, scratch);
  if (encoding.width === 8) return { encoding, varints: 0 };
  const varints = varintSize(column, encoding.base);
  return VARINT_LENGTH_BYTES + varints < present * encoding.width
    ? { encoding: { ...encoding, width: VARINT }, varints }
    : { encoding, varints: 0 };
}

/** The least decimal places from `from` at which `value` is whole, else semicircles, else -1. */
function scaleOf(value: number, from: number): number {
  if (from !== SEMICIRCLES) {
    for (let scale = from; scale <= MAX_DECIMALS; scale++) {
      if (!Number.isNaN(stepOf(value, scale))) return scale;
    }
  }
  return Number.isNaN(stepOf(value, SEMICIRCLES)) ? -1 : SEMICIRCLES;
}

export function packTrackPoints(points: readonly TrackPoint[]): Uint8Array<ArrayBuffer> {
  const { columns, present } = readColumns(points);
  return packColumns(points.length, (k) => ({ column: columns[k]!, present: present[k]! }));
}

/**
 * The same packed form from a track's columns as `parseRideFileColumns` reads them (issue 21: the
 * upload queue packs what the parser hands over, without making point objects first). One channel is
 * copied and packed at a time, into one reused array: a parse thread holds one channel's copy beside
 * the track, not every channel's (issue 36: 45 MB less of its peak at 2,000,000 points).
 */
export function packTrackColumns(track: TrackColumns): Uint8Array<ArrayBuffer> {
  const count = track.length;
  let column: Float64Array | null = null;
  return packColumns(count, (k) => {
    const source = track[TRACK_POINT_KEYS[k]!];
    // Nothing for a channel the track lacks (of ten, a ride from a phone has four): packing skips it.
    if (source === undefined) return null;
    // A copy in any case: packing replaces a column's values by their steps (encodeColumn).
    column ??= new Float64Array(count);
    let present = 0;
    for (let i = 0; i < count; i++) {
      const value = source[i]!;
      if (Number.isFinite(value)) {
        column[i] = value;
        present++;
      } else {
        column[i] = NaN;
      }
    }
    return { column, present };
  });
}

/** One channel for packColumns: NaN where a point has no value, `present` values in all. */
interface ChannelToPack {
  column: Float64Array;
  present: number;
}

/**
 * Packs the channels `channel(k)` gives, in key order (null or no values: the track lacks it). Each
 * is packed into a section of its own before the next is asked for, and its column's values replaced
 * (so a caller may hand the same array again); the sections are then put together.
 */
function packColumns(count: number, channel: (k: number) => ChannelToPack | null): Uint8Array<ArrayBuffer> {
  const scratch = new Float64Array(count);
  const sections: Uint8Array[] = [];
  let size = HEADER_BYTES;
  let mask = 0;
  for (let k = 0; k < TRACK_POINT_KEYS.length; k++) {
    const given = channel(k);
    if (given === null || given.present === 0) continue;
    const section = packSection(count, given, scratch);
    sections.push(section);
    size += section.byteLength;
    mask |= 1 << k;
  }
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, VERSION);
  view.setUint16(2, mask, true);
  view.setUint32(4, count, true);
  let offset = HEADER_BYTES;
  for (const section of sections) {
    // Every section's length is a multiple of 8, so each starts at one, as its typed values need.
    bytes.set(section, offset);
    offset += section.byteLength;
  }
  return bytes;
}

/** One channel's section: its header, the bitmap of the points that have it (unless all do), its values. */
function packSection(
  count: number,
  { column, present: n }: ChannelToPack,
  scratch: Float64Array,
): Uint8Array {
  const bitmapBytes = n < count ? padded(Math.ceil(count / 8)) : 0;
  const { encoding, varints } = encodeColumnCompactly(column, n, scratch);
  const buffer = new ArrayBuffer(SECTION_HEADER_BYTES + bitmapBytes + valuesBytes(n, encoding, varints));
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  view.setUint32(0, n, true);
  view.setUint8(4, encoding.width);
  view.setUint8(5, encoding.scale);
  view.setFloat64(8, encoding.base, true);
  let offset = SECTION_HEADER_BYTES;
  if (bitmapBytes > 0) {
    for (let i = 0; i < count; i++) {
      if (!Number.isNaN(column[i]!)) bytes[offset + (i >> 3)]! |= 1 << (i & 7);
    }
    offset += bitmapBytes;
  }
  if (encoding.width === VARINT) {
    view.setUint32(offset, varints, true);
    writeVarintDeltas(bytes, offset + VARINT_LENGTH_BYTES, column, encoding.base);
  } else {
    // The values start at a multiple of 8 in a buffer of our own: they go in through a typed view.
    const values = typedValues(buffer, offset, n, encoding.width);
    let j = 0;
    for (let i = 0; i < count; i++) {
      const value = column[i]!;
      if (Number.isNaN(value)) continue;
      values[j++] = encoding.width === 8 ? value : value - encoding.base;
    }
  }
  return bytes;
}

/** Writes the varint deltas of the column's steps (present values only) from `at`. */
function writeVarintDeltas(bytes: Uint8Array, at: number, column: Float64Array, base: number): void {
  let previous = 0;
  for (let i = 0; i < column.length; i++) {
    const value = column[i]!;
    if (value !== value) continue;
    const u = value - base;
    let z = zigzag(u - previous);
    previous = u;
    while (z >= 128) {
      bytes[at++] = (z % 128) | 128;
      z = Math.floor(z / 128);
    }
    bytes[at++] = z;
  }
}

function typedValues(
  buffer: ArrayBuffer,
  offset: number,
  length: number,
  width: 1 | 2 | 4 | 8,
): Float64Array | Uint32Array | Uint16Array | Uint8Array {
  if (width === 8) return new Float64Array(buffer, offset, length);
  if (width === 4) return new Uint32Array(buffer, offset, length);
  if (width === 2) return new Uint16Array(buffer, offset, length);
  return new Uint8Array(buffer, offset, length);
}

/**
 * The points as one column per key (NaN where a point has no finite value) and how many points have
 * each, in one pass that reads every point's keys by name: reading them by a variable key, key after
 * key, took longer than parsing the file the points came from (bench/upload).
 */
function readColumns(points: readonly TrackPoint[]): { columns: Float64Array[]; present: Uint32Array } {
  const count = points.length;
  const columns = TRACK_POINT_KEYS.map(() => new Float64Array(count));
  const present = new Uint32Array(TRACK_POINT_KEYS.length);
  const [x, y, e, t, c, h, p, s, d, T] = columns as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  const put = (column: Float64Array, k: number, i: number, value: number | undefined): void => {
    if (value !== undefined && Number.isFinite(value)) {
      column[i] = value;
      present[k]!++;
    } else {
      column[i] = NaN;
    }
  };
  for (let i = 0; i < count; i++) {
    const point = points[i]!;
    put(x, 0, i, point.x);
    put(y, 1, i, point.y);
    put(e, 2, i, point.e);
    put(t, 3, i, point.t);
    put(c, 4, i, point.c);
    put(h, 5, i, point.h);
    put(p, 6, i, point.p);
    put(s, 7, i, point.s);
    put(d, 8, i, point.d);
    put(T, 9, i, point.T);
  }
  return { columns, present };
}

/**
 * The points of a packed form (version 2, or 1 as older servers wrote), each with its keys in
 * TRACK_POINT_KEYS order. Throws on bytes that are not a packed form (a damaged database), rather
 * than inventing points.
 */
export function unpackTrackPoints(packed: Uint8Array): TrackPoint[] {
  const reader = new PackedPointsReader(packed);
  return reader.next(reader.count);
}

/** One key's values in a packed form, and how far a reader has come through them. */
interface PackedSection {
  key: (typeof TRACK_POINT_KEYS)[number];
  encoding: ColumnEncoding;
  /** where the bitmap of the points that have the key starts; -1 when every point has it */
  bitmap: number;
  /** where the values start (a varint section's first varint) */
  values: number;
  /** the next value's index; in a varint section, the next varint's byte */
  next: number;
  /** in a varint section, the last value's steps from the base */
  last: number;
}

const damaged = (): Error => new Error('the stored points are damaged (not a packed form of version 1 or 2)');

/**
 * A packed form's points a range at a time, from the first (issue 36: a track of days is sent as its
 * JSON is rendered, a slice at a time, never as two million objects at once). The whole form is
 * checked when the reader is made, bitmaps counted included, so reading never fails half way.
 */
export class PackedPointsReader {
  readonly count: number;
  readonly #packed: Uint8Array;
  readonly #view: DataView;
  readonly #sections: PackedSection[] = [];
  #next = 0;

  constructor(packed: Uint8Array) {
    const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    const version = packed.byteLength < HEADER_BYTES ? 0 : view.getUint8(0);
    if (version !== 1 && version !== 2 && version !== VERSION) throw damaged();
    const mask = view.getUint16(2, true);
    const count = view.getUint32(4, true);
    const bitmapBytes = padded(Math.ceil(count / 8));
    let offset = HEADER_BYTES;
    TRACK_POINT_KEYS.forEach((key, k) => {
      if ((mask & (1 << k)) === 0) return;
      const sectionHeader = version === 1 ? 8 : SECTION_HEADER_BYTES;
      if (offset + sectionHeader > packed.byteLength) throw damaged();
      const n = view.getUint32(offset, true);
      const encoding = version === 1 ? FLOAT64 : sectionEncoding(view, offset, version);
      if (encoding === null) throw damaged();
      offset += sectionHeader;
      const bitmap = n < count ? offset : -1;
      if (bitmap >= 0) {
        if (offset + bitmapBytes > packed.byteLength || bitsSet(packed, bitmap, count) !== n) throw damaged();
        offset += bitmapBytes;
      }
      const { width } = encoding;
      if (n > count) throw damaged();
      if (width === VARINT) {
        if (offset + VARINT_LENGTH_BYTES > packed.byteLength) throw damaged();
        const varints = view.getUint32(offset, true);
        const start = offset + VARINT_LENGTH_BYTES;
        if (start + varints > packed.byteLength || varintsEnded(packed, start, start + varints) !== n) {
          throw damaged();
        }
        this.#sections.push({ key, encoding, bitmap, values: start, next: start, last: 0 });
        offset += padded(VARINT_LENGTH_BYTES + varints);
      } else {
        if (offset + n * width > packed.byteLength) throw damaged();
        this.#sections.push({ key, encoding, bitmap, values: offset, next: 0, last: 0 });
        offset += version === 1 ? n * 8 : padded(n * width);
      }
    });
    if (offset !== packed.byteLength) throw damaged();
    this.count = count;
    this.#packed = packed;
    this.#view = view;
  }

  /** Whether every point has been read. */
  get done(): boolean {
    return this.#next === this.count;
  }

  /** The next `wanted` points (fewer at the end; none once done). */
  next(wanted: number): TrackPoint[] {
    const start = this.#next;
    const end = Math.min(this.count, start + wanted);
    const points = Array.from({ length: end - start }, (): TrackPoint => ({}));
    const values = new Float64Array(end - start);
    // Section by section, as the values lie: each point's keys still come in TRACK_POINT_KEYS order.
    for (const section of this.#sections) {
      this.#decode(section, start, end, values);
      const { key } = section;
      for (let i = 0; i < values.length; i++) {
        const value = values[i]!;
        // A stored value is finite: NaN is a point without one.
        if (value === value) points[i]![key] = value;
      }
    }
    this.#next = end;
    return points;
  }

  /**
   * Every point's value of each of `keys`, NaN where a point has none, as columns (issue 36: the
   * same-recording check compares two rides of days without making their points): from a reader that
   * has read nothing yet, which is done after. The keys no point has share one column of NaN, to be
   * read only.
   */
  columns<Key extends (typeof TRACK_POINT_KEYS)[number]>(keys: readonly Key[]): Record<Key, Float64Array> {
    if (this.#next !== 0) throw new Error('PackedPointsReader.columns reads from the first point only');
    let none: Float64Array | null = null;
    const columns = {} as Record<Key, Float64Array>;
    for (const key of keys) {
      const section = this.#sections.find((candidate) => candidate.key === key);
      if (section === undefined) {
        columns[key] = none ??= new Float64Array(this.count).fill(NaN);
        continue;
      }
      const column = new Float64Array(this.count);
      this.#decode(section, 0, this.count, column);
      columns[key] = column;
    }
    this.#next = this.count;
    return columns;
  }

  /** A section's values for points [start, end) into `into` (from 0), NaN for a point without one. */
  #decode(section: PackedSection, start: number, end: number, into: Float64Array): void {
    const packed = this.#packed;
    const view = this.#view;
    const { encoding, bitmap, values } = section;
    const { width } = encoding;
    into.fill(NaN, 0, end - start);
    if (width === VARINT) {
      readVarintDeltas(section, packed, into, start, end);
      return;
    }
    let j = section.next;
    for (let i = start; i < end; i++) {
      if (bitmap >= 0 && (packed[bitmap + (i >> 3)]! & (1 << (i & 7))) === 0) continue;
      const at = values + width * j++;
      into[i - start] =
        width === 8
          ? view.getFloat64(at, true)
          : decoded(
              width === 4 ? view.getUint32(at, true) : width === 2 ? view.getUint16(at, true) : packed[at]!,
              encoding,
            );
    }
    section.next = j;
  }
}

/** The values of a varint section for points [start, end) into `into` (from 0), and on. */
function readVarintDeltas(
  section: PackedSection,
  packed: Uint8Array,
  into: Float64Array,
  start: number,
  end: number,
): void {
  const { encoding, bitmap } = section;
  let at = section.next;
  let u = section.last;
  for (let i = start; i < end; i++) {
    if (bitmap >= 0 && (packed[bitmap + (i >> 3)]! & (1 << (i & 7))) === 0) continue;
    let z = 0;
    let unit = 1;
    let byte: number;
    do {
      byte = packed[at++]!;
      z += (byte & 127) * unit;
      unit *= 128;
    } while (byte >= 128);
    u += unzigzag(z);
    into[i - start] = decoded(u, encoding);
  }
  section.next = at;
  section.last = u;
}

/** How many varints end in bytes [start, end), which must end with one: else -1. */
function varintsEnded(bytes: Uint8Array, start: number, end: number): number {
  if (end > start && bytes[end - 1]! >= 128) return -1;
  let ended = 0;
  for (let i = start; i < end; i++) if (bytes[i]! < 128) ended++;
  return ended;
}

/** How many of the first `count` bits of the bitmap at `offset` are set. */
function bitsSet(bytes: Uint8Array, offset: number, count: number): number {
  let set = 0;
  for (let i = 0; i < count; i++) if ((bytes[offset + (i >> 3)]! & (1 << (i & 7))) !== 0) set++;
  return set;
}

/** A version 2 or 3 section's encoding, or null when its header is not one that version writes. */
function sectionEncoding(view: DataView, offset: number, version: number): ColumnEncoding | null {
  const width = view.getUint8(offset + 4);
  const scale = view.getUint8(offset + 5);
  const base = view.getFloat64(offset + 8, true);
  const varint = width === VARINT && version >= 3;
  if (!varint && width !== 1 && width !== 2 && width !== 4 && width !== 8) return null;
  if ((scale > MAX_DECIMALS && scale !== SEMICIRCLES) || !Number.isSafeInteger(base)) return null;
  return { width, scale, base };
}

/**
 * `[{"x":7.1,"y":46.2,"e":510,"t":1717232400},…]` from the packed form: each point's keys in the
 * order x y e t c h p s d T. JSON.stringify writes a finite number as String(number) does.
 */
export function packedPointsJson(packed: Uint8Array): string {
  return JSON.stringify(unpackTrackPoints(packed));
}

/** How many points a packed form holds, read from its header (0 for bytes too short to have one). */
export function packedPointCount(packed: Uint8Array): number {
  if (packed.byteLength < HEADER_BYTES) return 0;
  return new DataView(packed.buffer, packed.byteOffset, packed.byteLength).getUint32(4, true);
}

/** Points per slice of packedPointsJsonSlices: a few milliseconds of rendering, about 600 KB of text. */
export const JSON_SLICE_POINTS = 8192;

/**
 * packedPointsJson a slice at a time, the same text once joined: `[`, then the points in slices of
 * `slicePoints`, then `]`. Only one slice's points and text exist at a time (issue 36). The form is
 * checked before the first slice is given (PackedPointsReader).
 */
export function packedPointsJsonSlices(
  packed: Uint8Array,
  slicePoints = JSON_SLICE_POINTS,
): Generator<string, void, undefined> {
  return jsonSlices(new PackedPointsReader(packed), slicePoints);
}

function* jsonSlices(reader: PackedPointsReader, slicePoints: number): Generator<string, void, undefined> {
  yield '[';
  let separator = '';
  while (!reader.done) {
    const text = JSON.stringify(reader.next(slicePoints));
    yield separator + text.slice(1, -1);
    separator = ',';
  }
  yield ']';
}

/** `lastPointTime` of a track's columns (`parseRideFileColumns`). */
export function lastColumnTime(track: TrackColumns): number | null {
  const { t } = track;
  if (t === undefined) return null;
  for (let i = track.length - 1; i >= 0; i--) if (!Number.isNaN(t[i]!)) return t[i]!;
  return null;
}

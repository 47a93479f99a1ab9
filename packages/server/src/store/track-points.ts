/**
 * The stored forms of a route's or trip's points (issue 4; migration 004):
 * - packed: binary columns, written when the asset is created (cheap to make, in the upload queue's
 *   worker threads as anywhere, and to move between threads: one ArrayBuffer);
 * - JSON: the array text of legacy track points (platform-api.md, "Track point"), keys in the
 *   specification's order, rendered from the packed form the first time the points are read and kept,
 *   so that single-record responses splice it in as it is, without parsing or re-serialising
 *   thousands of points per request.
 *
 * Packed layout (little-endian), version 1:
 *   u8 version, u8 0, u16 mask of the TRACK_POINT_KEYS that any point has, u32 point count N;
 *   then for each key in the mask, in TRACK_POINT_KEYS order: u32 count P of points that have it,
 *   when P < N a bitmap of N bits (bit i: point i has it), zero bytes up to a multiple of 8, and the
 *   P values as float64.
 * A value that is not a finite number is not stored (JSON has no NaN; every key is optional).
 */
import { TRACK_POINT_KEYS, type TrackPoint } from '@rideport/ridefile';

const VERSION = 1;
const HEADER_BYTES = 8;

const padded = (bytes: number): number => Math.ceil(bytes / 8) * 8;

export function packTrackPoints(points: readonly TrackPoint[]): Uint8Array<ArrayBuffer> {
  const count = points.length;
  const { columns, present } = readColumns(points);
  const bitmapBytes = padded(Math.ceil(count / 8));
  let size = HEADER_BYTES;
  let mask = 0;
  present.forEach((n, k) => {
    if (n === 0) return;
    mask |= 1 << k;
    size += 8 + (n < count ? bitmapBytes : 0) + n * 8;
  });
  const buffer = new ArrayBuffer(size);
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  view.setUint8(0, VERSION);
  view.setUint16(2, mask, true);
  view.setUint32(4, count, true);
  let offset = HEADER_BYTES;
  columns.forEach((column, k) => {
    const n = present[k]!;
    if (n === 0) return;
    view.setUint32(offset, n, true);
    offset += 8;
    // Each section starts at a multiple of 8 in a buffer of our own: values go in through a typed view.
    const values = new Float64Array(buffer, offset + (n < count ? bitmapBytes : 0), n);
    if (n === count) {
      values.set(column);
    } else {
      let j = 0;
      for (let i = 0; i < count; i++) {
        const value = column[i]!;
        if (Number.isNaN(value)) continue;
        bytes[offset + (i >> 3)]! |= 1 << (i & 7);
        values[j++] = value;
      }
      offset += bitmapBytes;
    }
    offset += n * 8;
  });
  return bytes;
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
 * The points of a packed form, each with its keys in TRACK_POINT_KEYS order. Throws on bytes that are
 * not a packed form this version wrote (a damaged database), rather than inventing points.
 */
export function unpackTrackPoints(packed: Uint8Array): TrackPoint[] {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const damaged = (): Error => new Error('the stored points are damaged (not a packed form of version 1)');
  if (packed.byteLength < HEADER_BYTES || view.getUint8(0) !== VERSION) throw damaged();
  const mask = view.getUint16(2, true);
  const count = view.getUint32(4, true);
  const bitmapBytes = padded(Math.ceil(count / 8));
  const points = Array.from({ length: count }, (): TrackPoint => ({}));
  let offset = HEADER_BYTES;
  TRACK_POINT_KEYS.forEach((key, k) => {
    if ((mask & (1 << k)) === 0) return;
    if (offset + 8 > packed.byteLength) throw damaged();
    const n = view.getUint32(offset, true);
    offset += 8;
    const bitmap = n < count ? offset : -1;
    if (bitmap >= 0) offset += bitmapBytes;
    if (n > count || offset + n * 8 > packed.byteLength) throw damaged();
    let j = 0;
    for (let i = 0; i < count; i++) {
      if (bitmap >= 0 && (packed[bitmap + (i >> 3)]! & (1 << (i & 7))) === 0) continue;
      if (j === n) throw damaged();
      points[i]![key] = view.getFloat64(offset + 8 * j++, true);
    }
    if (j !== n) throw damaged();
    offset += n * 8;
  });
  if (offset !== packed.byteLength) throw damaged();
  return points;
}

/**
 * `[{"x":7.1,"y":46.2,"e":510,"t":1717232400},…]` from the packed form: each point's keys in the
 * order x y e t c h p s d T. JSON.stringify writes a finite number as String(number) does.
 */
export function packedPointsJson(packed: Uint8Array): string {
  return JSON.stringify(unpackTrackPoints(packed));
}

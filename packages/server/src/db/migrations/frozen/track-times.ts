/**
 * Frozen with migration 008 (issue 35): the times of a trip's stored points, read as the store read its
 * packed and JSON forms when 008 shipped (store/track-points.ts, store/track-columns.ts). It belongs to
 * the migrations and never changes; the store's own reader may go its way.
 *
 * Packed layout (little-endian), version 2: u8 version, u8 0, u16 mask of the keys x y e t c h p s d T
 * that any point has, u32 point count N; then for each key in the mask, in that order: u32 count P of
 * points that have it, u8 value width W (1, 2, 4 or 8 bytes), u8 scale, u16 0, float64 base; when P < N
 * a bitmap of N bits (bit i: point i has it) padded to a multiple of 8 bytes; then the P values, padded
 * so too. W = 8: float64 values. Otherwise unsigned integers n of W bytes, each value being
 * (base + n) / 10^scale, or (base + n) × 180 / 2^31 for scale 255. Version 1: an 8-byte section header
 * (u32 P), float64 values only, unpadded.
 */

/** The key whose values are times (Unix seconds): the fourth of x y e t c h p s d T. */
const TIME_KEY = 3;
const KEY_COUNT = 10;
const HEADER_BYTES = 8;
const SEMICIRCLES = 255;
const DEGREES_PER_SEMICIRCLE = 180 / 2 ** 31;
const MAX_DECIMALS = 9;

const padded = (bytes: number): number => Math.ceil(bytes / 8) * 8;

/** The first and last time of a trip's points, Unix seconds, or null when no point has one. */
export interface TimeRange {
  first: number;
  last: number;
}

/** The first and last time of the points, in their order, that have one; `last` is never before `first`. */
function rangeOf(points: Iterable<{ t?: number }>): TimeRange | null {
  let first: number | undefined;
  let last: number | undefined;
  for (const point of points) {
    if (point.t === undefined) continue;
    first ??= point.t;
    last = point.t;
  }
  return first === undefined || last === undefined ? null : { first, last: Math.max(first, last) };
}

/** The time range of points stored as JSON, `[{"x":…,"t":…},…]`. */
export function jsonTimeRange(json: string): TimeRange | null {
  return rangeOf(JSON.parse(json) as { t?: number }[]);
}

/**
 * The time range of points stored packed (version 2, or 1). Throws on bytes that are not a packed form
 * (a damaged database), rather than inventing a range.
 */
export function packedTimeRange(packed: Uint8Array): TimeRange | null {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const damaged = (): Error =>
    new Error('the stored points are damaged (not a packed form of version 1 or 2)');
  const version = packed.byteLength < HEADER_BYTES ? 0 : view.getUint8(0);
  if (version !== 1 && version !== 2) throw damaged();
  const mask = view.getUint16(2, true);
  const count = view.getUint32(4, true);
  const bitmapBytes = padded(Math.ceil(count / 8));
  const times: { t: number }[] = [];
  let offset = HEADER_BYTES;
  for (let key = 0; key < KEY_COUNT; key++) {
    if ((mask & (1 << key)) === 0) continue;
    const sectionHeader = version === 1 ? 8 : 16;
    if (offset + sectionHeader > packed.byteLength) throw damaged();
    const n = view.getUint32(offset, true);
    const width = version === 1 ? 8 : view.getUint8(offset + 4);
    const scale = version === 1 ? 0 : view.getUint8(offset + 5);
    const base = version === 1 ? 0 : view.getFloat64(offset + 8, true);
    if (width !== 1 && width !== 2 && width !== 4 && width !== 8) throw damaged();
    if ((scale > MAX_DECIMALS && scale !== SEMICIRCLES) || !Number.isSafeInteger(base)) throw damaged();
    offset += sectionHeader;
    const bitmap = n < count ? offset : -1;
    if (bitmap >= 0) offset += bitmapBytes;
    if (n > count || offset + n * width > packed.byteLength) throw damaged();
    let j = 0;
    for (let i = 0; i < count; i++) {
      if (bitmap >= 0 && (packed[bitmap + (i >> 3)]! & (1 << (i & 7))) === 0) continue;
      if (j === n) throw damaged();
      const at = offset + width * j++;
      if (key !== TIME_KEY) continue;
      if (width === 8) {
        times.push({ t: view.getFloat64(at, true) });
        continue;
      }
      const step =
        width === 4 ? view.getUint32(at, true) : width === 2 ? view.getUint16(at, true) : packed[at]!;
      times.push({
        t:
          scale === SEMICIRCLES
            ? (base + step) * DEGREES_PER_SEMICIRCLE
            : scale === 0
              ? base + step
              : (base + step) / 10 ** scale,
      });
    }
    if (j !== n) throw damaged();
    offset += version === 1 ? n * 8 : padded(n * width);
  }
  if (offset !== packed.byteLength) throw damaged();
  return rangeOf(times);
}

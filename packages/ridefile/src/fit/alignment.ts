import { FIT_MIN_ABSOLUTE_TIME, fieldNum, messageNum } from './profile.js';

/**
 * Realigning a FIT stream that lost its alignment (a writer dropped or added a byte): the decoder looks
 * for the next offset from which several messages in a row read consistently.
 */

const RECORD_NUM = messageNum('record');
/** Field 253, the timestamp every message may carry (FIT profile, common fields). */
const TIMESTAMP_FIELD_NUM = fieldNum('record', 'timestamp');

/** How far past a misalignment the decoder looks for a place to resume. */
const RESYNC_WINDOW_BYTES = 16 * 1024;
/** Messages that must read consistently in a row before an offset is trusted. */
const RESYNC_CHAIN = 6;
/** A timestamp further than this from the last one does not belong to the same recording. */
const MAX_TIME_JUMP_SECONDS = 7 * 24 * 3600;

/** What realignment needs to know of a local message definition. */
export interface AlignmentDefinition {
  size: number;
  /** offset of a uint32 timestamp field in the payload, or -1 */
  timestampOffset: number;
  littleEndian: boolean;
  /** whether it defines a record message (only record times tell misalignment) */
  isRecord: boolean;
}

/**
 * The first offset in [from, from + RESYNC_WINDOW_BYTES) from which RESYNC_CHAIN messages read
 * consistently: headers name defined local messages (definitions inside the chain count), definitions
 * are well formed (reserved bits clear, architecture 0 or 1, known base types), everything fits before
 * `end`, and record timestamps stay near the last good one. -1 when there is none.
 */
export function findAlignment(
  bytes: Uint8Array,
  view: DataView,
  { from, end, allowCompressed }: { from: number; end: number; allowCompressed: boolean },
  definitions: ReadonlyArray<AlignmentDefinition | undefined>,
  lastTimestamp: number,
): number {
  const limit = Math.min(end, from + RESYNC_WINDOW_BYTES);
  const sizes = new Int32Array(16);
  const recordTimestampOffsets = new Int32Array(16);
  const littleEndians = new Uint8Array(16);
  for (let candidate = from; candidate < limit; candidate++) {
    for (let local = 0; local < 16; local++) {
      const definition = definitions[local];
      sizes[local] = definition === undefined ? -1 : definition.size;
      recordTimestampOffsets[local] = definition?.isRecord === true ? definition.timestampOffset : -1;
      littleEndians[local] = definition?.littleEndian === false ? 0 : 1;
    }
    const layout = { sizes, recordTimestampOffsets, littleEndians, allowCompressed };
    if (readsConsistently(bytes, view, candidate, end, layout, lastTimestamp)) {
      return candidate;
    }
  }
  return -1;
}

interface LocalLayout {
  sizes: Int32Array;
  recordTimestampOffsets: Int32Array;
  littleEndians: Uint8Array;
  allowCompressed: boolean;
}

function readsConsistently(
  bytes: Uint8Array,
  view: DataView,
  start: number,
  end: number,
  { sizes, recordTimestampOffsets, littleEndians, allowCompressed }: LocalLayout,
  lastTimestamp: number,
): boolean {
  let position = start;
  let timestamp = lastTimestamp;
  for (let count = 0; count < RESYNC_CHAIN; count++) {
    if (position === end) return count > 0;
    const header = bytes[position]!;
    if ((header & 0x80) !== 0) {
      const size = sizes[(header >> 5) & 0x03]!;
      if (!allowCompressed || size < 0 || position + 1 + size > end) return false;
      position += 1 + size;
    } else if ((header & 0x40) !== 0) {
      if ((header & 0x10) !== 0 || position + 6 > end) return false;
      if (bytes[position + 1] !== 0 || bytes[position + 2]! > 1) return false;
      const fieldCount = bytes[position + 5]!;
      let length = 6 + fieldCount * 3;
      if (position + length > end) return false;
      let size = 0;
      let timestampOffset = -1;
      const isRecord = view.getUint16(position + 3, bytes[position + 2] === 0) === RECORD_NUM;
      for (let i = 0; i < fieldCount; i++) {
        const at = position + 6 + i * 3;
        const fieldSize = bytes[at + 1]!;
        const baseType = bytes[at + 2]!;
        if (fieldSize === 0 || (baseType & 0x1f) > 0x10 || (baseType & 0x60) !== 0) return false;
        if (bytes[at] === TIMESTAMP_FIELD_NUM && fieldSize === 4) timestampOffset = size;
        size += fieldSize;
      }
      if ((header & 0x20) !== 0) {
        if (position + length + 1 > end) return false;
        const developerCount = bytes[position + length]!;
        for (let i = 0; i < developerCount; i++) size += bytes[position + length + 2 + i * 3] ?? 0;
        length += 1 + developerCount * 3;
        if (position + length > end) return false;
      }
      const local = header & 0x0f;
      sizes[local] = size;
      recordTimestampOffsets[local] = isRecord ? timestampOffset : -1;
      littleEndians[local] = bytes[position + 2] === 0 ? 1 : 0;
      position += length;
    } else {
      if ((header & 0x30) !== 0) return false;
      const local = header & 0x0f;
      const size = sizes[local]!;
      if (size < 0 || position + 1 + size > end) return false;
      const offset = recordTimestampOffsets[local]!;
      if (offset >= 0) {
        const value = view.getUint32(position + 1 + offset, littleEndians[local] === 1);
        if (value !== 0xffffffff) {
          if (!plausibleNextTimestamp(timestamp, value)) return false;
          timestamp = value;
        }
      }
      position += 1 + size;
    }
  }
  return true;
}

/**
 * Whether `next` can follow `last` in one recording: within MAX_TIME_JUMP_SECONDS, or a device clock
 * being set (a device-relative time followed by an absolute one). A jump anywhere else is what
 * misaligned bytes look like when read as a timestamp.
 */
export function plausibleNextTimestamp(last: number, next: number): boolean {
  if (Number.isNaN(last)) return true;
  if (last < FIT_MIN_ABSOLUTE_TIME && next >= FIT_MIN_ABSOLUTE_TIME) return true;
  return Math.abs(next - last) <= MAX_TIME_JUMP_SECONDS;
}

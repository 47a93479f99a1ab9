import { FIT_MIN_ABSOLUTE_TIME } from './profile.js';

/**
 * Realigning a FIT stream that lost its alignment (a writer dropped or added a byte): the decoder looks
 * for the next offset from which several messages in a row read consistently. The bytes decide: headers,
 * definitions, sizes, and how much a message resembles the one read before under the same local
 * number. A time a message carries never does (issue 16: a clock set 27 days forward mid-ride, or a few
 * records years off, are sound data); in a file already known to be damaged, a time that jumps only
 * makes the decoder look at the bytes again (decoder.ts).
 */

/** How far past a misalignment the decoder looks for a place to resume. */
const RESYNC_WINDOW_BYTES = 16 * 1024;
/** Messages that must read consistently in a row before an offset is trusted. */
const RESYNC_CHAIN = 6;
/**
 * A place to resume whose first message shares at least this share of its bytes with one of the two
 * messages read last under its local number continues what came before: the high bytes of times,
 * positions and distances change slowly. A parse shifted by a byte or two shares almost none (a tenth in
 * the damaged Strava Android file, where the true parse shares two thirds). Two, because the last one
 * may be the garbled message itself.
 */
const ALIKE = 0.5;
/** Of the places to resume that continue what came before, the first this nearly as alike as the most. */
const NEARLY = 0.8;
/** A timestamp further than this from the record before it is worth a second look in a damaged file. */
const MAX_TIME_STEP_SECONDS = 7 * 24 * 3600;

/** What realignment needs to know of a local message definition. */
export interface AlignmentDefinition {
  size: number;
}

export interface StreamEnd {
  end: number;
  /** whether the data may end anywhere (a file cut off): reaching its end then shows nothing */
  endMayCut: boolean;
  /** whether compressed-timestamp headers may be read */
  allowCompressed: boolean;
}

/**
 * Where to resume reading after a misalignment found at or after `from`: among the offsets from which
 * RESYNC_CHAIN messages read consistently (see readsConsistently), the first within one message length
 * of the first found. When one of them clearly continues what was read before the break (its first
 * message alike to one of the last two read under its local number, see ALIKE), the first that is
 * nearly as alike as the most alike is taken, so a parse shifted by a byte is passed over for the true
 * one. -1 when no offset in the window reads consistently.
 *
 * `recentPayloads`: the payload offsets of the two messages read last under each local number (index
 * local: the last, 16 + local: the one before; -1: none).
 */
export function findAlignment(
  bytes: Uint8Array,
  { from, ...stream }: { from: number } & StreamEnd,
  definitions: ReadonlyArray<AlignmentDefinition | undefined>,
  recentPayloads: Int32Array,
): number {
  const limit = Math.min(stream.end, from + RESYNC_WINDOW_BYTES);
  const sizes = new Int32Array(16);
  let span = 0;
  for (const definition of definitions) span = Math.max(span, (definition?.size ?? 0) + 1);
  const candidates: number[] = [];
  const likenesses: number[] = [];
  for (let candidate = from; candidate < limit; candidate++) {
    if (candidates.length > 0 && candidate > candidates[0]! + span) break;
    if (!readsConsistently(bytes, candidate, stream, definitions, sizes)) continue;
    candidates.push(candidate);
    likenesses.push(likeness(bytes, candidate, definitions, recentPayloads));
  }
  if (candidates.length === 0) return -1;
  const best = Math.max(...likenesses);
  if (best < ALIKE) return candidates[0]!;
  return candidates[likenesses.findIndex((value) => value >= best * NEARLY)]!;
}

/**
 * The share of the payload bytes of the data message at `at` equal, byte for byte, to those of one of
 * the two messages read last under the same local number, the larger (0 for a definition, or a local
 * number not read yet).
 */
function likeness(
  bytes: Uint8Array,
  at: number,
  definitions: ReadonlyArray<AlignmentDefinition | undefined>,
  recentPayloads: Int32Array,
): number {
  const header = bytes[at]!;
  if ((header & 0xc0) === 0x40) return 0;
  const local = (header & 0x80) !== 0 ? (header >> 5) & 0x03 : header & 0x0f;
  const size = definitions[local]?.size ?? 0;
  let most = 0;
  for (const previous of [recentPayloads[local]!, recentPayloads[16 + local]!]) {
    if (previous < 0 || size === 0) continue;
    let same = 0;
    for (let i = 0; i < size; i++) if (bytes[at + 1 + i] === bytes[previous + i]) same++;
    most = Math.max(most, same / size);
  }
  return most;
}

/**
 * Whether RESYNC_CHAIN messages from `start` read consistently, with the local definitions in force
 * there: headers name defined local messages with their reserved bits clear (definitions inside the
 * chain count), definitions are well formed (architecture 0 or 1, known base types, no empty field),
 * and everything fits before `end`. A chain may stop short exactly at `end`, unless the data was cut
 * there. `sizes` is scratch space for the definitions the chain itself makes.
 */
export function readsConsistently(
  bytes: Uint8Array,
  start: number,
  { end, endMayCut, allowCompressed }: StreamEnd,
  definitions: ReadonlyArray<AlignmentDefinition | undefined>,
  sizes = new Int32Array(16),
): boolean {
  for (let local = 0; local < 16; local++) sizes[local] = definitions[local]?.size ?? -1;
  let position = start;
  for (let count = 0; count < RESYNC_CHAIN; count++) {
    if (position === end) return count > 0 && !endMayCut;
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
      for (let i = 0; i < fieldCount; i++) {
        const at = position + 6 + i * 3;
        const fieldSize = bytes[at + 1]!;
        const baseType = bytes[at + 2]!;
        if (fieldSize === 0 || (baseType & 0x1f) > 0x10 || (baseType & 0x60) !== 0) return false;
        size += fieldSize;
      }
      if ((header & 0x20) !== 0) {
        if (position + length + 1 > end) return false;
        const developerCount = bytes[position + length]!;
        for (let i = 0; i < developerCount; i++) size += bytes[position + length + 2 + i * 3] ?? 0;
        length += 1 + developerCount * 3;
        if (position + length > end) return false;
      }
      sizes[header & 0x0f] = size;
      position += length;
    } else {
      if ((header & 0x30) !== 0) return false;
      const size = sizes[header & 0x0f]!;
      if (size < 0 || position + 1 + size > end) return false;
      position += 1 + size;
    }
  }
  return true;
}

/**
 * Whether a record's timestamp `next` follows `last` without a jump worth a second look: within
 * MAX_TIME_STEP_SECONDS, or a device clock being set (a device-relative time followed by an absolute
 * one). Only for a file already known to be damaged: a jump alone never drops a record (decoder.ts).
 */
export function smoothTimeStep(last: number, next: number): boolean {
  if (Number.isNaN(last)) return true;
  if (last < FIT_MIN_ABSOLUTE_TIME && next >= FIT_MIN_ABSOLUTE_TIME) return true;
  return Math.abs(next - last) <= MAX_TIME_STEP_SECONDS;
}

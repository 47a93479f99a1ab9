import { PointColumns, SLOT_T, SLOT_X, SLOT_Y } from '../columns.js';
import { RideFileError, RideFileErrorCode, RideFileWarningCode } from '../errors.js';
import type { Warning } from '../model.js';
import {
  findAlignment,
  readsConsistently,
  smoothTimeStep,
  type AlignmentDefinition,
  type StreamEnd,
} from './alignment.js';
import { BASE_TYPE_SIZE, BaseType, isKnownBaseType, readValue } from './base-types.js';
import { Accumulators, componentSource } from './components.js';
import { fitCrc } from './crc.js';
import { fieldNum, messageByNum, messageNum } from './profile.js';
import type { FitComponent, FitProfileMessage } from './profile-types.js';
import {
  compileRecordSteps,
  CONVERT_NONE,
  CONVERT_SEMICIRCLES,
  RECORD_FIELD_SLOTS,
  RECORD_NUM,
  RECORD_PROFILE,
  SEMICIRCLES_TO_DEGREES,
  recordReader,
  writesSmallIntegers,
  type FieldDefinition,
  type RecordReader,
  type RecordStep,
} from './record-steps.js';

/**
 * The FIT decoder (issue 2: "our own decoder"). It walks the FIT protocol record by record:
 * normal and compressed-timestamp headers, little- and big-endian definitions, developer fields
 * (descriptions may arrive after first use), component expansion with accumulation, chained files,
 * header and file CRCs (a bad CRC or a truncated file is a warning, not a lost ride). A message cut off
 * by the end of the data yields nothing (issue 16). Misaligned data is realigned from its bytes: the
 * times a device writes are never taken for damage (alignment.ts).
 *
 * `record` messages take a fast path straight into PointColumns; the few other messages the reader
 * needs are decoded generically into plain objects named by the profile. Everything else is skipped
 * by size, only its timestamp is read (compressed timestamps count from the last one of any message).
 */

export type FitValue = number | string | number[];
/** A decoded message: values by profile field (or sub-field) name, after scale and offset; enums as numbers. */
export type FitMessage = Record<string, FitValue>;

export interface DeveloperFieldDescription {
  developerDataIndex: number;
  fieldNum: number;
  name: string | null;
  baseType: BaseType;
  scale: number;
  offset: number;
  units: string | null;
  nativeMesgNum: number | null;
  nativeFieldNum: number | null;
}

/** One FIT file of a (possibly chained) stream. */
export interface FitSegment {
  /** byte offset of the file's header in the input */
  byteOffset: number;
  /** messages other than `record`, by profile message name */
  messages: Map<string, FitMessage[]>;
  /** one row per record message; `t` holds the raw FIT date_time (possibly device-relative) */
  records: PointColumns;
  developerFields: DeveloperFieldDescription[];
}

export interface FitDecodeResult {
  segments: FitSegment[];
  warnings: Warning[];
}

const FIELD_DESCRIPTION_NUM = messageNum('fieldDescription');
const DEVICE_INFO_NUM = messageNum('deviceInfo');
/** device_info payloads remembered per definition to recognise repeats (a recorder has a dozen devices). */
const MAX_DEVICE_INFO_PAYLOADS = 64;
/** Field 253, the timestamp every message may carry (FIT profile, common fields). */
const TIMESTAMP_FIELD_NUM = fieldNum('record', 'timestamp');

interface DeveloperFieldDefinition {
  key: number;
  offset: number;
  size: number;
}

interface Definition extends AlignmentDefinition {
  globalNum: number;
  littleEndian: boolean;
  /** offset of a uint32 timestamp field in the payload, or -1 */
  timestampOffset: number;
  fields: FieldDefinition[];
  developerFields: DeveloperFieldDefinition[];
  profile: FitProfileMessage | undefined;
  recordSteps: RecordStep[] | null;
  /** the record steps compiled (null: interpret them) */
  recordReader: RecordReader | null;
  /** whether a record step primes an accumulator */
  primesAccumulators: boolean;
}

/** Bytes per record message of a typical activity, to estimate the records of data that cannot be walked. */
const RECORD_BYTES_ESTIMATE = 24;
/**
 * Bytes per record below which the columns are not sized up front but grown as rows are kept (a record of
 * a timestamp and a heart rate is 6 bytes; real recordings write 20 to 60).
 */
const MIN_RECORD_BYTES = 8;
/** Distinct definitions remembered per FIT file (real files have a few dozen at most). */
const MAX_CACHED_DEFINITIONS = 256;
/** Distinct record layouts compiled per FIT file; real files have a handful, more are read interpreted. */
const MAX_GENERATED_READERS = 32;
const POSITION_SLOTS = (1 << SLOT_X) | (1 << SLOT_Y);
/** Set in a record's filled bits when it expanded components (which columns they filled is not tracked). */
const EXPANDED = 1 << 16;
/** Record fields whose running value a component may count on from (record.distance ← compressed_speed_distance). */
const RECORD_ACCUMULATED_FIELDS = Object.values(RECORD_PROFILE.fields).filter((field) => field.accumulated);
/** The invalid value of a uint32 date_time (FIT protocol, "Base Types"). */
const INVALID_TIMESTAMP = 0xffffffff;
const CUT_SHORT = -1;
const MISALIGNED = -2;
/** a record whose bytes read better from another offset nearby (see #message) */
const REREAD = -3;
/** A damaged file is realigned at most this often before the rest of it is given up. */
const MAX_RESYNCS = 64;
const LastKind = { NONE: 0, DATA: 1, DEFINITION: 2 } as const;

// 32-bit FNV-1a (fnv1a)
const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** A definition with the bytes it was compiled from. */
interface CachedDefinition {
  source: Uint8Array;
  hasDeveloperFields: boolean;
  definition: Definition;
}

/** 32-bit FNV-1a of `bytes[from, to)` but for the 4 bytes at `skipAt` (-1: none), from `seed`. */
function fnv1a(bytes: Uint8Array, from: number, to: number, seed = FNV_OFFSET_BASIS, skipAt = -1): number {
  let hash = seed;
  for (let i = from; i < to; i++) {
    if (i === skipAt) i += 4;
    if (i < to) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
  }
  return hash;
}

/** The hash of a definition's bytes after its header and reserved byte, seeded by the developer-data bit. */
export function definitionHash(
  bytes: Uint8Array,
  from: number,
  to: number,
  hasDeveloperFields: boolean,
): number {
  return fnv1a(bytes, from, to, hasDeveloperFields ? FNV_OFFSET_BASIS ^ 1 : FNV_OFFSET_BASIS);
}

/** Whether `bytes` from `from` on equal `source`, but for the 4 bytes at `skipAt` (-1: none). */
function sameBytes(source: Uint8Array, bytes: Uint8Array, from: number, skipAt = -1): boolean {
  for (let i = 0; i < source.length; i++) {
    const at = from + i;
    if (at >= skipAt && at < skipAt + 4) continue;
    if (source[i] !== bytes[at]) return false;
  }
  return true;
}

/** A message read, as much as taking it back needs. */
interface ReadMessage {
  kind: (typeof LastKind)[keyof typeof LastKind];
  start: number;
  end: number;
  timestampBefore: number;
  recordTimestampBefore: number;
  rowsBefore: number;
  messageName: string | null;
  /** the device_info payloads the message was added to (see #repeatsDeviceInfo), and under which hash */
  rememberedIn: Map<number, Uint8Array> | null;
  rememberedHash: number;
  /** #recentPayloads of the message's local number before it */
  payloadsBefore: [number, number];
  local: number;
  previousDefinition: Definition | undefined;
}

interface PendingDeveloperValue {
  row: number;
  key: number;
  /** absolute byte offset of the value */
  offset: number;
  size: number;
  littleEndian: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

export interface FitDecodeOptions {
  maxPoints: number;
  /** the messages besides `record` the caller reads, by profile name; the others are skipped by size */
  messages: ReadonlySet<string>;
}

export function decodeFit(bytes: Uint8Array, options: FitDecodeOptions): FitDecodeResult {
  const warnings: Warning[] = [];
  const segments: FitSegment[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let position = 0;

  while (position < bytes.length) {
    const header = readHeader(bytes, view, position);
    if (header === null) {
      if (segments.length === 0) {
        throw new RideFileError(RideFileErrorCode.MALFORMED, 'the FIT file header is missing or damaged');
      }
      if (!isZeroPadding(bytes, position)) {
        warnings.push({
          code: RideFileWarningCode.TRAILING_DATA,
          message: `${bytes.length - position} bytes after the last FIT file at byte ${position} are not a FIT file; ignored`,
        });
      }
      break;
    }
    if (header.headerCrcMismatch) {
      warnings.push({
        code: RideFileWarningCode.BAD_HEADER_CRC,
        message: `the header CRC of the FIT file at byte ${position} does not match; its data is read anyway`,
      });
    }

    const dataStart = position + header.size;
    // A data size of 0 is written by recorders that never went back to fill it in: read to the end.
    const declaredEnd =
      header.dataSize === 0 ? Math.max(dataStart, bytes.length - 2) : dataStart + header.dataSize;
    const dataEnd = Math.min(declaredEnd, bytes.length);
    const segmentDecoder = new SegmentDecoder(
      bytes,
      view,
      position,
      options,
      // Rows for every record, but no more than one per MIN_RECORD_BYTES: a crafted file of one-byte
      // records that hold nothing must not make the columns (81 bytes a row) many times its size.
      Math.min(
        countRecordMessages(bytes, view, dataStart, dataEnd),
        Math.ceil((dataEnd - dataStart) / MIN_RECORD_BYTES),
      ),
    );
    const cutOff = declaredEnd + 2 > bytes.length;
    // The CRC is checked first: bytes the device vouched for are read as written (see decode).
    const crcMatches = !cutOff && view.getUint16(declaredEnd, true) === fitCrc(bytes, position, declaredEnd);
    // Where the input holds all the data the header declares, nothing can run past its end but misaligned
    // bytes; a file cut off (or one whose size was never filled in) may end inside a message.
    const problems = segmentDecoder.decode(dataStart, dataEnd, {
      endMayCut: cutOff || header.dataSize === 0,
      sound: crcMatches,
    });
    segments.push(segmentDecoder.finish());

    if (cutOff) {
      // The file-level warning below says it better than "a message runs past the end".
      warnings.push(...problems.filter((problem) => problem.code !== RideFileWarningCode.TRUNCATED));
      warnings.push({
        code: RideFileWarningCode.TRUNCATED,
        message: `the FIT file at byte ${position} declares ${header.dataSize} bytes of data but the input ends after ${Math.max(0, bytes.length - dataStart)}; the data read so far is kept`,
      });
      break;
    }
    warnings.push(...problems);
    if (!crcMatches) {
      warnings.push({
        code: RideFileWarningCode.BAD_CRC,
        message: `the file CRC of the FIT file at byte ${position} does not match its content; the data is read anyway`,
      });
    }
    position = declaredEnd + 2;
  }
  return { segments, warnings };
}

interface FitHeader {
  size: number;
  dataSize: number;
  headerCrcMismatch: boolean;
}

function readHeader(bytes: Uint8Array, view: DataView, position: number): FitHeader | null {
  if (position + 12 > bytes.length) return null;
  const size = bytes[position]!;
  if (size < 12 || position + size > bytes.length) return null;
  if (
    bytes[position + 8] !== 0x2e ||
    bytes[position + 9] !== 0x46 ||
    bytes[position + 10] !== 0x49 ||
    bytes[position + 11] !== 0x54
  ) {
    return null;
  }
  const dataSize = view.getUint32(position + 4, true);
  let headerCrcMismatch = false;
  if (size >= 14) {
    const stored = view.getUint16(position + 12, true);
    headerCrcMismatch = stored !== 0 && stored !== fitCrc(bytes, position, position + 12);
  }
  return { size, dataSize, headerCrcMismatch };
}

/**
 * How many record messages the data in [start, end) holds, from the message headers and definitions
 * alone (no field is read): the columns are allocated once at that size. Where the walk cannot go on
 * (damaged data, which the decoder realigns), the rest is estimated; the columns grow if that is short.
 */
function countRecordMessages(bytes: Uint8Array, view: DataView, start: number, end: number): number {
  const sizes = new Int32Array(16).fill(-1);
  const isRecord = new Uint8Array(16);
  let count = 0;
  let position = start;
  while (position < end) {
    const header = bytes[position]!;
    if ((header & 0xc0) === 0x40) {
      if (position + 6 > end) break;
      const architecture = bytes[position + 2]!;
      if (architecture > 1) break;
      const fieldCount = bytes[position + 5]!;
      let length = 6 + fieldCount * 3;
      let size = 0;
      for (let i = 0; i < fieldCount; i++) size += bytes[position + 7 + i * 3] ?? 0;
      if ((header & 0x20) !== 0) {
        const developerCount = bytes[position + length] ?? 0;
        for (let i = 0; i < developerCount; i++) size += bytes[position + length + 2 + i * 3] ?? 0;
        length += 1 + developerCount * 3;
      }
      const local = header & 0x0f;
      sizes[local] = size;
      isRecord[local] = view.getUint16(position + 3, architecture === 0) === RECORD_NUM ? 1 : 0;
      position += length;
    } else {
      const local = (header & 0x80) !== 0 ? (header >> 5) & 0x03 : header & 0x0f;
      const size = sizes[local]!;
      if (size < 0) break;
      count += isRecord[local]!;
      position += 1 + size;
    }
  }
  return position < end ? count + Math.ceil((end - position) / RECORD_BYTES_ESTIMATE) : count;
}

function cutShort(position: number, end: number): Warning {
  return {
    code: RideFileWarningCode.TRUNCATED,
    message: `the FIT message at byte ${position} runs past the end of the data (byte ${end}); the data before it is kept`,
  };
}

function isZeroPadding(bytes: Uint8Array, from: number): boolean {
  for (let i = from; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** Decodes the records of one FIT file. */
class SegmentDecoder {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #byteOffset: number;
  readonly #definitions: Array<Definition | undefined> = new Array<Definition | undefined>(16);
  readonly #messages = new Map<string, FitMessage[]>();
  readonly #keptMessages: ReadonlySet<string>;
  /** device_info payloads decoded so far, per definition, by hash (see #repeatsDeviceInfo) */
  readonly #deviceInfoPayloads = new Map<Definition, Map<number, Uint8Array>>();
  readonly #records: PointColumns;
  readonly #developerFields = new Map<number, DeveloperFieldDescription>();
  readonly #pendingDeveloperValues: PendingDeveloperValue[] = [];
  readonly #accumulators = new Accumulators();
  /**
   * The last raw value of each accumulated record field read in full (NaN: none since the last
   * expansion), by field number. Priming the accumulator is deferred until a component expansion
   * needs it: most files never expand a record component, and a prime per record is a map update.
   */
  readonly #pendingRecordPrimes = new Float64Array(256).fill(NaN);
  #hasPendingRecordPrimes = false;
  /** definitions by a hash of their bytes, each kept with those bytes (see #cachedDefinition) */
  readonly #definitionCache = new Map<number, CachedDefinition>();
  /** record layouts this segment may still compile (each costs a code generation) */
  readonly #readerBudget = { generations: MAX_GENERATED_READERS };
  #lastTimestamp = NaN;
  /** a file that never used compressed-timestamp headers is not realigned onto one */
  #usesCompressedTimestamps = false;
  /**
   * The payload offsets of the two data messages read last under each local number (index local: the
   * last, 16 + local: the one before; -1: none), for realigning (alignment.ts).
   */
  readonly #recentPayloads = new Int32Array(32).fill(-1);
  /** the last record timestamp read, for the second look a damaged file's time jumps get (see #message) */
  #lastRecordTimestamp = NaN;
  /**
   * Whether the bytes are sound so far: the file CRC matches and nothing failed to read. Only when they
   * are not does a record whose time jumps get a second look (see #message).
   */
  #sound = false;
  /** realignments so far; past MAX_RESYNCS the rest of the data is given up */
  #resyncs = 0;
  /** where reading resumes after a REREAD (see #message) */
  #rereadAt = -1;
  /** where the data being decoded ends, and whether it may end anywhere (see decode) */
  #stream: StreamEnd = { end: 0, endMayCut: false, allowCompressed: false };
  /** the message read last, so a break found just after it can take it back (see #takeBack) */
  readonly #last: ReadMessage = {
    kind: LastKind.NONE,
    start: 0,
    end: 0,
    timestampBefore: NaN,
    recordTimestampBefore: NaN,
    rowsBefore: 0,
    messageName: null,
    rememberedIn: null,
    rememberedHash: 0,
    payloadsBefore: [-1, -1],
    local: 0,
    previousDefinition: undefined,
  };

  constructor(
    bytes: Uint8Array,
    view: DataView,
    byteOffset: number,
    { maxPoints, messages }: FitDecodeOptions,
    recordMessages: number,
  ) {
    this.#bytes = bytes;
    this.#view = view;
    this.#byteOffset = byteOffset;
    this.#keptMessages = messages;
    // Sized once for every record the segment holds: no regrowth, and no zero-filled rows to spare.
    this.#records = new PointColumns(maxPoints, Math.min(maxPoints, recordMessages));
  }

  /**
   * Decodes the messages in [start, end) and returns what went wrong, as warnings. A message that runs
   * past the end is a truncated file when `endMayCut`, misaligned data otherwise (unless nothing after
   * it reads). A header that cannot be right (an undefined local message, reserved bits set, a
   * definition with an impossible architecture byte) means the stream lost its alignment, usually
   * because a writer dropped or added a byte: the decoder then looks for the next offset from which
   * several messages in a row read consistently (alignment.ts), takes back the garbled message before
   * it (see #takeBack), and reads on. `sound`: the file CRC matches the data.
   */
  decode(
    start: number,
    end: number,
    { endMayCut, sound }: { endMayCut: boolean; sound: boolean },
  ): Warning[] {
    this.#stream = { end, endMayCut, allowCompressed: false };
    this.#sound = sound;
    const problems: Warning[] = [];
    let position = start;
    let firstMisalignment = -1;
    let skippedBytes = 0;
    let droppedMessages = 0;
    while (position < end) {
      const next = this.#message(position, end);
      if (next >= 0) {
        position = next;
        continue;
      }
      this.#sound = false;
      if (next === CUT_SHORT && endMayCut) {
        problems.push(cutShort(position, end));
        break;
      }
      const last = this.#last;
      const resumeAt =
        next === REREAD
          ? this.#rereadAt
          : this.#resyncs < MAX_RESYNCS
            ? this.#findAlignment(last.kind === LastKind.NONE ? position + 1 : last.start + 1)
            : -1;
      if (resumeAt < 0 && next === CUT_SHORT) {
        // Nowhere to resume: the data simply ends inside this message (the header's size counts it whole).
        problems.push(cutShort(position, end));
        break;
      }
      if (resumeAt < 0) {
        problems.push({
          code: RideFileWarningCode.SKIPPED_DATA,
          message: `the FIT data at byte ${position} cannot be read (no message definition fits it); the remaining ${end - position} bytes of that FIT file are skipped`,
        });
        break;
      }
      this.#resyncs += 1;
      const from = last.start;
      const garbled = this.#takeBack(position, resumeAt, next !== REREAD);
      if (firstMisalignment < 0) firstMisalignment = garbled ? from : position;
      if (garbled) droppedMessages += 1;
      skippedBytes += resumeAt - (garbled ? from : position);
      position = resumeAt;
    }
    const resyncs = this.#resyncs;
    if (resyncs > 0) {
      problems.unshift({
        code: RideFileWarningCode.SKIPPED_DATA,
        message: `the FIT data lost its alignment ${resyncs} time${resyncs === 1 ? '' : 's'} (first at byte ${firstMisalignment}): ${skippedBytes} bytes${droppedMessages > 0 ? ` including ${droppedMessages} garbled message${droppedMessages === 1 ? '' : 's'}` : ''} were skipped and reading resumed after each`,
      });
    }
    return problems;
  }

  /** Where to resume reading, searching from `from` (alignment.ts); -1 when nothing reads. */
  #findAlignment(from: number): number {
    const stream = { ...this.#stream, from, allowCompressed: this.#usesCompressedTimestamps };
    return findAlignment(this.#bytes, stream, this.#definitions, this.#recentPayloads);
  }

  finish(): FitSegment {
    this.#resolvePendingDeveloperValues();
    return {
      byteOffset: this.#byteOffset,
      messages: this.#messages,
      records: this.#records,
      developerFields: [...this.#developerFields.values()],
    };
  }

  /** Reads the message at `position`; returns where the next one starts, CUT_SHORT, MISALIGNED or REREAD. */
  #message(position: number, end: number): number {
    const recordHeader = this.#bytes[position]!;
    const timestampBefore = this.#lastTimestamp;
    if ((recordHeader & 0x40) !== 0 && (recordHeader & 0x80) === 0) {
      // A reserved bit set, or an impossible architecture byte, is misaligned data, however long the
      // "definition" would be (FIT protocol, "Record Header" and "Definition Message").
      if ((recordHeader & 0x10) !== 0) return MISALIGNED;
      if (position + 2 < end && this.#bytes[position + 2]! > 1) return MISALIGNED;
      const size = this.#definitionSize(position, end);
      if (size < 0) return CUT_SHORT;
      const local = recordHeader & 0x0f;
      const definition = this.#cachedDefinition(position, size, (recordHeader & 0x20) !== 0);
      const last = this.#last;
      last.kind = LastKind.DEFINITION;
      last.start = position;
      last.end = position + size;
      last.timestampBefore = timestampBefore;
      last.recordTimestampBefore = this.#lastRecordTimestamp;
      last.local = local;
      last.previousDefinition = this.#definitions[local];
      this.#definitions[local] = definition;
      return position + size;
    }
    // Compressed timestamp header: local type in bits 5-6, time offset in bits 0-4.
    const compressed = (recordHeader & 0x80) !== 0;
    // Bits 4 and 5 of a normal data message header are reserved.
    if (!compressed && (recordHeader & 0x30) !== 0) return MISALIGNED;
    const definition = this.#definitions[compressed ? (recordHeader >> 5) & 0x03 : recordHeader & 0x0f];
    if (definition === undefined) return MISALIGNED;
    // Half of all byte values read as a compressed-timestamp header once local messages 0–3 are defined,
    // so misaligned bytes often do: the first one of a file counts only when the messages from it read
    // consistently, as a place to resume must (alignment.ts).
    if (
      compressed &&
      !this.#usesCompressedTimestamps &&
      !readsConsistently(this.#bytes, position, { ...this.#stream, allowCompressed: true }, this.#definitions)
    ) {
      return MISALIGNED;
    }
    const next = position + 1 + definition.size;
    // A message the end of the data cuts off yields nothing, not even the fields before the cut: what
    // was half read may be anything (issue 16).
    if (next > end) return CUT_SHORT;
    const timestamp =
      definition.timestampOffset < 0
        ? INVALID_TIMESTAMP
        : this.#view.getUint32(position + 1 + definition.timestampOffset, definition.littleEndian);
    const recordTimestampBefore = this.#lastRecordTimestamp;
    if (timestamp !== INVALID_TIMESTAMP && definition.recordSteps !== null) {
      // Issue 16: a time that jumps is no evidence of damage, and a sound file is read as written. In a
      // file already damaged, a record whose time jumps gets a second look at the bytes: when another
      // offset nearby reads consistently and continues the messages before it better than this one
      // (alignment.ts), this record is a misreading, and reading resumes there; else it stands.
      if (!this.#sound && !smoothTimeStep(recordTimestampBefore, timestamp) && this.#resyncs < MAX_RESYNCS) {
        const from = this.#last.kind === LastKind.NONE ? position : this.#last.start + 1;
        const resumeAt = this.#findAlignment(from);
        if (resumeAt >= 0 && resumeAt !== position) {
          this.#rereadAt = resumeAt;
          return REREAD;
        }
      }
      this.#lastRecordTimestamp = timestamp;
    }
    let time = NaN;
    if (compressed) {
      time = this.#lastTimestamp = compressedTimestamp(this.#lastTimestamp, recordHeader & 0x1f);
      this.#usesCompressedTimestamps = true;
    }
    const last = this.#last;
    last.kind = LastKind.DATA;
    last.start = position;
    last.end = next;
    last.timestampBefore = timestampBefore;
    last.recordTimestampBefore = recordTimestampBefore;
    last.rowsBefore = this.#records.length;
    last.messageName = null;
    last.rememberedIn = null;
    if (timestamp !== INVALID_TIMESTAMP) this.#lastTimestamp = timestamp;
    const local = compressed ? (recordHeader >> 5) & 0x03 : recordHeader & 0x0f;
    last.local = local;
    const payloads = this.#recentPayloads;
    last.payloadsBefore[0] = payloads[local]!;
    last.payloadsBefore[1] = payloads[16 + local]!;
    payloads[16 + local] = payloads[local]!;
    payloads[local] = position + 1;
    // Records straight to their columns: the call made for nearly every message of a file (issue 21).
    if (definition.recordSteps !== null) this.#record(definition, definition.recordSteps, position + 1, time);
    else this.#dataMessage(definition, position + 1, time);
    return next;
  }

  /**
   * At a break found at `position`, with reading to resume at `resumeAt`: takes back the message read
   * last when it is garbled, and says whether it was. It is when the resume point lies inside it. After
   * a header that cannot be right (`broken`), a data message right before it is too: a writer that
   * dropped or added a byte inside it made it read too long or too short, whatever values it seemed to
   * hold (the Strava Android file drops a byte from one record in a few hundred). A definition is kept
   * then: the place to resume was found with it in force.
   */
  #takeBack(position: number, resumeAt: number, broken: boolean): boolean {
    const last = this.#last;
    const garbled =
      last.kind !== LastKind.NONE &&
      (resumeAt < last.end || (broken && last.kind === LastKind.DATA && last.end === position));
    if (!garbled) return false;
    if (last.kind === LastKind.DEFINITION) {
      this.#definitions[last.local] = last.previousDefinition;
    } else {
      if (this.#records.length > last.rowsBefore) {
        this.#records.dropLast();
        const pending = this.#pendingDeveloperValues;
        while (pending.length > 0 && pending[pending.length - 1]!.row >= last.rowsBefore) pending.pop();
      }
      if (last.messageName !== null) this.#messages.get(last.messageName)?.pop();
      last.rememberedIn?.delete(last.rememberedHash);
      this.#recentPayloads[last.local] = last.payloadsBefore[0];
      this.#recentPayloads[16 + last.local] = last.payloadsBefore[1];
    }
    this.#lastTimestamp = last.timestampBefore;
    this.#lastRecordTimestamp = last.recordTimestampBefore;
    last.kind = LastKind.NONE;
    return true;
  }

  /** Size of the definition message at `position`, or -1 if it does not fit before `end`. */
  #definitionSize(position: number, end: number): number {
    const bytes = this.#bytes;
    if (position + 6 > end) return -1;
    const fieldCount = bytes[position + 5]!;
    let size = 6 + fieldCount * 3;
    if ((bytes[position]! & 0x20) !== 0) {
      if (position + size + 1 > end) return -1;
      size += 1 + bytes[position + size]! * 3;
    }
    return position + size > end ? -1 : size;
  }

  /**
   * The definition at `position`, compiled once per distinct content: recorders repeat the same few
   * definitions hundreds of times (a Wahoo ELEMNT file: 838 definitions, a dozen distinct).
   */
  #cachedDefinition(position: number, size: number, hasDeveloperFields: boolean): Definition {
    // Everything after the header and reserved bytes decides the definition (and the header's
    // developer-data bit, which decides how much of it there is). A numeric hash of those bytes finds
    // the candidate without building a string key per definition message; the bytes then confirm it.
    const bytes = this.#bytes;
    const from = position + 2;
    const to = position + size;
    const hash = definitionHash(bytes, from, to, hasDeveloperFields);
    const cached = this.#definitionCache.get(hash);
    if (
      cached !== undefined &&
      cached.hasDeveloperFields === hasDeveloperFields &&
      cached.source.length === to - from &&
      sameBytes(cached.source, bytes, from)
    ) {
      return cached.definition;
    }
    const definition = this.#define(position, hasDeveloperFields);
    // A colliding entry is replaced; the cache stays bounded against files of endless distinct definitions.
    if (cached !== undefined || this.#definitionCache.size < MAX_CACHED_DEFINITIONS) {
      this.#definitionCache.set(hash, { source: bytes.slice(from, to), hasDeveloperFields, definition });
    }
    return definition;
  }

  /** Compiles a definition message (its architecture byte, 0 or 1, checked by the caller). */
  #define(position: number, hasDeveloperFields: boolean): Definition {
    const bytes = this.#bytes;
    const littleEndian = bytes[position + 2] === 0;
    const globalNum = this.#view.getUint16(position + 3, littleEndian);
    const fieldCount = bytes[position + 5]!;
    const profile = messageByNum(globalNum);
    const fields: FieldDefinition[] = [];
    let offset = 0;
    let cursor = position + 6;
    let timestampOffset = -1;
    for (let i = 0; i < fieldCount; i++, cursor += 3) {
      const num = bytes[cursor]!;
      const size = bytes[cursor + 1]!;
      const rawType = bytes[cursor + 2]! & 0x1f;
      const baseType = isKnownBaseType(rawType) ? rawType : -1;
      fields.push({ num, offset, size, baseType, profile: profile?.fields[num] });
      if (
        num === TIMESTAMP_FIELD_NUM &&
        size === 4 &&
        (baseType === BaseType.UINT32 || baseType === BaseType.SINT32)
      ) {
        timestampOffset = offset;
      }
      offset += size;
    }
    const developerFields: DeveloperFieldDefinition[] = [];
    if (hasDeveloperFields) {
      const count = bytes[cursor]!;
      cursor += 1;
      for (let i = 0; i < count; i++, cursor += 3) {
        const size = bytes[cursor + 1]!;
        developerFields.push({ key: developerKey(bytes[cursor + 2]!, bytes[cursor]!), offset, size });
        offset += size;
      }
    }
    const recordSteps = globalNum === RECORD_NUM ? compileRecordSteps(fields) : null;
    // The record steps write their channels' columns directly: each gets its own (PointColumns).
    for (const step of recordSteps ?? []) {
      if (step.slot < 0) continue;
      if (writesSmallIntegers(step)) this.#records.own(step.slot);
      else this.#records.widen(step.slot);
    }
    const definition: Definition = {
      globalNum,
      littleEndian,
      size: offset,
      fields,
      developerFields,
      profile,
      timestampOffset,
      recordSteps,
      recordReader: recordSteps === null ? null : recordReader(recordSteps, littleEndian, this.#readerBudget),
      primesAccumulators: recordSteps?.some((step) => step.accumulated) ?? false,
    };
    return definition;
  }

  /** A data message other than a record (those go to #record). */
  #dataMessage(definition: Definition, payload: number, compressedTime: number): void {
    if (definition.profile !== undefined) {
      const { name } = definition.profile;
      const kept = this.#keptMessages.has(name);
      // Field descriptions are always read: they say what developer fields hold.
      if (!kept && definition.globalNum !== FIELD_DESCRIPTION_NUM) return;
      if (definition.globalNum === DEVICE_INFO_NUM && this.#repeatsDeviceInfo(definition, payload)) return;
      const message = this.#genericMessage(definition, definition.profile, payload, compressedTime);
      if (definition.globalNum === FIELD_DESCRIPTION_NUM) this.#describeDeveloperField(message);
      if (!kept) return;
      let list = this.#messages.get(name);
      if (list === undefined) this.#messages.set(name, (list = []));
      list.push(message);
      this.#last.messageName = name;
    }
  }

  /**
   * Whether this device_info says again what one before it said (the same bytes under the same
   * definition, its timestamp aside). Recorders repeat them all through a ride (a Wahoo ELEMNT file:
   * 310, of which 85 differ), and a repeat tells the reader nothing new: only the first of each device
   * counts (wheel.ts). At most MAX_DEVICE_INFO_PAYLOADS are remembered per definition.
   */
  #repeatsDeviceInfo(definition: Definition, payload: number): boolean {
    const bytes = this.#bytes;
    const end = payload + definition.size;
    const timestampAt = definition.timestampOffset < 0 ? -1 : payload + definition.timestampOffset;
    const hash = fnv1a(bytes, payload, end, FNV_OFFSET_BASIS, timestampAt);
    let seen = this.#deviceInfoPayloads.get(definition);
    if (seen === undefined) this.#deviceInfoPayloads.set(definition, (seen = new Map<number, Uint8Array>()));
    const earlier = seen.get(hash);
    if (earlier !== undefined && sameBytes(earlier, bytes, payload, timestampAt)) return true;
    if (seen.size < MAX_DEVICE_INFO_PAYLOADS) {
      seen.set(hash, bytes.slice(payload, end));
      this.#last.rememberedIn = seen;
      this.#last.rememberedHash = hash;
    }
    return false;
  }

  #record(definition: Definition, steps: RecordStep[], payload: number, compressedTime: number): void {
    const { recordReader: reader, littleEndian, developerFields } = definition;
    const columns = this.#records;
    const row = columns.append();
    const { x, y, t } = columns;
    // A bit per column this record filled, so an empty record is known without reading its row back.
    let filled: number;
    if (reader !== null) {
      filled = reader(
        this.#view,
        payload,
        row,
        x,
        y,
        columns.e,
        t,
        columns.c,
        columns.h,
        columns.p,
        columns.s,
        columns.d,
        columns.T,
        this.#pendingRecordPrimes,
        readValue,
      );
      if (definition.primesAccumulators) this.#hasPendingRecordPrimes = true;
    } else {
      filled = this.#interpretRecord(steps, littleEndian, payload, row);
    }
    const expanded = (filled & EXPANDED) !== 0;
    if (Number.isNaN(t[row]!) && !Number.isNaN(compressedTime)) {
      t[row] = compressedTime;
      filled |= 1 << SLOT_T;
    }
    // A position outside the globe is not a position (the rest of the sample is kept).
    if (!(Math.abs(y[row]!) <= 90) || Number.isNaN(x[row]!)) {
      x[row] = NaN;
      y[row] = NaN;
      filled &= ~POSITION_SLOTS;
    }
    if (developerFields.length > 0) this.#recordDeveloperFields(developerFields, littleEndian, payload, row);
    const holdsValue = expanded || developerFields.length > 0 ? columns.hasAnyValue(row) : filled !== 0;
    // A row whose only value waits for a developer field's description stays until `finish` knows.
    if (!holdsValue && !this.#awaitsDescription(row)) columns.dropLast();
  }

  /**
   * What a generated record reader does, step by step: the path for layouts with components to expand,
   * beyond the generation budget, and where code generation is forbidden. Returns a bit per column filled,
   * and EXPANDED when components were expanded (they fill columns of their own).
   */
  #interpretRecord(steps: RecordStep[], littleEndian: boolean, payload: number, row: number): number {
    const view = this.#view;
    let filled = 0;
    // Steps are ordered so that enhanced_* fields come last and overwrite the plain ones they extend.
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      const at = payload + step.offset;
      if (step.expands) {
        this.#expandRecordComponents(step, at, littleEndian, row);
        filled |= EXPANDED;
        if (step.slot < 0) continue;
      }
      const raw = readValue(view, at, step.baseType, littleEndian);
      if (raw !== raw) continue; // the base type's invalid value
      if (step.accumulated) {
        this.#pendingRecordPrimes[step.field.num] = raw;
        this.#hasPendingRecordPrimes = true;
      }
      // The channel is read here, not before the loop: an expansion above may have widened one.
      this.#records.channels[step.slot]![row] =
        step.conversion === CONVERT_NONE
          ? raw
          : step.conversion === CONVERT_SEMICIRCLES
            ? raw * SEMICIRCLES_TO_DEGREES
            : scaled(raw, step.scale, step.valueOffset);
      filled |= 1 << step.slot;
    }
    return filled;
  }

  /**
   * Primes the accumulators with the record fields read in full since the last expansion: only the last
   * value of each counts, as each prime replaces the running value.
   */
  #primeRecordAccumulators(): void {
    const pending = this.#pendingRecordPrimes;
    for (const field of RECORD_ACCUMULATED_FIELDS) {
      const raw = pending[field.num]!;
      if (Number.isNaN(raw)) continue;
      this.#accumulators.prime(RECORD_PROFILE, field, raw);
      pending[field.num] = NaN;
    }
    this.#hasPendingRecordPrimes = false;
  }

  #awaitsDescription(row: number): boolean {
    const pending = this.#pendingDeveloperValues;
    return pending.length > 0 && pending[pending.length - 1]!.row === row;
  }

  /** Component values fill their columns unless a field read in full already did. */
  #expandRecordComponents(step: RecordStep, at: number, littleEndian: boolean, row: number): void {
    if (this.#hasPendingRecordPrimes) this.#primeRecordAccumulators();
    const source = componentSource(this.#bytes, at, step.size, step.baseType, littleEndian);
    if (source === null) return;
    const records = this.#records;
    this.#accumulators.expand(RECORD_NUM, step.field.components, source, (targetNum, value) => {
      const target = RECORD_PROFILE.fields[targetNum];
      const slot = target === undefined ? undefined : RECORD_FIELD_SLOTS[target.name];
      if (slot !== undefined && Number.isNaN(records.channels[slot]![row]!)) records.set(slot, row, value);
    });
  }

  #genericMessage(
    definition: Definition,
    profile: FitProfileMessage,
    payload: number,
    compressedTime: number,
  ): FitMessage {
    const message: FitMessage = {};
    const rawByNum = new Map<number, number>();
    const littleEndian = definition.littleEndian;
    for (const definedField of definition.fields) {
      const profileField = definedField.profile;
      if (profileField === undefined || definedField.baseType === -1 || definedField.size === 0) continue;
      const at = payload + definedField.offset;
      if (definedField.baseType === BaseType.STRING) {
        const text = readString(this.#bytes, at, definedField.size);
        if (text !== '') message[profileField.name] = text;
        continue;
      }
      const raws = readValues(this.#view, at, definedField.size, definedField.baseType, littleEndian);
      if (raws === null) continue;
      const first = raws[0]!;
      if (raws.length === 1 && !profileField.array) {
        if (Number.isNaN(first)) continue;
        rawByNum.set(profileField.num, first);
        message[profileField.name] = scaled(first, profileField.scale, profileField.offset);
        if (profileField.accumulated) this.#accumulators.prime(profile, profileField, first);
      } else {
        if (raws.every(Number.isNaN)) continue;
        message[profileField.name] = raws.map((raw) => scaled(raw, profileField.scale, profileField.offset));
        if (profileField.accumulated && raws.length === 1)
          this.#accumulators.prime(profile, profileField, first);
      }
      if (profileField.components.length > 0) {
        const source = componentSource(
          this.#bytes,
          at,
          definedField.size,
          definedField.baseType,
          littleEndian,
        );
        if (source !== null) this.#expandInto(message, profile, profileField.components, source);
      }
    }
    resolveSubFields(message, profile, rawByNum);
    if (message['timestamp'] === undefined && !Number.isNaN(compressedTime))
      message['timestamp'] = compressedTime;
    return message;
  }

  /** Component values of a generic message: a target read in full wins; several values make an array. */
  #expandInto(
    message: FitMessage,
    profile: FitProfileMessage,
    components: readonly FitComponent[],
    source: Uint8Array,
  ): void {
    const expanded = new Map<string, number[]>();
    this.#accumulators.expand(profile.num, components, source, (targetNum, value) => {
      const target = profile.fields[targetNum];
      if (target === undefined) return;
      let list = expanded.get(target.name);
      if (list === undefined) expanded.set(target.name, (list = []));
      list.push(value);
    });
    for (const [name, list] of expanded) {
      const target = Object.values(profile.fields).find((candidate) => candidate.name === name);
      if (message[name] !== undefined && !target?.accumulated) continue;
      message[name] = list.length === 1 && target?.array !== true ? list[0]! : list;
    }
  }

  #describeDeveloperField(message: FitMessage): void {
    const index = message['developerDataIndex'];
    const num = message['fieldDefinitionNumber'];
    const baseTypeId = message['fitBaseTypeId'];
    if (typeof index !== 'number' || typeof num !== 'number' || typeof baseTypeId !== 'number') return;
    const baseType = baseTypeId & 0x1f;
    if (!isKnownBaseType(baseType)) return;
    const scale = message['scale'];
    const offset = message['offset'];
    const name = message['fieldName'];
    const units = message['units'];
    const nativeMesgNum = message['nativeMesgNum'];
    const nativeFieldNum = message['nativeFieldNum'];
    this.#developerFields.set(developerKey(index, num), {
      developerDataIndex: index,
      fieldNum: num,
      name: typeof name === 'string' ? name : null,
      baseType,
      scale: typeof scale === 'number' && scale !== 0 ? scale : 1,
      offset: typeof offset === 'number' ? offset : 0,
      units: typeof units === 'string' ? units : null,
      nativeMesgNum: typeof nativeMesgNum === 'number' ? nativeMesgNum : null,
      nativeFieldNum: typeof nativeFieldNum === 'number' ? nativeFieldNum : null,
    });
  }

  #recordDeveloperFields(
    developerFields: DeveloperFieldDefinition[],
    littleEndian: boolean,
    payload: number,
    row: number,
  ): void {
    for (const developerField of developerFields) {
      const at = payload + developerField.offset;
      const description = this.#developerFields.get(developerField.key);
      if (description === undefined) {
        // The description may come later in the file (FIT allows it): resolve at the end.
        this.#pendingDeveloperValues.push({
          row,
          key: developerField.key,
          offset: at,
          size: developerField.size,
          littleEndian,
        });
      } else {
        this.#applyDeveloperValue(description, row, at, developerField.size, littleEndian);
      }
    }
  }

  #resolvePendingDeveloperValues(): void {
    if (this.#pendingDeveloperValues.length === 0) return;
    for (const pending of this.#pendingDeveloperValues) {
      const description = this.#developerFields.get(pending.key);
      if (description === undefined) continue;
      this.#applyDeveloperValue(description, pending.row, pending.offset, pending.size, pending.littleEndian);
    }
    this.#pendingDeveloperValues.length = 0;
    // Rows kept for a description that never came (or that fills no point channel) still hold nothing.
    this.#records.compactFrom(0);
  }

  /**
   * A developer field that the file declares equivalent to a native record field (native_mesg_num and
   * native_field_num) fills that channel when the native field did not (e.g. power from a Stryd pod).
   */
  #applyDeveloperValue(
    description: DeveloperFieldDescription,
    row: number,
    at: number,
    size: number,
    littleEndian: boolean,
  ): void {
    if (description.nativeMesgNum !== RECORD_NUM || description.nativeFieldNum === null) return;
    if (row >= this.#records.length) return;
    const target = RECORD_PROFILE.fields[description.nativeFieldNum];
    const slot = target === undefined ? undefined : RECORD_FIELD_SLOTS[target.name];
    if (target === undefined || slot === undefined || slot === SLOT_T) return;
    if (size < BASE_TYPE_SIZE[description.baseType]! || description.baseType === BaseType.STRING) return;
    const raw = readValue(this.#view, at, description.baseType, littleEndian);
    if (Number.isNaN(raw)) return;
    const value = scaled(raw, description.scale, description.offset);
    if (Number.isNaN(this.#records.channels[slot]![row]!))
      this.#records.set(slot, row, target.units === 'semicircles' ? value * SEMICIRCLES_TO_DEGREES : value);
  }
}

/** Sub-fields (FIT profile): the same bytes read as another field when a reference field has a given value. */
function resolveSubFields(
  message: FitMessage,
  profile: FitProfileMessage,
  rawByNum: Map<number, number>,
): void {
  for (const [num, raw] of rawByNum) {
    const profileField = profile.fields[num];
    if (profileField === undefined || profileField.subFields.length === 0) continue;
    for (const subField of profileField.subFields) {
      if (subField.when.some((condition) => rawByNum.get(condition.fieldNum) === condition.value)) {
        message[subField.name] = scaled(raw, subField.scale, subField.offset);
        break;
      }
    }
  }
}

function readValues(
  view: DataView,
  at: number,
  size: number,
  baseType: BaseType,
  littleEndian: boolean,
): number[] | null {
  const elementSize = BASE_TYPE_SIZE[baseType]!;
  if (size % elementSize !== 0) return null;
  const values: number[] = [];
  for (let offset = 0; offset < size; offset += elementSize) {
    values.push(readValue(view, at + offset, baseType, littleEndian));
  }
  return values;
}

function readString(bytes: Uint8Array, at: number, size: number): string {
  let end = at;
  while (end < at + size && bytes[end] !== 0) end++;
  return utf8.decode(bytes.subarray(at, end)).trim();
}

/**
 * The time of a compressed-timestamp header: the low five bits replace those of the last timestamp,
 * rolling over when they are smaller (FIT protocol, "Compressed Timestamp Header").
 */
function compressedTimestamp(last: number, offset: number): number {
  if (Number.isNaN(last)) return NaN;
  const base = last - (last % 32);
  const low = last % 32;
  return offset >= low ? base + offset : base + offset + 32;
}

/**
 * A raw value in the field's units: raw / scale - offset, computed as (raw - offset × scale) / scale so
 * that the one rounding is the division's: altitude 3891 reads 278.2, not 278.20000000000005.
 */
function scaled(raw: number, scale: number, offset: number): number {
  return (raw - offset * scale) / scale;
}

function developerKey(developerDataIndex: number, fieldNumber: number): number {
  return (developerDataIndex << 8) | fieldNumber;
}

/**
 * Writing the per-point text of a writer as ASCII bytes (issue 3, FIT → GPX at ≥ 30 MB/s): numbers,
 * times and tags go straight into a byte buffer, and each chunk becomes one flat string at the end.
 * Building the text by string concatenation cost a rope node per piece, the garbage of every number's
 * string, and flattening the rope again when the chunk was written out: three quarters of the time of
 * writing a GPX.
 *
 * The functions here write exactly the text of their string counterparts in text.ts (coordinateText,
 * numberText, isoTime); ascii.test.ts holds them to it.
 */
import { CHUNK_CHARACTERS, coordinateText, isoTime, numberText } from './text.js';

/**
 * The most bytes one point may take: seven numbers of at most 311 characters (plainDecimal of 1e308
 * written out in full, with a sign), a time of at most 27 ('+275760-09-13T00:00:00.000Z'), and the
 * tags around them (under 600 in GPX). Callers make sure of this much room before each point.
 */
export const POINT_BYTES = 4096;

const encoder = new TextEncoder();
// ASCII is UTF-8, and decoding it is the fast path of every TextDecoder (Node's and the browsers').
const decoder = new TextDecoder();

/** The bytes of a constant piece of ASCII text (the tags between a point's values). */
export function asciiBytes(text: string): Uint8Array {
  // Everything written through the byte buffer must be ASCII: one byte per character keeps the
  // chunk's length in characters what the buffer counts.
  if (!/^[\x20-\x7E\n]*$/.test(text)) throw new Error(`not printable ASCII: ${JSON.stringify(text)}`);
  return encoder.encode(text);
}

/** Copies `piece` into `bytes` at `at`; returns the position after it. */
export function writeBytes(bytes: Uint8Array, at: number, piece: Uint8Array): number {
  // One call, not a loop of byte stores: V8 checks the arrays again for every byte it stores in a loop.
  bytes.set(piece, at);
  return at + piece.length;
}

/**
 * Collects a writer's output, either as strings (headers, names: any text) or as ASCII written straight
 * into `bytes` from `length` on (points), and hands it out in chunks of about CHUNK_CHARACTERS
 * characters, so a writer can be a generator that never holds the whole document.
 */
export class AsciiChunkBuilder {
  /** Room for a chunk and one more point: a chunk is taken once it has reached CHUNK_CHARACTERS. */
  readonly bytes = new Uint8Array(CHUNK_CHARACTERS + POINT_BYTES);
  /** How much of `bytes` is written; writers advance it after writing into `bytes`. */
  length = 0;
  /** Text that came before the bytes. */
  #text = '';

  /** Appends any text (after whatever bytes have been written). */
  add(text: string): void {
    if (this.length > 0) this.#text += this.#takeBytes();
    this.#text += text;
  }

  /** A chunk when enough has been collected, else null. Writers call it after each point. */
  take(): string | null {
    return this.length + this.#text.length >= CHUNK_CHARACTERS ? this.flush() : null;
  }

  /** Whatever has been collected (possibly ''). */
  flush(): string {
    const chunk = this.length > 0 ? this.#text + this.#takeBytes() : this.#text;
    this.#text = '';
    return chunk;
  }

  #takeBytes(): string {
    const text = decoder.decode(this.bytes.subarray(0, this.length));
    this.length = 0;
    return text;
  }
}

/** Writes ASCII `text` (a number's or a time's string form) at `at`; returns the position after it. */
function writeText(bytes: Uint8Array, at: number, text: string): number {
  const n = text.length;
  for (let i = 0; i < n; i++) bytes[at + i] = text.charCodeAt(i);
  return at + n;
}

const ZERO = 48;
const MINUS = 45;
const POINT = 46;

/** How many decimal digits `n`, a whole number in [0, 2^31), has. */
function digitCount(n: number): number {
  if (n < 1e5) return n < 10 ? 1 : n < 100 ? 2 : n < 1e3 ? 3 : n < 1e4 ? 4 : 5;
  return n < 1e6 ? 6 : n < 1e7 ? 7 : n < 1e8 ? 8 : n < 1e9 ? 9 : 10;
}

/**
 * Writes the last `count` decimal digits of `n`, a whole number in [0, 2^31), with leading zeros; returns
 * the position after them. `| 0` keeps the arithmetic in int32 (a division by 10 becomes a multiplication).
 */
function writeDigits(bytes: Uint8Array, at: number, n: number, count: number): number {
  let rest = n | 0;
  const end = at + count;
  for (let i = end - 1; i >= at; i--) {
    const tenth = (rest / 10) | 0;
    bytes[i] = ZERO + rest - tenth * 10;
    rest = tenth;
  }
  return end;
}

const POWERS_OF_TEN = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
const INT32_MAX = 0x7fffffff;

/**
 * Writes `value` rounded to `places` (at most 9) decimals without trailing zeros, as text.ts's
 * fixedDecimals does; returns -1 (nothing written) when the whole part is too large for int32 digits.
 */
function writeFixed(bytes: Uint8Array, at: number, value: number, places: number): number {
  const scale = POWERS_OF_TEN[places]!;
  const negative = value < 0;
  const scaled = Math.round((negative ? -value : value) * scale);
  // Also false for NaN and infinities.
  if (!(scaled <= Number.MAX_SAFE_INTEGER)) return -1;
  const whole = Math.floor(scaled / scale);
  if (whole > INT32_MAX) return -1;
  // Exact (integers below 2^53), and below 10^9: an int32, so `%` and `/` stay integer operations.
  let fraction = (scaled - whole * scale) | 0;
  let p = at;
  if (negative && scaled !== 0) bytes[p++] = MINUS;
  p = writeDigits(bytes, p, whole, digitCount(whole));
  if (fraction === 0) return p;
  bytes[p++] = POINT;
  let digits = places;
  while (fraction % 10 === 0) {
    fraction = (fraction / 10) | 0;
    digits -= 1;
  }
  return writeDigits(bytes, p, fraction, digits);
}

/** coordinateText(degrees), written at `at`; returns the position after it. */
export function writeCoordinate(bytes: Uint8Array, at: number, degrees: number): number {
  const end = writeFixed(bytes, at, degrees, 9);
  return end >= 0 ? end : writeText(bytes, at, coordinateText(degrees));
}

/** numberText(value), written at `at`; returns the position after it. */
export function writeNumber(bytes: Uint8Array, at: number, value: number): number {
  if (Number.isInteger(value)) {
    // -0 is written '0', as String(-0) is.
    if (value > 0 && value <= INT32_MAX) return writeDigits(bytes, at, value, digitCount(value));
    if (value < 0 && value >= -INT32_MAX) {
      bytes[at] = MINUS;
      return writeDigits(bytes, at + 1, -value, digitCount(-value));
    }
    if (value === 0) {
      bytes[at] = ZERO;
      return at + 1;
    }
  } else if (Math.round(value * 1000) / 1000 === value) {
    // numberText's fast path: the three-decimal text reads back as exactly `value`.
    const end = writeFixed(bytes, at, value, 3);
    if (end >= 0) return end;
  }
  return writeText(bytes, at, numberText(value));
}

/** The minute of the last time written and its 'YYYY-MM-DDTHH:MM:' (points come a second apart). */
let cachedMinute = NaN;
let cachedMinutePrefix = new Uint8Array(0);

/** isoTime(seconds), written at `at`; returns the position after it. */
export function writeTime(bytes: Uint8Array, at: number, seconds: number): number {
  if (!Number.isInteger(seconds)) return writeText(bytes, at, isoTime(seconds));
  const minute = Math.floor(seconds / 60);
  if (minute !== cachedMinute) {
    const iso = isoTime(minute * 60);
    cachedMinutePrefix = encoder.encode(iso.slice(0, iso.lastIndexOf(':') + 1));
    cachedMinute = minute;
  }
  const p = writeBytes(bytes, at, cachedMinutePrefix);
  const second = seconds - minute * 60;
  const tens = (second / 10) | 0;
  bytes[p] = ZERO + tens;
  bytes[p + 1] = ZERO + second - tens * 10;
  bytes[p + 2] = 90; // 'Z'
  return p + 3;
}

import { Gunzip } from 'fflate';
import { RideFileError, RideFileErrorCode, RideFileWarningCode } from './errors.js';
import { pushInSlices } from './input-slices.js';
import type { Warning } from './model.js';
import type { StreamedBytes } from './streamed-bytes.js';

/** Default cap on gunzip output (docs/contributors/decisions.md §7: 256 MB after gunzip). */
export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** Whether `bytes` begin as a gzip stream does (magic 1f 8b, deflate). */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08;
}

/**
 * Gunzips `bytes`, refusing to produce more than `maxBytes` (RIDEFILE_TOO_LARGE). A stream that ends
 * early or turns corrupt after some output keeps that output with a warning: the ride read so far is
 * worth more than an error.
 */
export function gunzipBounded(bytes: Uint8Array, maxBytes: number, warnings: Warning[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  const { total, fault } = gunzipEach(bytes, maxBytes, (chunk) => chunks.push(chunk));
  sayFault(total, fault, warnings);
  return concat(chunks, total);
}

/**
 * gunzipBounded without holding the output (issue 36): the first `headBytes` or more gunzipped now,
 * for sniffing the format, and the whole gunzipped again a piece at a time each time it is walked,
 * under the same bound, with the same warning for a stream cut off or corrupt after some output. null
 * when nothing comes out at all: gunzipBounded then says why.
 */
export function gunzipStreamed(
  bytes: Uint8Array,
  maxBytes: number,
  headBytes: number,
  warnings: Warning[],
): StreamedBytes | null {
  const pieces: Uint8Array[] = [];
  let total = 0;
  const enough = new Error('head read');
  // A fault that stops the head's reading is the walk's to report, not the head's.
  try {
    gunzipEach(bytes, maxBytes, (piece) => {
      pieces.push(piece);
      total += piece.length;
      if (total >= headBytes) throw enough;
    });
  } catch (error) {
    if (error !== enough) throw error;
  }
  if (total === 0) return null;
  const head = concat(pieces, total);
  const said = saidLength(bytes);
  return {
    head,
    ...(said === null ? {} : { expectedLength: Math.min(said, maxBytes) }),
    each(take) {
      const walked = gunzipEach(bytes, maxBytes, take);
      sayFault(walked.total, walked.fault, warnings);
    },
  };
}

/**
 * What a gzip says it inflates to: its last four bytes, the length of its (last) member modulo 4 GiB
 * (RFC 1952, ISIZE). A hint, for sizing what is read from it; null when there is no such word.
 */
function saidLength(bytes: Uint8Array): number | null {
  if (bytes.length < 18) return null;
  const said = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(
    bytes.length - 4,
    true,
  );
  return said > 0 ? said : null;
}

/** A gunzip that stopped before its end: an error when nothing came out, else a warning. */
function sayFault(total: number, fault: GunzipFault | null, warnings: Warning[]): void {
  if (fault === null) return;
  const { reason, cause } = fault;
  if (total === 0) {
    throw new RideFileError(RideFileErrorCode.MALFORMED, `the gzip data is corrupt: ${reason}`, { cause });
  }
  warnings.push({
    code: RideFileWarningCode.TRUNCATED,
    message: `the gzip data ends early or is corrupt after ${total} bytes (${reason}); those bytes are read`,
  });
}

/** What stopped a gunzip before the end of its stream (cut off, corrupt), in words. */
interface GunzipFault {
  reason: string;
  cause: unknown;
}

/**
 * Gunzips `bytes` a slice at a time, handing each piece of output to `take` and keeping none of it,
 * and throws RIDEFILE_TOO_LARGE the moment the output passes `maxBytes`; what `take` throws passes as
 * it is. Returns how many bytes came out, and what stopped the stream before its end (cut off,
 * corrupt), or null. gunzipBounded keeps the pieces, gunzipStreamed hands them to a reader, and
 * inflatedSize (inflated-size.ts, issue 36) only counts them, so all count alike.
 */
export function gunzipEach(
  bytes: Uint8Array,
  maxBytes: number,
  take: (chunk: Uint8Array) => void,
): { total: number; fault: GunzipFault | null } {
  let total = 0;
  /** what `take` threw, passed on as it is: no fault of the gzip data */
  const fromTake = new Set<unknown>();
  const gunzip = new Gunzip((chunk) => {
    total += chunk.length;
    if (total > maxBytes) {
      throw new RideFileError(
        RideFileErrorCode.TOO_LARGE,
        `the file is larger than ${maxBytes} bytes once decompressed`,
      );
    }
    try {
      take(chunk);
    } catch (error) {
      fromTake.add(error);
      throw error;
    }
  });
  try {
    pushInSlices(gunzip, bytes);
  } catch (error) {
    if (error instanceof RideFileError || fromTake.has(error)) throw error;
    return { total, fault: { reason: error instanceof Error ? error.message : String(error), cause: error } };
  }
  return { total, fault: null };
}

/** The chunks joined into one array of `total` bytes (the one chunk itself when there is one). */
export function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

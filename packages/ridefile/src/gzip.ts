import { Gunzip } from 'fflate';
import { RideFileError, RideFileErrorCode, RideFileWarningCode } from './errors.js';
import { pushInSlices } from './input-slices.js';
import type { Warning } from './model.js';

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
  if (fault !== null) {
    const { reason, cause } = fault;
    if (total === 0) {
      throw new RideFileError(RideFileErrorCode.MALFORMED, `the gzip data is corrupt: ${reason}`, { cause });
    }
    warnings.push({
      code: RideFileWarningCode.TRUNCATED,
      message: `the gzip data ends early or is corrupt after ${total} bytes (${reason}); those bytes are read`,
    });
  }
  return concat(chunks, total);
}

/**
 * Gunzips `bytes` a slice at a time, handing each piece of output to `take` and keeping none of it,
 * and throws RIDEFILE_TOO_LARGE the moment the output passes `maxBytes`. Returns how many bytes came
 * out, and what stopped the stream before its end (cut off, corrupt), or null. gunzipBounded keeps
 * the pieces; inflatedSize (inflated-size.ts, issue 36) only counts them, so both count alike.
 */
export function gunzipEach(
  bytes: Uint8Array,
  maxBytes: number,
  take: (chunk: Uint8Array) => void,
): { total: number; fault: { reason: string; cause: unknown } | null } {
  let total = 0;
  const gunzip = new Gunzip((chunk) => {
    total += chunk.length;
    if (total > maxBytes) {
      throw new RideFileError(
        RideFileErrorCode.TOO_LARGE,
        `the file is larger than ${maxBytes} bytes once decompressed`,
      );
    }
    take(chunk);
  });
  try {
    pushInSlices(gunzip, bytes);
  } catch (error) {
    if (error instanceof RideFileError) throw error;
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

/**
 * What reading a file decompresses, counted without keeping it (issue 36, "Archives that cannot hurt
 * other riders"). parseRideFile holds a file to one budget, `maxBytes`, for everything it decompresses
 * together: gunzip's output and a KMZ's KML document. A server that splits an archive of rides into
 * one upload per ride counts this for each ride, against one budget for the whole archive, before a
 * single ride is parsed: a few megabytes of `.fit.gz` entries can no longer make gigabytes of work.
 */
import { RideFileError, RideFileErrorCode } from './errors.js';
import { concat, DEFAULT_MAX_BYTES, gunzipEach, isGzip } from './gzip.js';
import { kmzDocument } from './kmz.js';
import { isZip, quotedName, readZipEntries, type ZipEntry } from './zip.js';

/**
 * Gunzipped bytes kept from the end of a gzipped KMZ: room for the end record, a comment of any
 * length and the directory of any KMZ made by people's programs (a document and a few images). A
 * longer directory is read in a second pass that keeps the whole stream (still within `maxBytes`).
 */
const KMZ_TAIL_BYTES = 1024 * 1024;

/**
 * How many bytes parseRideFile decompresses to read `bytes`: gunzip's output for a gzip file, plus,
 * when the content is a ZIP (read as a KMZ), the size its KML document declares (the parser refuses a
 * document that declares more than is left of `maxBytes`, and stops one that inflates past what it
 * declares, so its declared size is what it may cost). 0 for a file read as it is.
 *
 * Throws `RIDEFILE_TOO_LARGE` the moment the count passes `maxBytes` (default 256 MB). Anything else
 * wrong with the file is the parser's to say: a stream cut off or corrupt counts what came out before
 * the fault, as the parser reads it; a ZIP without a readable directory or document counts nothing
 * more. Only the last megabyte of a gzipped KMZ is held; no other output is kept.
 */
export function inflatedSize(bytes: Uint8Array, maxBytes: number = DEFAULT_MAX_BYTES): number {
  if (!isGzip(bytes)) return isZip(bytes) ? withDocument(0, () => readZipEntries(bytes), maxBytes) : 0;
  const head: Uint8Array[] = [];
  let headBytes = 0;
  const tail: Uint8Array[] = [];
  let tailBytes = 0;
  const { total } = gunzipEach(bytes, maxBytes, (chunk) => {
    if (headBytes < 4) {
      head.push(chunk);
      headBytes += chunk.length;
    }
    tail.push(chunk);
    tailBytes += chunk.length;
    while (tail.length > 1 && tailBytes - tail[0]!.length >= KMZ_TAIL_BYTES) {
      tailBytes -= tail.shift()!.length;
    }
  });
  if (!isZip(concat(head, headBytes))) return total;
  return withDocument(
    total,
    () => {
      try {
        return readZipEntries(concat(tail, tailBytes), { offset: total - tailBytes });
      } catch (error) {
        if (tailBytes === total) throw error;
        // The directory begins before the kept tail: read the whole stream again, keeping it.
        const whole: Uint8Array[] = [];
        gunzipEach(bytes, maxBytes, (chunk) => whole.push(chunk));
        return readZipEntries(concat(whole, total));
      }
    },
    maxBytes,
  );
}

/**
 * `gunzipped` and the size of the KMZ document among `entries()`, refused past `maxBytes`; just
 * `gunzipped` when the archive's directory cannot be read or holds no document (the parser says why).
 */
function withDocument(gunzipped: number, entries: () => ZipEntry[], maxBytes: number): number {
  let document: ZipEntry | undefined;
  try {
    document = kmzDocument(entries());
  } catch (error) {
    if (error instanceof RideFileError) return gunzipped;
    throw error;
  }
  if (document === undefined) return gunzipped;
  const total = gunzipped + document.size;
  if (total > maxBytes) {
    throw new RideFileError(
      RideFileErrorCode.TOO_LARGE,
      `the file is larger than ${maxBytes} bytes once decompressed: its KML document, ${quotedName(document.name)}, declares ${document.size} bytes${gunzipped > 0 ? ` after ${gunzipped} bytes of gunzip` : ''}`,
    );
  }
  return total;
}

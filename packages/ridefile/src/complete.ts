import { Gunzip } from 'fflate';
import { SaxesParser } from 'saxes';
import { fitCrc } from './fit/crc.js';
import { crc32 } from './crc32.js';
import { concat, DEFAULT_MAX_BYTES, isGzip } from './gzip.js';
import type { RideFileFormat } from './model.js';
import { kmzDocument } from './kmz.js';
import { looksLikeFit, sniffFormat } from './sniff.js';
import { decodeXmlChunks, decodeXmlPrefix } from './xml/text.js';
import { isZip, readZipEntries, unzipEntry } from './zip.js';

/**
 * Whether a ride file is whole, for the sync engine (docs/contributors/architecture.md, "Sync engine": FIT completeness is
 * checked by its header size and CRC, not by waiting). A file still being written, or cut off when the
 * device was unplugged, is incomplete; the caller waits and looks again. Cheap: no point is built.
 */
export type Completeness = { complete: true; format: RideFileFormat } | { complete: false; reason: string };

/** Input is fed to gunzip in slices this big, as gzip.ts does, so a gzip bomb stops early. */
const GZIP_SLICE_BYTES = 16 * 1024;

/** The smallest gzip member: a 10-byte header, an (empty) deflate block of 2 bytes, an 8-byte trailer. */
const GZIP_MIN_MEMBER_BYTES = 20;

/**
 * Tells a whole FIT, TCX, GPX, KML or KMZ file (or a gzip of one) from one still being written or cut off.
 * Never throws, whatever the bytes.
 */
export function checkRideFileComplete(bytes: Uint8Array): Completeness {
  try {
    if (!(bytes instanceof Uint8Array)) return incomplete('expected the file as a Uint8Array');
    if (bytes.length === 0) return incomplete('the file is empty');
    return isGzip(bytes) ? checkGzip(bytes) : checkContent(bytes);
  } catch (error) {
    // Not expected; a bug here must not stop the sync engine, which uploads after a while anyway.
    const message = error instanceof Error ? error.message : String(error);
    return incomplete(`unexpected failure while checking the file: ${message}`);
  }
}

function incomplete(reason: string): Completeness {
  return { complete: false, reason };
}

/** Bytes that are not gzip (or are what a gzip holds). */
function checkContent(bytes: Uint8Array): Completeness {
  if (bytes.length === 0) return incomplete('the file is empty');
  if (looksLikeFit(bytes)) return checkFit(bytes);
  if (isZip(bytes)) return checkKmz(bytes);
  const format = sniffFormat(bytes);
  if (format !== null && format !== 'fit') return checkXml(bytes, format);
  if (bytes.length < 12 && (bytes[0] === 12 || bytes[0] === 14)) {
    return incomplete(`only ${bytes.length} bytes: not yet a whole FIT file header`);
  }
  if (/^\s*</.test(decodeXmlPrefix(bytes, 256))) {
    return incomplete('the XML has no GPX, TCX or KML root element (yet)');
  }
  return incomplete('the content is not a FIT, TCX, GPX, KML or KMZ file (nor a gzip of one)');
}

// ---------------------------------------------------------------------------------------------------
// FIT (FIT protocol, "File Header" and "CRC")

/**
 * Every FIT file of the (possibly chained) input must be whole: a 12- or 14-byte header with `.FIT`,
 * all the data its header declares, and the 2-byte file CRC over header and data matching.
 *
 * - The 14-byte header's own CRC is not checked: many devices write 0 there, and the file CRC covers
 *   the header bytes too, so a whole file with a wrong header CRC is still whole (the decoder warns).
 * - Data size 0 is written by recorders that fill it in when they close the file, and by some that
 *   never do (decoder.ts then reads to the end). So a file of only the header is "no data yet", and one
 *   with data is whole only when its last two bytes are the CRC of everything before them, as the file
 *   CRC of a closed file is. A file caught mid-write passes that by chance once in 65,536 looks.
 * - After the last whole file, zero bytes only are fine: decoder.ts ignores zero padding silently (some
 *   devices pad files to a block size). Any other trailing bytes make the input incomplete, although
 *   the decoder reads past them with a TRAILING_DATA warning: they are most likely the next chained
 *   file being appended, and the caller uploads anyway after a while.
 */
function checkFit(bytes: Uint8Array): Completeness {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let position = 0;
  let files = 0;
  while (position < bytes.length) {
    if (files > 0 && isZeroPadding(bytes, position)) break;
    const where = files === 0 ? 'the FIT file' : `the chained FIT file at byte ${position}`;
    const remaining = bytes.length - position;
    const size = bytes[position]!;
    if (remaining < 12 || remaining < size) {
      if (files > 0 && size !== 12 && size !== 14) return trailingData(bytes, position);
      return incomplete(`${where} ends inside its header (${remaining} bytes)`);
    }
    if (!looksLikeFit(bytes.subarray(position, position + 12))) {
      return files === 0 ? incomplete('the FIT file header is damaged') : trailingData(bytes, position);
    }
    const dataStart = position + size;
    const dataSize = view.getUint32(position + 4, true);

    if (dataSize === 0) {
      const end = bytes.length - 2;
      if (end <= dataStart) return incomplete(`${where} has a header but no data yet`);
      if (view.getUint16(end, true) !== fitCrc(bytes, position, end)) {
        return incomplete(
          `${where} declares no data size and does not end in its CRC: it is still being written, or damaged`,
        );
      }
      files += 1;
      break;
    }

    const dataEnd = dataStart + dataSize;
    if (dataEnd > bytes.length) {
      return incomplete(
        `${where} declares ${dataSize} bytes of data but holds only ${bytes.length - dataStart}`,
      );
    }
    if (dataEnd + 2 > bytes.length) {
      return incomplete(`${where} lacks ${dataEnd + 2 - bytes.length} of the 2 bytes of its file CRC`);
    }
    if (view.getUint16(dataEnd, true) !== fitCrc(bytes, position, dataEnd)) {
      return incomplete(`the file CRC of ${where} does not match its content`);
    }
    position = dataEnd + 2;
    files += 1;
  }
  return { complete: true, format: 'fit' };
}

function trailingData(bytes: Uint8Array, position: number): Completeness {
  return incomplete(
    `${bytes.length - position} bytes after the FIT file ending at byte ${position} are neither a whole chained FIT file nor zero padding`,
  );
}

function isZeroPadding(bytes: Uint8Array, from: number): boolean {
  for (let i = from; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------------
// XML (TCX, GPX, KML)

/** Thrown from the error handler: the first XML error decides, the rest of the input is not read. */
class StopAtFirstError extends Error {}

const LEADING_WHITESPACE = /^[ \t\r\n]+/;

const FORMAT_NAMES: Record<RideFileFormat, string> = {
  fit: 'FIT',
  tcx: 'TCX',
  gpx: 'GPX',
  kml: 'KML',
  kmz: 'KMZ',
};

/**
 * Well formed to the end: the whole document goes through saxes (plain, no fast paths: this is a check
 * of saxes' own verdict), the root element must close, and only whitespace, comments and processing
 * instructions may follow it (saxes reports anything else as an error). Any XML error counts as
 * incomplete, with saxes' message: a malformed file cannot be told from a half-written one here, and
 * the caller uploads it after a while anyway, when the server reports the error.
 *
 * DOCTYPE entity declarations are never expanded, as in sax.ts: saxes does not process the internal
 * subset at all and knows only the five predefined entities (we never add to `ENTITIES`); a reference
 * to a declared entity is an "undefined entity" error, so a billion-laughs file costs nothing.
 */
function checkXml(bytes: Uint8Array, format: RideFileFormat): Completeness {
  const name = FORMAT_NAMES[format];
  // xmlns off: no namespace processing needed to judge completeness, and it costs on every element.
  const parser = new SaxesParser({ xmlns: false, position: true });
  /** the open elements, root first, while no error has happened */
  const open: string[] = [];
  // These three are assigned in the callbacks, which the checker cannot see running.
  let sawRoot = false as boolean;
  let firstError = null as string | null;
  /** whether the first error came at the end of the input (from `close`), not within it */
  let errorAtEnd = false as boolean;
  let closing = false;
  parser.on('opentag', (tag) => {
    sawRoot = true;
    open.push(tag.name);
  });
  parser.on('closetag', () => {
    open.pop();
  });
  parser.on('error', (error) => {
    firstError = error.message;
    errorAtEnd = closing;
    throw new StopAtFirstError();
  });
  try {
    let leading = true;
    decodeXmlChunks(bytes, (chunk) => {
      if (leading) {
        // Whitespace before the XML declaration is an error to saxes, but sniff.ts accepts it, writers
        // do put it there, and it says nothing about the end of the file; so it is skipped (line numbers
        // in saxes' messages then count from the first other character).
        chunk = chunk.replace(LEADING_WHITESPACE, '');
        if (chunk.length === 0) return;
        leading = false;
      }
      parser.write(chunk);
    });
    closing = true;
    parser.close();
  } catch (error) {
    if (!(error instanceof StopAtFirstError)) throw error;
  }

  if (firstError === null && sawRoot && open.length === 0) return { complete: true, format };
  const parserSays = firstError === null ? '' : ` (${firstError})`;
  // An error within the input is not a cut: saxes waits for more input at a cut, and says so at the end.
  if (firstError !== null && !errorAtEnd) return incomplete(`the ${name} is not well formed${parserSays}`);
  if (!sawRoot) return incomplete(`the ${name} ends before its root element${parserSays}`);
  if (open.length > 0) {
    const root = open[0]!;
    const innermost = open[open.length - 1]!;
    const inside = open.length > 1 ? `, inside <${innermost}>,` : '';
    return incomplete(`the ${name} ends${inside} before its root element </${root}> is closed${parserSays}`);
  }
  return incomplete(`the ${name} is not well formed${parserSays}`);
}

// ---------------------------------------------------------------------------------------------------
// KMZ (kmz.ts)

/**
 * Whole when the archive's directory, which ZIP writers put last, is there, its KML document
 * decompresses to its recorded size and CRC-32, and that KML is whole by the XML rules above.
 */
function checkKmz(bytes: Uint8Array): Completeness {
  let kml: Uint8Array;
  try {
    const document = kmzDocument(readZipEntries(bytes));
    if (document === undefined) return incomplete('the ZIP archive holds no .kml file (yet)');
    kml = unzipEntry(bytes, document, DEFAULT_MAX_BYTES);
  } catch (error) {
    return incomplete(error instanceof Error ? error.message : String(error));
  }
  const inner = sniffFormat(kml) === 'kml' ? checkXml(kml, 'kml') : incomplete('it is not a KML document');
  return inner.complete
    ? { complete: true, format: 'kmz' }
    : incomplete(`the KMZ's KML document is incomplete: ${inner.reason}`);
}

// ---------------------------------------------------------------------------------------------------
// gzip (RFC 1952)

class TooLarge extends Error {}

/**
 * Whole when every gzip member is whole and what it holds is complete by the rules above. fflate's
 * Gunzip checks neither the CRC-32 nor the size in a member's trailer, and reports no error when the
 * trailer (or the end of a header) is missing, so both are checked here against the output of each
 * member (its start is reported by `onmember`). gunzipBounded (gzip.ts) does not fit: it hides member
 * boundaries and keeps partial output; the output is bounded the same way, by DEFAULT_MAX_BYTES.
 */
function checkGzip(bytes: Uint8Array): Completeness {
  const chunks: Uint8Array[] = [];
  let total = 0;
  /** per member: where it starts in the input, CRC-32 and size of its output */
  const members: Array<{ start: number; crc: number; size: number }> = [{ start: 0, crc: 0, size: 0 }];
  const gunzip = new Gunzip((chunk) => {
    total += chunk.length;
    if (total > DEFAULT_MAX_BYTES) throw new TooLarge();
    const member = members[members.length - 1]!;
    member.crc = crc32(member.crc, chunk);
    member.size += chunk.length;
    chunks.push(chunk);
  });
  gunzip.onmember = (offset) => {
    members.push({ start: offset, crc: 0, size: 0 });
  };

  try {
    for (let start = 0; start < bytes.length; start += GZIP_SLICE_BYTES) {
      const end = Math.min(start + GZIP_SLICE_BYTES, bytes.length);
      gunzip.push(bytes.subarray(start, end), end === bytes.length);
    }
  } catch (error) {
    if (error instanceof TooLarge) {
      return incomplete(`the file is larger than ${DEFAULT_MAX_BYTES} bytes once decompressed`);
    }
    const message = error instanceof Error ? error.message : String(error);
    return incomplete(`the gzip data ends early or is corrupt after ${total} bytes (${message})`);
  }

  for (let i = 0; i < members.length; i++) {
    const member = members[i]!;
    const end = members[i + 1]?.start ?? bytes.length;
    if (end - member.start < GZIP_MIN_MEMBER_BYTES) {
      return incomplete(`the gzip data ends early (${end - member.start} bytes of a member)`);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset + end - 8, 8);
    if (view.getUint32(0, true) !== member.crc || view.getUint32(4, true) !== member.size >>> 0) {
      return incomplete(
        `the gzip trailer does not match the ${member.size} bytes decompressed: the data ends early or is corrupt`,
      );
    }
  }

  const content = concat(chunks, total);
  if (content.length === 0) return incomplete('the file is empty once decompressed');
  const inner = isGzip(content)
    ? incomplete('the gzip holds another gzip, which is not read')
    : checkContent(content);
  return inner.complete ? inner : incomplete(`the gzip's content is incomplete: ${inner.reason}`);
}

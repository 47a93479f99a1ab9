/**
 * Reading ZIP archives (PKWARE APPNOTE 6.3.10): KMZ files (a KML and its images, issue 20) and, on the
 * server, bulk exports of ride files. fflate inflates; the directory is read here because fflate's
 * `unzipSync` neither says whether an entry is encrypted nor bounds what an entry inflates to by
 * anything but the size the archive claims (a lying zip bomb would then burn CPU to the end of its
 * data). Here the central directory, which is written last, decides what the archive holds, and an
 * entry's output is stopped at the smaller of its declared size and `maxBytes`, then checked against
 * its size and CRC-32.
 */
import { Inflate } from 'fflate';
import { crc32 } from './crc32.js';
import { RideFileError, RideFileErrorCode } from './errors.js';
import { boundedMessage } from './file-text.js';
import { concat } from './gzip.js';
import { pushInSlices } from './input-slices.js';

/** One file (or folder) of an archive, as its central directory describes it. */
export interface ZipEntry {
  /** the path inside the archive, `/`-separated (a folder's ends with `/`) */
  name: string;
  /** a folder, not a file */
  directory: boolean;
  /** password-protected (traditional PKWARE or AES encryption): never read */
  encrypted: boolean;
  /** 0 stored, 8 deflate; others are refused when the entry is read */
  method: number;
  /** bytes once decompressed, as the archive declares */
  size: number;
  compressedSize: number;
  crc32: number;
  /** where the entry's local header starts */
  localHeaderOffset: number;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const END_OF_DIRECTORY_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
const CENTRAL_HEADER_BYTES = 46;
const LOCAL_HEADER_BYTES = 30;
const ZIP64_EXTRA_ID = 0x0001;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_UTF8_NAME = 0x0800;
/** WinZip AES: the method that marks an AES-encrypted entry (APPNOTE 4.4.5, "99 - AE-x") */
const METHOD_AES = 99;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;

/** Whether `bytes` begin as a ZIP archive does: a local file header, or the end record of an empty one. */
export function isZip(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const signature = readUint32(bytes, 0);
  return signature === LOCAL_HEADER || signature === END_OF_DIRECTORY;
}

/**
 * The most characters of an entry's name a message quotes (issue 36: an entry may be named with 65,535
 * bytes, and a server lists the messages of hundreds of entries).
 */
export const QUOTED_NAME_MAX_CHARS = 255;

/** An entry's name in quotes, for a message: cleaned and cut as a file's texts are (file-text.ts). */
export function quotedName(name: string): string {
  return `"${boundedMessage(name, QUOTED_NAME_MAX_CHARS)}"`;
}

function corrupt(why: string): RideFileError {
  return new RideFileError(RideFileErrorCode.MALFORMED, `the ZIP archive is corrupt or cut off: ${why}`);
}

/**
 * Entries an archive may declare before it is refused unread (issue 36: millions of empty entries in a
 * small archive took seconds and more than a gigabyte to list). A KMZ holds a document and a few images;
 * a bulk export of ride files holds at most 10,000 files and their folders.
 */
export const DEFAULT_MAX_ZIP_ENTRIES = 20_000;

/**
 * The entries of the archive in their directory's order. Throws `RIDEFILE_MALFORMED` for an archive
 * whose directory is missing (cut off), points outside the bytes, or spans several disks, and
 * `RIDEFILE_TOO_LARGE` when its end record declares more than `maxEntries` entries: the count is
 * checked before a single entry is read.
 *
 * `offset`: where `bytes` begin in the archive when they are only its end, the part that holds the
 * directory (whose records name places from the archive's start; the entries' `localHeaderOffset`
 * stays so). A directory that begins before `offset` is `RIDEFILE_MALFORMED` too. Issue 36: the size
 * of a gzipped KMZ's document is read from the last bytes of its stream, without keeping the rest.
 */
export function readZipEntries(
  bytes: Uint8Array,
  { maxEntries = DEFAULT_MAX_ZIP_ENTRIES, offset = 0 }: { maxEntries?: number; offset?: number } = {},
): ZipEntry[] {
  const end = findEndOfDirectory(bytes);
  let count = readUint16(bytes, end + 10);
  let directorySize = readUint32(bytes, end + 12);
  let directoryOffset = readUint32(bytes, end + 16) - offset;
  if (readUint16(bytes, end + 4) !== 0 || readUint16(bytes, end + 6) !== 0) {
    throw corrupt('it is split across several files (a spanned archive), which is not read');
  }
  const locator = end - 20;
  if (locator >= 0 && readUint32(bytes, locator) === ZIP64_LOCATOR) {
    const zip64End = readUint64(bytes, locator + 8) - offset;
    if (
      zip64End < 0 ||
      zip64End + 56 > bytes.length ||
      readUint32(bytes, zip64End) !== ZIP64_END_OF_DIRECTORY
    ) {
      throw corrupt('its ZIP64 end record is missing');
    }
    count = readUint64(bytes, zip64End + 32);
    directorySize = readUint64(bytes, zip64End + 40);
    directoryOffset = readUint64(bytes, zip64End + 48) - offset;
  }
  if (directoryOffset < 0) throw corrupt('its directory begins before the bytes given');
  if (directoryOffset + directorySize > bytes.length) {
    throw corrupt('its directory lies beyond the end of the file');
  }
  if (count > maxEntries) {
    throw new RideFileError(
      RideFileErrorCode.TOO_LARGE,
      `the ZIP archive declares ${count} entries, more than the ${maxEntries} that are read: split it into smaller archives`,
    );
  }
  // Each entry takes at least CENTRAL_HEADER_BYTES, so a count the directory cannot hold is a lie.
  if (count * CENTRAL_HEADER_BYTES > directorySize) {
    throw corrupt(`its directory is too short for the ${count} entries it claims`);
  }

  const entries: ZipEntry[] = [];
  let at = directoryOffset;
  const directoryEnd = directoryOffset + directorySize;
  for (let i = 0; i < count; i++) {
    if (at + CENTRAL_HEADER_BYTES > directoryEnd || readUint32(bytes, at) !== CENTRAL_HEADER) {
      throw corrupt(`entry ${i + 1} of its directory is missing`);
    }
    const flags = readUint16(bytes, at + 8);
    const method = readUint16(bytes, at + 10);
    const nameLength = readUint16(bytes, at + 28);
    const extraLength = readUint16(bytes, at + 30);
    const commentLength = readUint16(bytes, at + 32);
    const next = at + CENTRAL_HEADER_BYTES + nameLength + extraLength + commentLength;
    if (next > directoryEnd) throw corrupt(`entry ${i + 1} of its directory runs past the directory`);
    const nameBytes = bytes.subarray(at + CENTRAL_HEADER_BYTES, at + CENTRAL_HEADER_BYTES + nameLength);
    const name = decodeName(nameBytes, (flags & FLAG_UTF8_NAME) !== 0).replace(/\\/g, '/');
    const sizes = zip64Sizes(
      bytes.subarray(
        at + CENTRAL_HEADER_BYTES + nameLength,
        at + CENTRAL_HEADER_BYTES + nameLength + extraLength,
      ),
      {
        size: readUint32(bytes, at + 24),
        compressedSize: readUint32(bytes, at + 20),
        localHeaderOffset: readUint32(bytes, at + 42),
      },
    );
    entries.push({
      name,
      directory: name.endsWith('/'),
      encrypted: (flags & FLAG_ENCRYPTED) !== 0 || method === METHOD_AES,
      method,
      crc32: readUint32(bytes, at + 16),
      ...sizes,
    });
    at = next;
  }
  return entries;
}

/** The end of central directory record, searched back from the end past a comment of any length. */
function findEndOfDirectory(bytes: Uint8Array): number {
  const last = bytes.length - END_OF_DIRECTORY_BYTES;
  const first = Math.max(0, last - MAX_COMMENT_BYTES);
  for (let at = last; at >= first; at--) {
    if (readUint32(bytes, at) === END_OF_DIRECTORY) return at;
  }
  throw corrupt('its directory, written at the end, is missing (the file may have been cut off)');
}

/** Sizes and offset that did not fit 32 bits are in the ZIP64 extra field, in this order (APPNOTE 4.5.3). */
function zip64Sizes(
  extra: Uint8Array,
  sizes: { size: number; compressedSize: number; localHeaderOffset: number },
): { size: number; compressedSize: number; localHeaderOffset: number } {
  const wanted = (['size', 'compressedSize', 'localHeaderOffset'] as const).filter(
    (key) => sizes[key] === 0xffffffff,
  );
  if (wanted.length === 0) return sizes;
  for (let at = 0; at + 4 <= extra.length;) {
    const id = readUint16(extra, at);
    const length = readUint16(extra, at + 2);
    if (id === ZIP64_EXTRA_ID) {
      const out = { ...sizes };
      wanted.forEach((key, index) => {
        const offset = at + 4 + index * 8;
        if (offset + 8 > at + 4 + length || offset + 8 > extra.length) {
          throw corrupt('an entry lacks the ZIP64 sizes it announces');
        }
        out[key] = readUint64(extra, offset);
      });
      return out;
    }
    at += 4 + length;
  }
  throw corrupt('an entry lacks the ZIP64 sizes it announces');
}

/**
 * The entry's bytes, decompressed. Throws `RIDEFILE_ENCRYPTED` for a password-protected entry,
 * `RIDEFILE_TOO_LARGE` when it declares more than `maxBytes` once decompressed, `RIDEFILE_UNKNOWN_FORMAT` for a compression method other than
 * stored and deflate, and `RIDEFILE_MALFORMED` when its data is cut off, corrupt, inflates to more than it declares (a zip
 * bomb that hides its size stops there) or fails its CRC-32.
 */
export function unzipEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number): Uint8Array {
  const pieces: Uint8Array[] = [];
  let total = 0;
  unzipEntryEach(bytes, entry, maxBytes, (piece) => {
    pieces.push(piece);
    total += piece.length;
  });
  return concat(pieces, total);
}

/**
 * unzipEntry a piece at a time: each piece of the entry's decompressed bytes goes to `take` as it
 * comes, and none is kept here, under the same checks (the size and CRC-32 once the data ends, so the
 * last piece is not yet known to be good when `take` gets it). A server can so hash an entry of
 * hundreds of megabytes without holding it whole (issue 36). An error `take` throws passes as it is.
 */
export function unzipEntryEach(
  bytes: Uint8Array,
  entry: ZipEntry,
  maxBytes: number,
  take: (piece: Uint8Array) => void,
): void {
  if (entry.encrypted) {
    throw new RideFileError(
      RideFileErrorCode.ENCRYPTED,
      `${quotedName(entry.name)} in the ZIP archive is encrypted (password-protected), and encrypted entries are not read`,
    );
  }
  if (entry.size > maxBytes) {
    throw new RideFileError(
      RideFileErrorCode.TOO_LARGE,
      `${quotedName(entry.name)} in the ZIP archive is ${entry.size} bytes once decompressed, more than the limit of ${maxBytes}`,
    );
  }
  if (entry.method !== METHOD_STORED && entry.method !== METHOD_DEFLATE) {
    throw new RideFileError(
      RideFileErrorCode.UNKNOWN_FORMAT,
      `${quotedName(entry.name)} in the ZIP archive is compressed with method ${entry.method}; only stored and deflate entries are read`,
    );
  }
  const data = entryData(bytes, entry);
  let total = 0;
  let crc = 0;
  /** what `take` threw, passed on as it is */
  const fromTake = new Set<unknown>();
  const give = (piece: Uint8Array): void => {
    total += piece.length;
    if (total > entry.size) {
      throw corrupt(`${quotedName(entry.name)} holds more than the ${entry.size} bytes it declares`);
    }
    crc = crc32(crc, piece);
    try {
      take(piece);
    } catch (error) {
      fromTake.add(error);
      throw error;
    }
  };
  if (entry.method === METHOD_STORED) {
    give(data);
  } else {
    try {
      pushInSlices(new Inflate(give), data);
    } catch (error) {
      if (error instanceof RideFileError || fromTake.has(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw corrupt(`the data of ${quotedName(entry.name)} cannot be decompressed (${reason})`);
    }
  }
  if (total !== entry.size || crc !== entry.crc32) {
    throw corrupt(`${quotedName(entry.name)} does not match its recorded size and checksum`);
  }
}

/** The gzip header (RFC 1952 §2.3): deflate, no flags, no time, no extra fields, "unknown" system. */
const GZIP_HEADER = [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff];

/**
 * A deflated entry as a gzip file (RFC 1952) of the same content, without decompressing anything: a
 * gzip member's data is a raw deflate stream as a ZIP entry's is, so the entry's data goes between a
 * gzip header and a trailer of its CRC-32 and size. null for a stored entry (its data is the file
 * itself). It trusts the entry's CRC-32 and size: wrap only an entry unzipEntry or unzipEntryEach has
 * read without error. A server keeps an archive's rides so, as small as they came (issue 36).
 */
export function zipEntryGzip(bytes: Uint8Array, entry: ZipEntry): Uint8Array | null {
  if (entry.method !== METHOD_DEFLATE) return null;
  const data = entryData(bytes, entry);
  const out = new Uint8Array(GZIP_HEADER.length + data.length + 8);
  out.set(GZIP_HEADER);
  out.set(data, GZIP_HEADER.length);
  const trailer = new DataView(out.buffer, GZIP_HEADER.length + data.length);
  trailer.setUint32(0, entry.crc32, true);
  // ISIZE: the size modulo 2^32
  trailer.setUint32(4, entry.size % 0x100000000, true);
  return out;
}

function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const at = entry.localHeaderOffset;
  if (at + LOCAL_HEADER_BYTES > bytes.length || readUint32(bytes, at) !== LOCAL_HEADER) {
    throw corrupt(`the data of ${quotedName(entry.name)} is missing`);
  }
  const start = at + LOCAL_HEADER_BYTES + readUint16(bytes, at + 26) + readUint16(bytes, at + 28);
  if (start + entry.compressedSize > bytes.length) {
    throw corrupt(`the data of ${quotedName(entry.name)} runs past the end of the file`);
  }
  return bytes.subarray(start, start + entry.compressedSize);
}

/** Names are UTF-8 when flagged so, else IBM code page 437, read here as Latin-1 (close for letters). */
function decodeName(bytes: Uint8Array, utf8: boolean): string {
  return new TextDecoder(utf8 ? 'utf-8' : 'latin1').decode(bytes);
}

function readUint16(bytes: Uint8Array, at: number): number {
  return at + 2 <= bytes.length ? bytes[at]! | (bytes[at + 1]! << 8) : -1;
}

function readUint32(bytes: Uint8Array, at: number): number {
  return at >= 0 && at + 4 <= bytes.length
    ? (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0
    : -1;
}

/** A 64-bit size; past 2^53 it is no size a file here can have, and reads as Infinity (refused later). */
function readUint64(bytes: Uint8Array, at: number): number {
  const low = readUint32(bytes, at);
  const high = readUint32(bytes, at + 4);
  if (low < 0 || high < 0) return Number.POSITIVE_INFINITY;
  return high >= 0x200000 ? Number.POSITIVE_INFINITY : high * 0x100000000 + low;
}

/**
 * ZIP uploads of several rides (issue 20, "Bulk and phone exports"): Strava's bulk export
 * (`activities/*.fit.gz`, `*.gpx`, `*.tcx`) and archives people make of a folder of rides. Each ride
 * file in the archive becomes a task of its own (legacy/upload-intake.ts), so each is read, checked for duplicates
 * and reported exactly as if it had been uploaded alone. Other entries are skipped and listed in words.
 *
 * Which uploads are archives of rides, in one place (archiveOfRides): a ZIP, or a gzip whose content is
 * a ZIP (`export.zip.gz`), unwrapped here first; and of those, not a KMZ. A KMZ is a ZIP too, and is
 * one ride: an archive whose only ride file is a `.kml`, its document, goes through the ordinary path,
 * where the parser reads it (ridefile's kmz.ts), as does a `.kmz.gz`.
 *
 * Bounds (docs/contributors/decisions.md §7, a zip bomb; issue 36, archives that cannot hurt other
 * riders): one inflated budget per upload, the gunzip limit (256 MB), for everything the upload
 * decompresses at every depth: the gunzip of a `.zip.gz`, the ride entries' declared sizes (each
 * entry stopped when it inflates past them, ridefile's unzipEntryEach), and what each `.gz` or `.kmz`
 * entry decompresses to when the parser reads it (ridefile's inflatedSize, counted here as it
 * inflates and stopped the moment the budget is spent). So the rides' tasks together never make the
 * parse pool decompress more than one upload's limit. The count of entries is checked from the
 * archive's end record before any entry is listed (ridefile's readZipEntries), and at most
 * MAX_ARCHIVE_FILES files. The answer names at most MAX_SKIPPED_LISTED skipped entries, each name cut
 * to SKIPPED_NAME_MAX_CHARS, and counts the rest: hundreds of long names made answers of hundreds of
 * megabytes.
 *
 * It runs in a worker thread of the upload queue's pool (unzip-worker.ts, issue 20): unzipping is CPU
 * work in proportion to the archive, which the main thread, answering requests, should not spend.
 */
import { createHash } from 'node:crypto';
import { constants, gunzipSync } from 'node:zlib';
import {
  inflatedSize,
  isGzip,
  isRideFileError,
  isZip,
  kmzDocument,
  readZipEntries,
  RIDE_FILE_EXTENSION,
  RideFileErrorCode,
  unzipEntryEach,
  zipEntryGzip,
  type ZipEntry,
} from '@rideport/ridefile';
import { ServerError, ServerErrorCode, badRequest } from '../errors.js';
import { cutWithEllipsis } from '../store/text-limits.js';

/** ZipEntry.method of an entry stored as it is, not compressed */
const ZIP_METHOD_STORED = 0;

/** The first bytes of a file that say whether it is gzip or a ZIP (ridefile's isGzip, isZip). */
const SIGNATURE_BYTES = 4;

/** Compressed bytes of a gzip upload inflated to see whether a ZIP is inside. */
const GZIP_PEEK_BYTES = 16 * 1024;

/** Files one archive may hold, ride files or not (Strava's exports of a decade of rides hold fewer). */
export const MAX_ARCHIVE_FILES = 10_000;

/** Skipped entries named in a message; the answer's `skipped` lists more. */
const NAMED_IN_MESSAGE = 5;

/** Skipped entries listed in the answer; `skipped_count` counts them all. */
export const MAX_SKIPPED_LISTED = 100;

/** Characters of a skipped entry's name, and of its reason, kept in the answer. */
export const SKIPPED_NAME_MAX_CHARS = 200;
const SKIPPED_REASON_MAX_CHARS = 400;

/**
 * One ride file of the archive, as it is kept for its task: a deflated entry as gzip, its compressed
 * data unchanged (ridefile's zipEntryGzip), so a ride that inflates to 250 MB is kept, written and
 * read as the 256 KB it came as (issue 36); a stored entry, or one that is itself compressed (a
 * `.fit.gz`, a `.kmz`, which the parser unwraps), as the file itself.
 */
export interface ArchiveRide {
  /** its path inside the archive */
  path: string;
  bytes: Buffer;
  /** the SHA-256 of the file itself, as if it had been uploaded alone (docs/contributors/decisions.md §5) */
  sha256: string;
  /** when `bytes` are the file gzipped here: the file's own length; null when they are the file */
  unzippedLength: number | null;
}

/** An entry that became no task, and why, in words. */
export interface SkippedEntry {
  name: string;
  reason: string;
}

export interface BulkArchive {
  rides: ArchiveRide[];
  /** the first MAX_SKIPPED_LISTED entries that became no task, names and reasons cut */
  skipped: SkippedEntry[];
  /** how many entries became no task, listed or not */
  skippedCount: number;
}

/**
 * The rides of an upload that is an archive of ride files; null when the upload is one ride (not a
 * ZIP, or a KMZ). Throws a 400 ServerError for a corrupt archive and for one without a ride file, and 413
 * when it holds too many files or too many bytes once decompressed.
 */
export function bulkArchiveOf(upload: Buffer, maxBytes: number): BulkArchive | null {
  const bytes = zipOf(upload, maxBytes);
  if (bytes === null) return null;
  let entries: ZipEntry[];
  try {
    entries = readZipEntries(bytes);
  } catch (error) {
    if (isRideFileError(error) && error.code === RideFileErrorCode.TOO_LARGE) {
      throw new ServerError(ServerErrorCode.PAYLOAD_TOO_LARGE, error.message);
    }
    if (isRideFileError(error)) throw badRequest(error.message);
    throw error;
  }
  const files = entries.filter((entry) => !entry.directory);
  if (files.length > MAX_ARCHIVE_FILES) {
    throw new ServerError(
      ServerErrorCode.PAYLOAD_TOO_LARGE,
      `the ZIP archive holds ${files.length} files, more than the ${MAX_ARCHIVE_FILES} one upload may hold: split it into smaller archives`,
    );
  }
  const rideFiles = files.filter(isRideEntry);
  if (isKmz(entries, rideFiles)) return null;

  // The one budget: a .zip.gz's gunzip first, then every ride entry as it declares itself.
  let spent = bytes === upload ? 0 : bytes.length;
  spent += rideFiles.reduce((sum, entry) => sum + entry.size, 0);
  if (spent > maxBytes) throw overBudget(spent, maxBytes);
  const skipped = new SkippedList();
  for (const entry of files) if (!isRideEntry(entry)) skipped.add(entry.name, notARideReason(entry));
  const rides: ArchiveRide[] = [];
  for (const entry of rideFiles) {
    let ride: ArchiveRide;
    try {
      ride = keptRide(bytes, entry, maxBytes);
    } catch (error) {
      if (!isRideFileError(error) || error.code === RideFileErrorCode.INTERNAL) throw error;
      skipped.add(entry.name, error.message);
      continue;
    }
    if (ride.unzippedLength === null) spent += nestedInflation(ride.bytes, maxBytes - spent, maxBytes);
    rides.push(ride);
  }
  if (rides.length === 0) {
    throw badRequest(
      `the ZIP archive holds no ride file that can be read (FIT, TCX, GPX, KML or KMZ, or a .gz of one)${
        skipped.count === 0 ? '' : `: ${skippedWords(skipped.listed, skipped.count)}`
      }`,
    );
  }
  return { rides, skipped: skipped.listed, skippedCount: skipped.count };
}

/**
 * One ride entry read through once, a piece at a time (ridefile's unzipEntryEach checks its size and
 * CRC-32), for its SHA-256, and kept as ArchiveRide says. Only a file that is itself compressed, or
 * stored in the archive as it is, is held whole here: a deflated one is kept as its compressed data.
 */
function keptRide(archive: Buffer, entry: ZipEntry, maxBytes: number): ArchiveRide {
  const hash = createHash('sha256');
  const pieces: Uint8Array[] = [];
  let held = 0;
  /** whether the file is gzip or a ZIP itself, once its first bytes have come */
  let compressedFile = null as boolean | null;
  unzipEntryEach(archive, entry, maxBytes, (piece) => {
    hash.update(piece);
    if (compressedFile === false && entry.method !== ZIP_METHOD_STORED) return;
    pieces.push(piece);
    held += piece.length;
    if (compressedFile === null && (held >= SIGNATURE_BYTES || held === entry.size)) {
      const start = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
      compressedFile = isGzip(start) || isZip(start);
    }
  });
  const sha256 = hash.digest('hex');
  const wrapped = compressedFile === true ? null : zipEntryGzip(archive, entry);
  if (wrapped !== null) {
    const bytes = Buffer.from(wrapped.buffer, wrapped.byteOffset, wrapped.byteLength);
    return { path: entry.name, bytes, sha256, unzippedLength: entry.size };
  }
  // Copied: a stored entry's piece is a view of the whole archive.
  return { path: entry.name, bytes: Buffer.concat(pieces, held), sha256, unzippedLength: null };
}

/**
 * What the parser will decompress to read one ride entry (a `.gz`'s gunzip, a KMZ's document),
 * counted against what is left of the upload's budget: 413 the moment it passes.
 */
function nestedInflation(content: Buffer, left: number, maxBytes: number): number {
  if (!isGzip(content) && !isZip(content)) return 0;
  try {
    return inflatedSize(content, left);
  } catch (error) {
    if (isRideFileError(error) && error.code === RideFileErrorCode.TOO_LARGE) {
      throw overBudget(null, maxBytes);
    }
    throw error;
  }
}

/** The 413 of an upload past its budget; `spent` when known (the declared sizes), null when stopped midway. */
function overBudget(spent: number | null, maxBytes: number): ServerError {
  return new ServerError(
    ServerErrorCode.PAYLOAD_TOO_LARGE,
    spent === null
      ? `the ride files in the ZIP archive come to more than the limit of ${megabytes(maxBytes)} once decompressed, counting what the .gz and .kmz files among them unpack to: split it into smaller archives`
      : `the ride files in the ZIP archive come to ${megabytes(spent)} once decompressed, more than the limit of ${megabytes(maxBytes)}: split it into smaller archives`,
  );
}

/** The skipped entries: the first MAX_SKIPPED_LISTED kept, names and reasons cut; all counted. */
class SkippedList {
  readonly listed: SkippedEntry[] = [];
  count = 0;

  add(name: string, reason: string): void {
    this.count += 1;
    if (this.listed.length < MAX_SKIPPED_LISTED) {
      this.listed.push({
        name: cutWithEllipsis(name, SKIPPED_NAME_MAX_CHARS),
        reason: cutWithEllipsis(reason, SKIPPED_REASON_MAX_CHARS),
      });
    }
  }
}

/** A ride file by name; not macOS's copies of file metadata (`__MACOSX/`, `._name`). */
function isRideEntry(entry: ZipEntry): boolean {
  const base = entry.name.slice(entry.name.lastIndexOf('/') + 1);
  return !isMacMetadata(entry) && !base.startsWith('.') && RIDE_FILE_EXTENSION.test(base);
}

function isMacMetadata(entry: ZipEntry): boolean {
  return entry.name.startsWith('__MACOSX/');
}

function notARideReason(entry: ZipEntry): string {
  return isMacMetadata(entry)
    ? 'macOS file metadata, not a ride'
    : 'not a ride file (FIT, TCX, GPX, KML or KMZ, or a .gz of one)';
}

/**
 * The ZIP an upload is, or holds gzipped; null when it is neither. Only a gzip whose first bytes
 * inflate to a ZIP's signature is gunzipped whole (within `maxBytes`, else 413): a `.fit.gz` is left
 * to the parser, which unwraps it itself.
 */
function zipOf(upload: Buffer, maxBytes: number): Buffer | null {
  if (isZip(upload)) return upload;
  if (!isGzip(upload)) return null;
  let start: Buffer;
  try {
    // A sync flush returns what the first slice inflates to, without asking for the rest of the stream.
    start = gunzipSync(upload.subarray(0, GZIP_PEEK_BYTES), { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return null; // corrupt from its first bytes: the parser says so in its words
  }
  if (!isZip(start)) return null;
  try {
    return gunzipSync(upload, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ServerError(
        ServerErrorCode.PAYLOAD_TOO_LARGE,
        `the gzipped ZIP archive is larger than the limit of ${megabytes(maxBytes)} once decompressed: split it into smaller archives`,
      );
    }
    throw badRequest(
      `the gzipped ZIP archive is cut off or corrupt: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Whether a ZIP is a KMZ (one ride) rather than an archive of rides: its only ride file is a `.kml`,
 * and that file is its document (ridefile's kmzDocument: `doc.kml`, else the first `.kml`). Images or
 * other files beside it do not change that; a second ride file of any kind makes it an archive.
 */
function isKmz(entries: readonly ZipEntry[], rideFiles: readonly ZipEntry[]): boolean {
  return rideFiles.length === 1 && rideFiles[0] === kmzDocument(entries);
}

/**
 * The skipped entries in words, the first few by name: "a.txt (not a ride file …), … and 3 more";
 * `count` counts those not listed too.
 */
export function skippedWords(skipped: readonly SkippedEntry[], count: number = skipped.length): string {
  const named = skipped.slice(0, NAMED_IN_MESSAGE).map((entry) => `${entry.name} (${entry.reason})`);
  const more = count - named.length;
  return `${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

function megabytes(bytes: number): string {
  return `${Math.ceil(bytes / (1024 * 1024))} MB`;
}

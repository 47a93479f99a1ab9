import { DEFAULT_MAX_POINTS } from './columns.js';
import type { ReaderOptions, ReaderResult, TrackDraft } from './draft.js';
import { RideFileError, RideFileErrorCode, RideFileWarningCode } from './errors.js';
import { readFit } from './fit/read.js';
import { DEFAULT_MAX_BYTES, gunzipBounded, gunzipStreamed, isGzip } from './gzip.js';
import type { ColumnarRideFile, ColumnarTrack, RideFile, RideFileFormat, Track, Warning } from './model.js';
import { boundedFileText, boundedMessage, boundedWarnings } from './file-text.js';
import { sniffFormat, XML_SNIFF_BYTES } from './sniff.js';
import type { FileBytes } from './streamed-bytes.js';
import { readKmz } from './kmz.js';
import { finishColumnarTrack, finishTrack } from './track.js';
import { readGpx } from './xml/gpx.js';
import { readKml } from './xml/kml.js';
import { readTcx } from './xml/tcx.js';

/** How `parseRideFile`, `parseRideFileColumns` and `parseFitFile` read a file. */
export interface ParseOptions {
  /** skip sniffing and read the bytes as this format */
  format?: RideFileFormat;
  /** the file's name, a hint used only when the content does not decide */
  filename?: string;
  /**
   * largest input accepted, and the most it may decompress to, gunzip's output and a KMZ's KML
   * together (default 256 MB, docs/contributors/decisions.md §7; one budget since issue 36)
   */
  maxBytes?: number;
  /** most points in one track (default 2,000,000, docs/contributors/decisions.md §7) */
  maxPoints?: number;
}

const DAMAGE_WARNINGS: ReadonlySet<string> = new Set([
  RideFileWarningCode.TRUNCATED,
  RideFileWarningCode.MALFORMED_XML,
  RideFileWarningCode.BAD_CRC,
  RideFileWarningCode.BAD_HEADER_CRC,
  RideFileWarningCode.SKIPPED_DATA,
]);

/** Warnings about the end of the input: the cut is in the last track, the tracks before it are whole. */
const END_WARNINGS: ReadonlySet<string> = new Set([
  RideFileWarningCode.TRUNCATED,
  RideFileWarningCode.MALFORMED_XML,
]);

/**
 * The file's warnings that concern one of its tracks (`Track.warnings`): damage in the middle (a bad
 * CRC, skipped data, device-relative times) may lie in any track and goes with each; a cut-off end only
 * with the last track; bytes after the data concern no track.
 */
function trackWarnings(warnings: readonly Warning[], isLast: boolean): Warning[] {
  return warnings.filter(
    (warning) =>
      warning.code !== RideFileWarningCode.TRAILING_DATA && (isLast || !END_WARNINGS.has(warning.code)),
  );
}

type Read<Bytes> = (bytes: Bytes, options: ReaderOptions) => ReaderResult;

/**
 * The reader of each format. The XML readers take a gzipped file's content as it is gunzipped, never
 * held whole (issue 36); FIT and KMZ are read from the whole bytes.
 */
interface Readers {
  fit?: Read<Uint8Array>;
  kmz?: Read<Uint8Array>;
  gpx?: Read<FileBytes>;
  tcx?: Read<FileBytes>;
  kml?: Read<FileBytes>;
}

const READERS: Readers = {
  fit: readFit,
  gpx: readGpx,
  tcx: readTcx,
  kml: readKml,
  kmz: readKmz,
};

/** FIT alone: what parseFitFile reads, so a bundle that imports only it leaves the XML readers out. */
const FIT_READERS: Readers = { fit: readFit };

/**
 * Reads a FIT, TCX, GPX, KML or KMZ file (gzip-wrapped or not) into rides and routes; a KMZ is
 * reported as `format: 'kmz'` and read through its KML document (kmz.ts).
 * Throws only `RideFileError`, whatever the bytes (docs/contributors/architecture.md, `@rideport/ridefile`).
 */
export function parseRideFile(bytes: Uint8Array, options: ParseOptions = {}): RideFile {
  return parseWith(READERS, bytes, options, finishTrack);
}

/**
 * Reads a file exactly as `parseRideFile` does (the same tracks, laps, sensors, summaries and
 * warnings, the same errors), with each track's samples as one typed array per channel
 * (`ColumnarTrack.columns`) instead of point objects: for analysis over whole channels (power curves,
 * normalized power, map matching). No point object is made (issue 21); `npm run bench:parse` says
 * what that saves per file.
 */
export function parseRideFileColumns(bytes: Uint8Array, options: ParseOptions = {}): ColumnarRideFile {
  return parseWith(READERS, bytes, options, finishColumnarTrack);
}

/**
 * Reads a FIT file (gzip-wrapped or not) exactly as `parseRideFile` does, and refuses a TCX, GPX,
 * KML or KMZ file with `RIDEFILE_UNKNOWN_FORMAT`. For tools that read only FIT: a bundle that imports this
 * and not `parseRideFile` leaves out the TCX, GPX and KML readers and the XML parser (issue 21, the
 * size benchmark's FIT-only import).
 */
export function parseFitFile(bytes: Uint8Array, options: Omit<ParseOptions, 'format'> = {}): RideFile {
  return parseWith(FIT_READERS, bytes, options, finishTrack);
}

/** How a reader's draft becomes an output track: with points (`Track`) or columns (`ColumnarTrack`). */
type Finish<T> = (draft: TrackDraft, warnings: Warning[]) => T;

function parseWith<T extends Track | ColumnarTrack>(
  readers: Readers,
  bytes: Uint8Array,
  options: ParseOptions,
  finish: Finish<T>,
): { format: RideFileFormat; creator: string | null; tracks: T[]; warnings: Warning[] } {
  try {
    return parse(readers, bytes, options, finish);
  } catch (error) {
    if (error instanceof RideFileError) throw error;
    if (
      error instanceof RangeError &&
      /allocat|Invalid typed array length|Array buffer/i.test(error.message)
    ) {
      throw new RideFileError(
        RideFileErrorCode.TOO_LARGE,
        `the file is too large to read: ${error.message}`,
        {
          cause: error,
        },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    throw new RideFileError(
      RideFileErrorCode.INTERNAL,
      `unexpected failure while reading the file: ${message}`,
      {
        cause: error,
      },
    );
  }
}

function parse<T>(
  readers: Readers,
  bytes: Uint8Array,
  options: ParseOptions,
  finish: Finish<T>,
): { format: RideFileFormat; creator: string | null; tracks: T[]; warnings: Warning[] } {
  if (!(bytes instanceof Uint8Array)) {
    throw new RideFileError(RideFileErrorCode.UNKNOWN_FORMAT, 'expected the file as a Uint8Array');
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const warnings: Warning[] = [];
  if (bytes.length === 0) throw new RideFileError(RideFileErrorCode.EMPTY, 'the file is empty');
  if (bytes.length > maxBytes) {
    throw new RideFileError(RideFileErrorCode.TOO_LARGE, `the file is larger than ${maxBytes} bytes`);
  }

  // A gzipped file is gunzipped as it is read where its reader reads pieces (streamed), whole otherwise.
  let data: FileBytes = bytes;
  if (isGzip(bytes)) {
    data =
      gunzipStreamed(bytes, maxBytes, XML_SNIFF_BYTES, warnings) ?? gunzipBounded(bytes, maxBytes, warnings);
  }
  const head = data instanceof Uint8Array ? data : data.head;
  if (head.length === 0)
    throw new RideFileError(RideFileErrorCode.EMPTY, 'the file is empty once decompressed');

  const format = options.format ?? sniffFormat(head, options.filename);
  if (format === null) {
    throw new RideFileError(
      RideFileErrorCode.UNKNOWN_FORMAT,
      'the content is not a FIT, TCX, GPX, KML or KMZ file (nor a gzip of one)',
    );
  }

  if (readers[format] === undefined) {
    throw new RideFileError(
      RideFileErrorCode.UNKNOWN_FORMAT,
      `this is a ${format.toUpperCase()} file, and parseFitFile reads only FIT files (parseRideFile reads every format)`,
    );
  }
  const maxPoints = options.maxPoints ?? DEFAULT_MAX_POINTS;
  let result: ReaderResult;
  if (format === 'fit' || format === 'kmz') {
    const whole = data instanceof Uint8Array ? data : gunzipBounded(bytes, maxBytes, warnings);
    // One budget for all the file decompresses (issue 36): a KMZ's document gets what gunzip left of it.
    const left = whole === bytes ? maxBytes : maxBytes - whole.length;
    result = readers[format](whole, { maxPoints, maxBytes: left });
  } else {
    result = readers[format](data, { maxPoints, maxBytes });
  }
  warnings.push(...result.warnings);
  // Before the tracks take the file's warnings: a shortened creator is said on each of them (issue 17).
  const creator = boundedFileText('creator', result.creator, warnings);
  const drafts = result.drafts.filter((draft) => draft.columns.length > 0);
  const tracks = drafts.map((draft, index) =>
    finish(draft, trackWarnings(warnings, index === drafts.length - 1)),
  );
  if (tracks.length === 0) {
    // Nothing readable because the file is damaged is MALFORMED; a sound file without points is NO_TRACKS.
    const damaged = warnings.some((warning) => DAMAGE_WARNINGS.has(warning.code));
    const why =
      warnings.length > 0
        ? ` (${boundedMessage(warnings.map((warning) => warning.message).join('; '))})`
        : '';
    throw new RideFileError(
      damaged ? RideFileErrorCode.MALFORMED : RideFileErrorCode.NO_TRACKS,
      `the ${format.toUpperCase()} file holds no track points${why}`,
    );
  }
  return { format, creator, tracks, warnings: boundedWarnings(warnings) };
}

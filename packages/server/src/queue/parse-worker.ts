/**
 * The upload queue's worker thread (issue 5; docs/contributors/architecture.md, "Upload queue"): parses one uploaded file with
 * @rideport/ridefile and hands back what the main thread stores, in a form that crosses threads
 * cheaply. A track's points would be cloned object by object (longer than parsing them); they come
 * back packed (store/track-points.ts), in one ArrayBuffer per track that moves to the main thread
 * without a copy, and the track itself without them. At import, a worker thread lowers its own
 * priority; piscina then calls `parseUpload`.
 */
import { setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import {
  isGzip,
  isRideFileError,
  parseRideFileColumns,
  type ColumnarTrack,
  type RideFileFormat,
  type Track,
} from '@rideport/ridefile';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { columnTimeRange, type TimeRange } from '../store/track-columns.js';
import { lastColumnTime, packTrackColumns } from '../codec/track-points.js';
import { collectAfterLargeTask, collectOwedGarbage } from '../heap-collection.js';
import { keepYoungGenerationSmallInThisWorker } from '../young-generation.js';

export interface ParseRequest {
  bytes: Uint8Array;
  /** the upload's file name, a hint for the format */
  filename: string | null;
  /**
   * set when `bytes` are the file gzipped by the server (a ride of a ZIP archive, queue/archive.ts):
   * the file's own length, which is all the parser may then decompress, and the original's length
   */
  unzippedLength: number | null;
  /** docs/contributors/decisions.md §7: the largest file after gunzip */
  maxBytes: number;
  /** docs/contributors/decisions.md §7: the most points in one track */
  maxPoints: number;
}

/** A track of the file: `track.points` is empty, its points are `packedPoints`. */
export interface ParsedTrack {
  track: Track;
  pointCount: number;
  packedPoints: Uint8Array;
  /** Unix seconds of the last point that has a time (the words for a cut-off file need it, issue 16) */
  lastTime: number | null;
  /** the first and last timed point (issue 16: which trips the ride overlaps); null without times */
  timeRange: TimeRange | null;
}

/** A file that was read, or the parser's verdict on one that could not be (a RideFileError). */
export type ParseOutcome =
  | {
      ok: true;
      tracks: ParsedTrack[];
      /** the format the file was read as */
      format: RideFileFormat;
      /**
       * The original file to keep, gzip-compressed (issue 20, "Original files"): compressed here, off
       * the main thread, or, when the upload was gzip already (`uploadedGzip`) or the server gzipped it
       * (`unzippedLength`), the upload itself, handed back: the main thread's copy of a large upload
       * was moved to this worker, not copied.
       */
      gzipped: Uint8Array;
      uploadedGzip: boolean;
      /** the file's length in bytes (the main thread's copy may have been moved here) */
      uploadLength: number;
    }
  | { ok: false; code: string; message: string };

/**
 * Parsing is background work: this thread runs at a lower priority than the main thread, which answers
 * requests (issue 5: status.json stays quick while uploads are parsed). On Linux the priority set here
 * is the calling thread's alone. With as many parsers as cores, the main thread otherwise waits its
 * turn behind them; at this priority it does not, and the parsers still take whatever it leaves
 * (bench:upload measures both; docs/contributors/benchmarks.md).
 */
const PARSER_NICENESS = 10;

/** What reading a point takes, bytes, about: the text of a GPX or TCX point (a gzipped file's is unseen). */
const READ_BYTES_PER_POINT = 100;

try {
  if (!isMainThread) setPriority(PARSER_NICENESS);
} catch {
  // Not allowed here (some containers): parsing runs at the main thread's priority, only slower to yield.
}
keepYoungGenerationSmallInThisWorker();

export function parseUpload(request: ParseRequest): ParseOutcome {
  collectOwedGarbage();
  const gzippedByServer = request.unzippedLength !== null;
  const options = {
    // A file the server gzipped unzips to its own length, no more (a lying entry is stopped there).
    maxBytes:
      request.unzippedLength === null ? request.maxBytes : Math.min(request.maxBytes, request.unzippedLength),
    maxPoints: request.maxPoints,
    ...(request.filename === null ? {} : { filename: request.filename }),
  };
  let tracks: ColumnarTrack[];
  let format: RideFileFormat;
  try {
    // Columns, not point objects (issue 21): they are what the packed form stores.
    ({ tracks, format } = parseRideFileColumns(request.bytes, options));
  } catch (error) {
    // parseRideFileColumns throws nothing else (docs/contributors/architecture.md); anything else is a bug, and fails the attempt.
    if (isRideFileError(error)) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
  // The file's text and the parser's drafts are garbage once the answer is made (heap-collection.ts).
  const points = tracks.reduce((sum, track) => sum + track.columns.length, 0);
  collectAfterLargeTask(
    Math.max(request.bytes.byteLength, request.unzippedLength ?? 0, points * READ_BYTES_PER_POINT),
  );
  const parsed = tracks.map(({ columns, ...details }) => ({
    track: { ...details, points: [] },
    pointCount: columns.length,
    packedPoints: packTrackColumns(columns),
    lastTime: lastColumnTime(columns),
    timeRange: columnTimeRange(columns),
  }));
  const uploadedGzip = !gzippedByServer && isGzip(request.bytes);
  const gzipped = ownBuffer(uploadedGzip || gzippedByServer ? request.bytes : gzipSync(request.bytes));
  // The packed buffers are transferred with the answer, not copied: piscina moves the transfer list of
  // a top-level Transferable (`move` only marks a value at the top of the answer).
  const answer = {
    [transferableSymbol]: [...parsed.map((track) => track.packedPoints.buffer), gzipped.buffer],
    [valueSymbol]: {
      ok: true,
      tracks: parsed,
      format,
      gzipped,
      uploadedGzip,
      uploadLength: request.unzippedLength ?? request.bytes.byteLength,
    } satisfies ParseOutcome,
  };
  return move(answer) as unknown as ParseOutcome;
}

/**
 * Bytes that own their whole ArrayBuffer, so it can be transferred: a small Buffer may be a slice of
 * Node's shared pool, whose transfer would take the pool from everyone else; such a one is copied.
 */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? new Uint8Array(bytes.buffer)
    : new Uint8Array(bytes);
}

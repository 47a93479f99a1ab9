/**
 * Splits an upload that is an archive of rides (archive.ts) in a worker thread of the upload queue's
 * pool (issue 20): unzipping a large bulk export takes seconds, which the main thread, answering
 * requests, must not spend. The upload moves here and back rather than being copied; each ride comes
 * back in a buffer of its own, moved too, so no ride drags the whole archive across threads.
 */
import { threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { ServerError, type ServerErrorCode } from '../errors.js';
import { bulkArchiveOf, type ArchiveRide, type SkippedEntry } from './archive.js';
import { collectAfterLargeTask, collectOwedGarbage } from '../heap-collection.js';
import { keepYoungGenerationSmallInThisWorker } from '../young-generation.js';

keepYoungGenerationSmallInThisWorker();

export interface SplitRequest {
  bytes: Uint8Array;
  /** docs/contributors/decisions.md §7: the gunzip limit, for the archive's files together */
  maxBytes: number;
}

export type SplitOutcome =
  /** one ride file: the upload, handed back */
  | { kind: 'single'; bytes: Uint8Array; threadId: number }
  | {
      kind: 'archive';
      rides: (Omit<ArchiveRide, 'bytes'> & { bytes: Uint8Array })[];
      skipped: SkippedEntry[];
      skippedCount: number;
      /** the thread that unzipped it (never the main thread's 0) */
      threadId: number;
    }
  /** an ServerError's parts: the class does not cross threads */
  | { kind: 'refused'; code: ServerErrorCode; problems: string[] };

export function splitUpload(request: SplitRequest): SplitOutcome {
  collectOwedGarbage();
  const upload = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
  let archive;
  try {
    archive = bulkArchiveOf(upload, request.maxBytes);
  } catch (error) {
    // Refused, perhaps only once the budget was spent: as much may have been inflated.
    collectAfterLargeTask(request.maxBytes);
    if (error instanceof ServerError) return { kind: 'refused', code: error.code, problems: error.problems };
    throw error;
  }
  if (archive === null) {
    return move({
      [transferableSymbol]: [request.bytes.buffer],
      [valueSymbol]: { kind: 'single', bytes: request.bytes, threadId } satisfies SplitOutcome,
    }) as unknown as SplitOutcome;
  }
  // What was inflated here is garbage now: the archive's rides, read through for their SHA-256.
  collectAfterLargeTask(
    archive.rides.reduce((sum, ride) => sum + (ride.unzippedLength ?? ride.bytes.length), 0),
  );
  // Each ride into a buffer of its own, so only it moves (a small Buffer may share Node's pool).
  const rides = archive.rides.map((ride) => ({ ...ride, bytes: new Uint8Array(ride.bytes) }));
  return move({
    [transferableSymbol]: rides.map((ride) => ride.bytes.buffer),
    [valueSymbol]: {
      kind: 'archive',
      rides,
      skipped: archive.skipped,
      skippedCount: archive.skippedCount,
      threadId,
    } satisfies SplitOutcome,
  }) as unknown as SplitOutcome;
}

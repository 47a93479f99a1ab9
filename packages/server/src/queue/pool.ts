/**
 * The worker-thread pool that parses uploads (docs/contributors/architecture.md, "Upload queue": a worker-thread pool, one per
 * core), over piscina. The queue makes the pool with its first task, so a server pays for the threads
 * only once it has uploads to read; then every thread starts at once and is kept while the queue runs.
 * Started one by one as uploads came to overlap, each thread (its own V8 heap, event loop and
 * descriptors) made the server's memory step up at some
 * random later hour, which looks like a leak from outside (issue 22); started together, the memory
 * and descriptors reach their level with the first upload and stay there.
 */
import { threadPool } from '../thread-pool.js';
import { workerScript } from '../worker-script.js';
import type { CompareOutcome, CompareRequest } from './compare-worker.js';
import type { ParseOutcome, ParseRequest } from './parse-worker.js';
import type { SplitOutcome, SplitRequest } from './unzip-worker.js';

export interface ParsePool {
  /**
   * Parses in a worker thread. Rejects when the worker dies (a crash, out of memory) or `signal`
   * aborts (the thread is then stopped), and never for a file that is merely unreadable.
   */
  parse(request: ParseRequest, signal: AbortSignal): Promise<ParseOutcome>;
  /** Splits an upload that may be an archive of rides in a worker thread (unzip-worker.ts, issue 20). */
  split(request: SplitRequest): Promise<SplitOutcome>;
  /** Compares a new ride's points with a stored trip's in a worker thread (compare-worker.ts, issue 36). */
  compare(request: CompareRequest): Promise<CompareOutcome>;
  /** the threads running: every one of them from the start */
  readonly threadCount: number;
  destroy(): Promise<void>;
}

export function createParsePool(threads: number): ParsePool {
  const pool = threadPool<
    ParseRequest | SplitRequest | CompareRequest,
    ParseOutcome | SplitOutcome | CompareOutcome
  >({
    ...workerScript('parse-worker', import.meta.url),
    name: 'parseUpload',
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
  });
  const unzip = workerScript('unzip-worker', import.meta.url).filename;
  const compare = workerScript('compare-worker', import.meta.url).filename;
  return {
    parse(request, signal) {
      const moved = movable(request.bytes);
      // Each worker module answers its own kind: the casts name which one this call ran.
      return pool.run(
        { ...request, bytes: moved },
        { transferList: [moved.buffer], signal },
      ) as Promise<ParseOutcome>;
    },
    split(request) {
      const moved = movable(request.bytes);
      return pool.run(
        { ...request, bytes: moved },
        { filename: unzip, name: 'splitUpload', transferList: [moved.buffer] },
      ) as Promise<SplitOutcome>;
    },
    compare(request) {
      // Copied, not moved: the caller stores the new ride's packed points afterwards.
      return pool.run(request, { filename: compare, name: 'compareRecordings' }) as Promise<CompareOutcome>;
    },
    get threadCount() {
      return pool.threads.length;
    },
    destroy: () => pool.destroy(),
  };
}

/** The bytes, to move to a worker rather than copy, when nothing else shares their memory; else a copy. */
function movable(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const own =
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength;
  return own ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

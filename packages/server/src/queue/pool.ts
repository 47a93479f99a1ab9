/**
 * The worker-thread pool that parses uploads (design.md, "Upload queue": a worker-thread pool, one per
 * core), over piscina. Threads start with the first task and are kept while the queue runs, so the
 * server pays for them only once it has uploads to read.
 */
import { Piscina } from 'piscina';
import { workerScript } from '../worker-script.js';
import type { ParseOutcome, ParseRequest } from './parse-worker.js';

export interface ParsePool {
  /**
   * Parses in a worker thread. Rejects when the worker dies (a crash, out of memory) or `signal`
   * aborts (the thread is then stopped), and never for a file that is merely unreadable.
   */
  parse(request: ParseRequest, signal: AbortSignal): Promise<ParseOutcome>;
  destroy(): Promise<void>;
}

export function createParsePool(threads: number): ParsePool {
  const pool = new Piscina<ParseRequest, ParseOutcome>({
    ...workerScript('parse-worker', import.meta.url),
    name: 'parseUpload',
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    recordTiming: false,
  });
  return {
    parse(request, signal) {
      // The bytes move to the worker rather than being copied, when nothing else shares their memory.
      const { bytes } = request;
      const own =
        bytes.buffer instanceof ArrayBuffer &&
        bytes.byteOffset === 0 &&
        bytes.byteLength === bytes.buffer.byteLength;
      const moved = own ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
      return pool.run({ ...request, bytes: moved }, { transferList: [moved.buffer], signal });
    },
    destroy: () => pool.destroy(),
  };
}

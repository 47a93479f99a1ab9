/**
 * V8's full collection, asked for by the processes and worker threads that run for weeks (issue 22,
 * docs/operators/memory.md), and a worker thread's memory given back after a large task (issue 36,
 * "memory that comes back after a hard hour").
 *
 * This module loads nothing of the server's, so the CLI's launcher can use it (through
 * `@rideport/host/freed-memory`) before the rest.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full collection of V8's heap, resolved when it is done. */
export type CollectGarbage = () => Promise<void>;

/**
 * V8's full collection, run as a task of the calling thread once the current one ends (`execution:
 * 'async'`), or null where it cannot be had. Node offers it only behind `--expose-gc`, a flag read
 * when a context is made: it is set for as long as it takes to make one context and take its `gc`,
 * then unset again, so no other context gets one. (A process started with the flag has it already.)
 */
export function v8FullCollection(): CollectGarbage | null {
  let gc = globalThis.gc;
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as NodeJS.GCFunction | undefined;
    } catch {
      return null;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  if (typeof gc !== 'function') return null;
  const collect = gc;
  return () => collect({ type: 'major', execution: 'async' });
}

/**
 * A task that handled at least this many bytes (an upload read or unzipped, a track rendered) leaves
 * garbage worth a collection: the text of a large GPX alone is hundreds of megabytes.
 */
export const LARGE_TASK_BYTES = 8 * 1024 * 1024;

/** How long after a large task its thread collects, ms: a burst of uploads is collected once, after it. */
const COLLECT_AFTER_MS = 500;

let collection: CollectGarbage | null | undefined;
let pending: NodeJS.Timeout | null = null;

/**
 * For a worker thread of the server's pools, after each task: when the task handled `bytes` of at
 * least LARGE_TASK_BYTES, a full collection of this thread's heap shortly after. A worker thread that
 * goes idle after a large file otherwise keeps what the file left (its text, its columns) for as long
 * as it waits, since V8 collects only when more is allocated; measured by `bench:archive-stall`. Once
 * collected, the memory of dead buffers is free for the process's allocator to give back
 * (@rideport/host's malloc_trim). The collection runs on this thread, never the main one's.
 */
export function collectAfterLargeTask(bytes: number): void {
  if (bytes < LARGE_TASK_BYTES || pending !== null) return;
  collection ??= v8FullCollection();
  const collect = collection;
  if (collect === null) return;
  pending = setTimeout(() => {
    pending = null;
    void collect().catch(() => undefined);
  }, COLLECT_AFTER_MS);
  pending.unref();
}

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
 * 'async'`), or null where it cannot be had.
 */
export function v8FullCollection(): CollectGarbage | null {
  const gc = exposedGc();
  return gc === null ? null : () => gc({ type: 'major', execution: 'async' });
}

/**
 * Node's `gc`, offered only behind `--expose-gc`, a flag read when a context is made: it is set for as
 * long as it takes to make one context and take its `gc`, then unset again, so no other context gets
 * one. (A process started with the flag has it already.) null where it cannot be had.
 */
function exposedGc(): NodeJS.GCFunction | null {
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
  return typeof gc === 'function' ? gc : null;
}

/**
 * A task that handled at least this many bytes (an upload read or unzipped, a track rendered) leaves
 * garbage worth a collection: the text of a large GPX alone is hundreds of megabytes.
 */
export const LARGE_TASK_BYTES = 8 * 1024 * 1024;

/** How long after a large task its thread collects when no other task comes, ms. */
const COLLECT_AFTER_MS = 500;

let gc: NodeJS.GCFunction | null | undefined;
let pending: NodeJS.Timeout | null = null;

/**
 * For a worker thread of the server's pools, at the end of each task: when the task handled `bytes`
 * of at least LARGE_TASK_BYTES, a full collection of this thread's heap is owed. A worker thread
 * otherwise keeps what a large file left (its text, its columns, buffers of hundreds of megabytes
 * outside V8's heap) for as long as it waits, since V8 collects only when more is allocated; and a
 * thread given one large file after another would hold the last one's beside the next. The debt is
 * paid half a second later when the thread is idle (the pools let an idle thread run its timers:
 * thread-pool.ts), or by collectOwedGarbage as the next task starts,
 * whichever is first (measured by `bench:archive-stall`). Once collected, dead buffers are free for the
 * process's allocator to give back (@rideport/host's malloc_trim). Only this thread stops, never the
 * main one.
 */
export function collectAfterLargeTask(bytes: number): void {
  if (bytes < LARGE_TASK_BYTES || pending !== null) return;
  gc ??= exposedGc();
  if (gc === null) return;
  pending = setTimeout(collectOwedGarbage, COLLECT_AFTER_MS);
  pending.unref();
}

/**
 * At the start of each task of a worker thread: the collection a large task before it left owed, now
 * and on this thread (the garbage is all dead, so it takes milliseconds), before the new task
 * allocates beside it. Nothing when nothing is owed.
 */
export function collectOwedGarbage(): void {
  if (pending === null) return;
  clearTimeout(pending);
  pending = null;
  // Without options: on Node 20, gc({ type: 'major', execution: 'sync' }) leaves dead objects in place.
  gc?.();
}

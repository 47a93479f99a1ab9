/**
 * Checkpoints of the write-ahead log in a thread of their own (issue 5, bench/upload). SQLite's
 * automatic checkpoint runs inside the commit that fills the log past 1000 pages, on the committing
 * connection: with uploads of a megabyte that was every other upload, and each one copies the log into
 * the database and syncs both files, on the main thread, while every request waits. Here the main
 * connection never checkpoints (wal_autocheckpoint = 0) while db/checkpoint-worker.ts does, a few
 * times a second, from its own connection in a worker thread (piscina, as the upload queue's parsers).
 * Should a checkpoint there fail, the main connection goes back to checkpointing automatically, so the
 * log never grows without bound; unless the disk is full, which passes: checkpoints then go on once
 * there is space again.
 */
import type SqliteDatabase from 'better-sqlite3';
import { Piscina } from 'piscina';
import { isDiskFull } from '../disk-full.js';
import { workerScript } from '../worker-script.js';
import type { CheckpointOutcome, CheckpointRequest } from './checkpoint-worker.js';

/** SQLite's default automatic checkpoint, in pages, for the fallback. */
const AUTOMATIC_CHECKPOINT_PAGES = 1000;
/** A log bigger than this is truncated to it when it restarts, so the file does not stay at its peak. */
const LOG_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
const DEFAULT_INTERVAL_MS = 250;
/**
 * Free pages given back at a call (issue 36): at SQLite's 4 KiB pages 4 MB, a few milliseconds of the
 * write lock, so a gigabyte of deleted rides goes back within a minute or two at four calls a second.
 */
const RECLAIM_PAGES_PER_CALL = 1024;
/** Fewer free pages than this are left for SQLite to reuse: a megabyte is not worth a write. */
const RECLAIM_FROM_FREE_PAGES = 256;

export interface Checkpointer {
  /** Stops after a last checkpoint; the main connection may then close. */
  stop(): Promise<void>;
}

export function startCheckpointer(
  path: string,
  sqlite: SqliteDatabase.Database,
  intervalMs = DEFAULT_INTERVAL_MS,
): Checkpointer {
  const pool = new Piscina<CheckpointRequest, CheckpointOutcome>({
    ...workerScript('checkpoint-worker', import.meta.url),
    name: 'checkpoint',
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: Number.POSITIVE_INFINITY,
    recordTiming: false,
  });
  sqlite.pragma(`journal_size_limit = ${LOG_SIZE_LIMIT_BYTES}`);
  sqlite.pragma('wal_autocheckpoint = 0');
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let stopped = false;
  /** a checkpoint failed for want of space, and none has succeeded since */
  let waitingForSpace = false;
  /** giving free pages back failed, and has not succeeded since: said once */
  let reclaimFailing = false;
  const fallBack = (error: unknown): void => {
    stopped = true;
    clearInterval(timer);
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`);
    // better-sqlite3's errors cross from the worker thread as plain objects that keep only their code.
    const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown };
    const reason = typeof message === 'string' ? message : typeof code === 'string' ? code : String(error);
    process.emitWarning(
      `background checkpoints of ${path} stopped, the server checkpoints itself: ${reason}`,
    );
    void pool.destroy();
  };
  const timer = setInterval(() => {
    // One at a time: a slow disk makes checkpoints late, never piled up.
    if (busy || stopped) return;
    busy = true;
    const request = {
      path,
      close: false,
      reclaimPages: RECLAIM_PAGES_PER_CALL,
      reclaimFrom: RECLAIM_FROM_FREE_PAGES,
    };
    running = pool.run(request).then(
      ({ reclaimFailure }) => {
        busy = false;
        waitingForSpace = false;
        if (reclaimFailure !== null && !reclaimFailing) {
          process.emitWarning(
            `giving free space of ${path} back waits, and is tried again: ${reclaimFailure}`,
          );
        }
        reclaimFailing = reclaimFailure !== null;
      },
      (error: unknown) => {
        busy = false;
        // A full disk (issue 17) passes once space is freed: the next tick tries again, and the log
        // cannot grow meanwhile either. Falling back would leave checkpoints in the commits for good.
        if (!isDiskFull(error)) fallBack(error);
        else if (!waitingForSpace) {
          waitingForSpace = true;
          process.emitWarning(`checkpoints of ${path} wait for disk space: the disk is full`);
        }
      },
    );
  }, intervalMs).unref();
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await running;
      await pool.run({ path, close: true, reclaimPages: 0, reclaimFrom: 0 }).catch(() => undefined);
      await pool.destroy();
    },
  };
}

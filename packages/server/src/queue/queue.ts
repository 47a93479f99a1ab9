/**
 * The upload queue (docs/contributors/architecture.md, "Upload queue"; docs/contributors/decisions.md §5; issue 5): takes the waiting tasks from
 * the database one per free worker, each under a lease, and carries each to its end.
 *
 * For each task: identical bytes the same user uploaded before are a duplicate, decided by SHA-256
 * before any parsing; otherwise a worker thread parses the file, and the main thread writes every ride
 * and route it holds, their change-log and webhook rows (store/changes.ts), the task's objects and its
 * outcome in one transaction. In that transaction, a ride that is the same recording as a stored trip
 * (issue 16: the same activity in other bytes, one-ride.ts) is a duplicate too, and completes a stored
 * copy that was cut off. A parser that crashes or runs out of time gives the task back; the second
 * time, the task fails with a message instead of looping. A crashed server's leases run out and its
 * tasks are claimed again (a running worker renews its lease, so the lease can stay short). Stopping
 * lets running tasks finish for a moment, then stops their parsers and gives the tasks back without
 * counting the attempt.
 *
 * A full disk (issue 17) is nobody's fault and passes: a task whose rides or outcome could not be
 * written for want of space is given back without counting the attempt, saying that it waits for disk
 * space, and the queue claims nothing for a while (1 s, doubling to 30 s); then it tries one task at
 * a time until a write succeeds again. So no task fails because the disk was full, and nothing is
 * parsed over and over meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isGzip, isZip, warningWords, type WarningWords } from '@rideport/ridefile';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { ServerContext } from '../context.js';
import type { Database } from '../db/schema.js';
import { faultWords, passingStorageFault, StorageFaultNotice, type StorageFault } from '../storage-fault.js';
import { ServerError, UploadErrorCode } from '../errors.js';
import { warnedTrack } from '../store/asset-records.js';
import type { ExclusiveRole } from '../db/engine.js';
import type {
  AssetMetadata,
  ClaimedTask,
  StagedOriginal,
  TaskMetadata,
  TaskObject,
  TaskOutcome,
} from '../store/index.js';
import { TASK_MESSAGES, TaskLeaseLostError } from '../store/index.js';

import type { ParseOutcome } from './parse-worker.js';
import type { BulkArchive } from './archive.js';
import {
  comparedAs,
  findSameRide,
  PointComparisons,
  type CompareInThread,
  foundWords,
  inWords,
  sameRecordingOutcome,
  type SameRide,
  type TripsCompared,
} from './one-ride.js';
import { createParsePool, type ParsePool } from './pool.js';
import { millisecondsUntil } from './purge.js';

/** attempts at parsing one file: a file that stops the parser this often fails (docs/contributors/architecture.md) */
export const MAX_PARSE_ATTEMPTS = 2;

/** the longest the queue waits before looking for work it was not told of (expired leases) */
const MAX_POLL_INTERVAL_MS = 1000;

/** the most bytes of just-accepted uploads kept in memory for the workers (see `accepted`) */
const MAX_FRESH_UPLOAD_BYTES = 64 * 1024 * 1024;

/**
 * after a write failed for a passing storage fault (the disk full, the database out of reach; issues
 * 17 and 18), nothing is claimed for this long, ms; then twice as long
 */
const STORAGE_FAULT_FIRST_WAIT_MS = 1000;
/** the longest wait between tries while the fault lasts, ms */
const STORAGE_FAULT_MAX_WAIT_MS = 30_000;

/** What a task given back during a storage fault says to its rider (its status message). */
const WAITING_MESSAGE: Record<StorageFault, string> = {
  'disk full': TASK_MESSAGES.waitingForSpace,
  'database unreachable': TASK_MESSAGES.waitingForDatabase,
};

/**
 * The queue during a storage fault: since a write failed for it, none has succeeded. Tasks are given
 * back without counting the attempt (the file is not to blame) and one task at a time finds out
 * whether the fault has passed.
 */
interface StorageWait {
  fault: StorageFault;
  /** performance.now() before which nothing is claimed */
  untilMs: number;
  waitMs: number;
  /** tasks this queue holds and could not give back yet (that is a write too), by lease owner */
  held: Map<string, number>;
}

type StopReason = 'timeout' | 'stopping' | 'lease lost';

/** What reading a task came to. */
/** A file the parser read. */
type ParsedFile = Extract<ParseOutcome, { ok: true }>;

type Reading =
  | { kind: 'ended'; outcome: TaskOutcome }
  | { kind: 'parsed'; outcome: ParseOutcome }
  | { kind: 'parser stopped'; error: unknown };

interface RunningTask {
  task: ClaimedTask;
  owner: string;
  abort: AbortController;
  /** why the queue stopped the parser itself, if it did */
  stopReason: StopReason | null;
  done: Promise<void>;
}

/** What the queue needs of the server: it runs in `rideport worker` too, without HTTP (worker.ts). */
export type QueueContext = Pick<ServerContext, 'store' | 'options'>;

export class UploadQueue {
  readonly #context: QueueContext;
  readonly #log: FastifyBaseLogger;
  /** a full disk or a database out of reach, said once when it begins and once when it has passed */
  readonly #faults: StorageFaultNotice;
  /** names this process's leases; each claim adds a counter */
  readonly #instance = randomUUID();
  #claims = 0;
  #state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  #pool: ParsePool | null = null;
  /** by lease owner: a task whose lease ran out while it ran may be claimed again meanwhile */
  readonly #running = new Map<string, RunningTask>();
  /**
   * tasks claimed and not yet parsed: at most one per worker. A parsed task's rides are written while
   * the next file is parsed, so a worker does not wait for the main thread's transaction.
   */
  #reading = 0;
  #pumping = false;
  #pumpAgain = false;
  /** the bytes of uploads accepted and not yet claimed, by task id, at most MAX_FRESH_UPLOAD_BYTES */
  readonly #freshUploads = new Map<number, Buffer>();
  #freshUploadBytes = 0;
  #pollTimer: NodeJS.Timeout | null = null;
  #purgeTimer: NodeJS.Timeout | null = null;
  /** the nightly purge runs on one server of a database (issue 18), the one holding this role */
  #purgeRole: ExclusiveRole | null = null;
  #storageWait: StorageWait | null = null;

  constructor(context: QueueContext, log: FastifyBaseLogger) {
    this.#context = context;
    this.#log = log;
    this.#faults = new StorageFaultNotice(log, faultWords('upload queue', 'uploads'));
  }

  /**
   * Starts taking tasks (the server is ready), and the nightly purge. With no workers (`serve
   * --no-workers`, issue 18) it takes none: `rideport worker` processes read the uploads.
   */
  start(): void {
    if (this.#state !== 'new') return;
    this.#state = 'running';
    this.#schedulePurge();
    const { leaseMs, workers } = this.#context.options.queue;
    if (workers === 0) return;
    const pollMs = Math.max(10, Math.min(MAX_POLL_INTERVAL_MS, Math.floor(leaseMs / 4)));
    this.#pollTimer = setInterval(() => {
      this.wake();
    }, pollMs).unref();
    this.wake();
  }

  /**
   * The parse pool, made with one thread at least: a server without parse workers (`serve
   * --no-workers`) still splits the archives it accepts and compares the rides it stores.
   */
  #threads(): ParsePool {
    this.#pool ??= createParsePool(Math.max(1, this.#context.options.queue.workers));
    return this.#pool;
  }

  /**
   * An upload's rides when it is an archive of ride files, or the upload itself when it is one ride
   * (archive.ts), worked out in a thread of the parse pool (issue 20). Throws the ServerError the archive
   * earns. A file that is neither a ZIP nor gzip-compressed is one ride without asking a thread, so an
   * upload's answer never waits behind the rides the workers are reading.
   */
  async splitUpload(bytes: Buffer): Promise<{ single: Buffer } | (BulkArchive & { threadId: number })> {
    if (!isZip(bytes) && !isGzip(bytes)) return { single: bytes };
    const outcome = await this.#threads().split({
      bytes,
      maxBytes: this.#context.options.limits.gunzipBytes,
    });
    const own = (view: Uint8Array) => Buffer.from(view.buffer, view.byteOffset, view.byteLength);
    switch (outcome.kind) {
      case 'refused':
        throw new ServerError(outcome.code, outcome.problems);
      case 'single':
        return { single: own(outcome.bytes) };
      case 'archive':
        return {
          rides: outcome.rides.map((ride) => ({ ...ride, bytes: own(ride.bytes) })),
          skipped: outcome.skipped,
          skippedCount: outcome.skippedCount,
          threadId: outcome.threadId,
        };
    }
  }

  /**
   * A task was just stored (legacy/upload-intake.ts): its bytes, already committed with it, are kept for the
   * worker that claims it, which then need not read them back from the database. After a restart, or
   * past the memory bound, the worker reads them from the database as ever.
   */
  accepted(taskId: number, bytes: Buffer): void {
    const reads = this.#state === 'running' && this.#context.options.queue.workers > 0;
    if (reads && this.#freshUploadBytes + bytes.length <= MAX_FRESH_UPLOAD_BYTES) {
      this.#freshUploads.set(taskId, bytes);
      this.#freshUploadBytes += bytes.length;
    }
    this.wake();
  }

  #takeFreshUpload(taskId: number): Buffer | undefined {
    const bytes = this.#freshUploads.get(taskId);
    if (bytes !== undefined) {
      this.#freshUploads.delete(taskId);
      this.#freshUploadBytes -= bytes.length;
    }
    return bytes;
  }

  /** Looks for waiting tasks now. */
  wake(): void {
    if (this.#state !== 'running') return;
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    void this.#pump().finally(() => {
      this.#pumping = false;
    });
  }

  /**
   * Stops taking tasks; running ones get a moment to finish, then their parsers are stopped and the
   * tasks given back (their leases released), for the next start to take.
   */
  async stop(): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'stopping') return;
    this.#state = 'stopping';
    if (this.#pollTimer !== null) clearInterval(this.#pollTimer);
    this.#freshUploads.clear();
    this.#freshUploadBytes = 0;
    if (this.#purgeTimer !== null) clearTimeout(this.#purgeTimer);
    await this.#purgeRole?.release();
    const allDone = (): Promise<unknown> =>
      Promise.allSettled([...this.#running.values()].map((run) => run.done));
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      allDone(),
      new Promise((resolve) => (grace = setTimeout(resolve, this.#context.options.queue.stopGraceMs))),
    ]);
    clearTimeout(grace);
    for (const run of this.#running.values()) this.#stopParser(run, 'stopping');
    await allDone();
    await this.#pool?.destroy();
    this.#pool = null;
    this.#state = 'stopped';
  }

  async #pump(): Promise<void> {
    const { workers, leaseMs } = this.#context.options.queue;
    do {
      this.#pumpAgain = false;
      if (!(await this.#roomToWork())) return;
      // During a storage fault, one task at a time finds out whether it has passed.
      while (this.#state === 'running' && this.#reading < (this.#storageWait === null ? workers : 1)) {
        const owner = `${this.#instance}/${++this.#claims}`;
        let task: ClaimedTask | undefined;
        try {
          task = await this.#context.store.tasks.claim(owner, leaseMs);
        } catch (error) {
          if (this.#noteStorageFault(error) === null) {
            this.#log.error({ err: error }, 'upload queue: claiming a task failed');
          }
          return;
        }
        // A claim is a write the database answered: an outage has passed even when no upload waits,
        // so the queue goes back to its full width and says so (a full disk passes only once rides are
        // stored: a claim's small update may still find room).
        if (this.#storageWait?.fault === 'database unreachable') this.#storageIsBack();
        if (task === undefined) break;
        this.#begin(task, owner);
      }
    } while (this.#wokenWhilePumping());
  }

  /** (A method, so the checker does not take the fields for what they were before the awaits.) */
  #wokenWhilePumping(): boolean {
    return this.#pumpAgain && this.#state === 'running';
  }

  /**
   * Whether tasks may be claimed now: always, unless a storage fault happened a moment ago; then only
   * once the wait is over and every task held since has been given back.
   */
  async #roomToWork(): Promise<boolean> {
    const wait = this.#storageWait;
    if (wait === null) return true;
    if (performance.now() < wait.untilMs) return false;
    let released = false;
    for (const [owner, taskId] of wait.held) {
      try {
        const store = this.#context.store;
        if (await store.tasks.release(taskId, owner, false, WAITING_MESSAGE[wait.fault])) released = true;
      } catch (error) {
        if (this.#noteStorageFault(error) !== null) return false;
        // Its lease runs out, and the task is claimed again then.
        this.#log.error({ err: error, taskId }, 'upload queue: giving a task back failed');
      }
      wait.held.delete(owner);
    }
    // A write went through; otherwise one task at a time finds out (#pump).
    if (released) this.#storageIsBack();
    return true;
  }

  /**
   * Whether a write failed for a passing storage fault, and which: if so, it is said (once, when it
   * begins) and nothing is claimed for a while, longer each time; null for any other error.
   */
  #noteStorageFault(error: unknown): StorageFault | null {
    const fault = passingStorageFault(error);
    if (fault === null) return null;
    this.#faults.failed(error, fault);
    const wait = this.#storageWait;
    const waitMs =
      wait === null ? STORAGE_FAULT_FIRST_WAIT_MS : Math.min(wait.waitMs * 2, STORAGE_FAULT_MAX_WAIT_MS);
    const held = wait?.held ?? new Map<string, number>();
    this.#storageWait = { fault, untilMs: performance.now() + waitMs, waitMs, held };
    return fault;
  }

  /** A write succeeded: a storage fault, if there was one, has passed. */
  #storageIsBack(): void {
    const wait = this.#storageWait;
    if (wait === null || wait.held.size > 0) return;
    this.#storageWait = null;
    this.#faults.succeeded();
  }

  /**
   * The task's rides or outcome could not be written for a storage fault: it goes back to waiting,
   * without counting the attempt, until the fault has passed (or, if even that cannot be written, it
   * is held and given back before anything else is claimed). The caller has noted the fault.
   */
  async #giveBack(run: RunningTask, fault: StorageFault): Promise<void> {
    try {
      const { task, owner } = run;
      await this.#context.store.tasks.release(task.id, owner, false, WAITING_MESSAGE[fault]);
    } catch (error) {
      if (this.#noteStorageFault(error) === null) throw error;
      this.#storageWait?.held.set(run.owner, run.task.id);
    }
  }

  #begin(task: ClaimedTask, owner: string): void {
    const run: RunningTask = {
      task,
      owner,
      abort: new AbortController(),
      stopReason: null,
      done: Promise.resolve(),
    };
    this.#running.set(owner, run);
    this.#reading++;
    run.done = this.#process(run)
      .catch((error: unknown) => {
        this.#log.error({ err: error, taskId: task.id }, 'upload queue: processing a task failed');
      })
      .finally(() => {
        this.#running.delete(owner);
        this.wake();
      });
  }

  async #process(run: RunningTask): Promise<void> {
    let reading: Reading;
    try {
      reading = await this.#read(run);
    } catch (error) {
      // The duplicate check or the stored bytes could not be read: not the file's fault either.
      const fault = this.#noteStorageFault(error);
      if (fault === null) throw error;
      await this.#giveBack(run, fault);
      return;
    } finally {
      this.#reading--;
      this.wake();
    }
    try {
      if (reading.kind === 'ended') await this.#end(run, reading.outcome);
      else if (reading.kind === 'parser stopped') await this.#parserStopped(run, reading.error);
      else if (!reading.outcome.ok)
        await this.#end(run, unreadable(reading.outcome.code, reading.outcome.message));
      else await this.#store(run, reading.outcome);
    } catch (error) {
      const fault = this.#noteStorageFault(error);
      if (fault !== null) await this.#giveBack(run, fault);
      else await this.#failedUnexpectedly(run, error);
    }
  }

  /**
   * An error nobody foresaw while the task's outcome was stored (issue 20: a bug, a lost connection to
   * PostgreSQL): the task must not stay "Reading the file" until its lease runs out and then fail as
   * if the server had stopped. It is given back for one more attempt (the error may pass); the
   * second time it fails, saying so in words. The error itself goes to the log, not to the rider.
   */
  async #failedUnexpectedly(run: RunningTask, error: unknown): Promise<void> {
    const { task, owner } = run;
    this.#log.error(
      { err: error, taskId: task.id, attempt: task.attempts },
      'upload queue: storing a task failed',
    );
    if (task.attempts < MAX_PARSE_ATTEMPTS) {
      await this.#context.store.tasks.release(task.id, owner, true, TASK_MESSAGES.retrying);
      return;
    }
    const message = `Could not store the rides: the server failed to save them ${task.attempts} times; upload the file again later, and tell the server's operator if it fails again`;
    await this.#end(run, failed(UploadErrorCode.STORE_FAILED, message));
  }

  /** Everything up to the parser's answer: attempts, the duplicate check, the bytes, the parse. */
  async #read(run: RunningTask): Promise<Reading> {
    const { task, owner } = run;
    const { store, options } = this.#context;
    if (task.attempts > MAX_PARSE_ATTEMPTS) {
      // The server running the earlier attempts died while they parsed (their leases ran out).
      const message = `Could not read the file: the server stopped while reading it ${MAX_PARSE_ATTEMPTS} times`;
      return { kind: 'ended', outcome: failed(UploadErrorCode.INTERRUPTED, message) };
    }
    const fresh = this.#takeFreshUpload(task.id);
    // docs/contributors/decisions.md §5: identical bytes from the same user are a duplicate, before any parsing.
    const existing = await this.#storedAlready(task);
    if (existing.objects.length > 0) {
      return { kind: 'ended', outcome: withDetailsNote(duplicate(existing), task.metadata) };
    }
    const bytes = fresh ?? (await store.tasks.uploadBytes(task.id));
    if (bytes === undefined) {
      return {
        kind: 'ended',
        outcome: failed(UploadErrorCode.LOST, 'Could not read the file: the upload was lost'),
      };
    }

    const { leaseMs, parseTimeoutMs } = options.queue;
    const renewal = setInterval(
      () => {
        void store.tasks.renewLease(task.id, owner, leaseMs).then(
          (held) => {
            if (!held) this.#stopParser(run, 'lease lost');
          },
          (error: unknown) => {
            // A storage fault the queue says once, when a write of the task's fails (#noteStorageFault).
            if (passingStorageFault(error) === null) {
              this.#log.warn({ err: error, taskId: task.id }, 'upload queue: renewing a lease failed');
            }
          },
        );
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    const timeout = setTimeout(() => {
      this.#stopParser(run, 'timeout');
    }, parseTimeoutMs);
    try {
      this.#pool ??= createParsePool(options.queue.workers);
      const request = {
        bytes,
        filename: task.filename,
        unzippedLength: task.unzippedLength,
        maxBytes: options.limits.gunzipBytes,
        maxPoints: options.limits.trackPoints,
      };
      return { kind: 'parsed', outcome: await this.#pool.parse(request, run.abort.signal) };
    } catch (error) {
      return { kind: 'parser stopped', error };
    } finally {
      clearInterval(renewal);
      clearTimeout(timeout);
    }
  }

  /** The parser did not answer: a crash, a time-out, or the queue stopped it. */
  async #parserStopped(run: RunningTask, error: unknown): Promise<void> {
    const { task, owner, stopReason } = run;
    if (stopReason === 'lease lost') return;
    if (stopReason === 'stopping') {
      await this.#context.store.tasks.release(task.id, owner, false);
      return;
    }
    const what =
      stopReason === 'timeout'
        ? `took longer than ${duration(this.#context.options.queue.parseTimeoutMs)}`
        : 'crashed';
    this.#log.warn(
      { err: error, taskId: task.id, attempt: task.attempts },
      `upload queue: the parser ${what}`,
    );
    if (task.attempts >= MAX_PARSE_ATTEMPTS) {
      await this.#end(
        run,
        failed(
          stopReason === 'timeout' ? UploadErrorCode.PARSER_TIMEOUT : UploadErrorCode.PARSER_CRASHED,
          `Could not read the file: the parser ${what} on it ${task.attempts} times`,
        ),
      );
    } else {
      await this.#context.store.tasks.release(task.id, owner, true);
    }
  }

  /**
   * What the user has stored already from this upload (docs/contributors/decisions.md §5; issue 20): the routes and
   * trips of the same bytes, else of the same external_id through the same API client.
   */
  async #storedAlready(task: ClaimedTask, trx?: Kysely<Database>): Promise<StoredAlready> {
    const { tasks } = this.#context.store;
    const sameBytes = await tasks.assetsFromUpload(task.userId, task.sha256, trx);
    if (sameBytes.length > 0) return { objects: sameBytes, by: 'bytes' };
    if (task.externalId === null) return { objects: [], by: 'bytes' };
    const sameId = await tasks.assetsWithExternalId(task.userId, task.apiClientId, task.externalId, trx);
    return { objects: sameId, by: 'external_id' };
  }

  /**
   * Every ride and route of the file, their objects and the task's outcome, in one transaction. A ride
   * that is the same recording as a stored trip (issue 16, one-ride.ts) makes no new trip: the stored
   * one is the task's object, completed from this file when the stored copy was cut off.
   *
   * The rider's rides are stored one transaction at a time (the duplicate checks must see each other's
   * rides, db/engine.ts), and every statement under that lock is a round trip that all the rider's
   * other uploads wait for (issue 18: on PostgreSQL a storing transaction of 15 statements held it for
   * tens of milliseconds). So the transaction first writes everything without it and takes it only at
   * the end, to check, in two or three reads, that no other upload stored the same bytes or recording
   * meanwhile; when one did, it rolls back and stores again with the lock taken first. A file that
   * completes a stored trip updates a row another upload may update too, so it takes the lock first
   * (taking it last could deadlock with such an upload).
   */
  async #store(run: RunningTask, file: ParsedFile): Promise<void> {
    const { task } = run;
    // A large original is written before the transaction, outside it (store/large-values.ts).
    const original = await this.#context.store.originalFiles.stage(
      file.gzipped,
      isTheUpload(task, file) ? task.id : null,
    );
    try {
      const comparisons = await this.#comparePoints(task.userId, file);
      if ((await this.#storeRides(run, file, original, comparisons, 'lock last')) === 'again') {
        await this.#storeRides(run, file, original, comparisons, 'lock first');
      }
      this.#storageIsBack();
    } catch (error) {
      if (error instanceof TaskLeaseLostError) {
        this.#log.warn(
          { taskId: run.task.id },
          'upload queue: the lease ran out before the rides were stored',
        );
        return;
      }
      throw error;
    } finally {
      await original.release();
    }
  }

  /**
   * The comparisons of each ride's points with the rider's stored trips that the same-recording check
   * will ask for (one-ride.ts), made before #store's transaction, outside it, each in a worker thread.
   */
  async #comparePoints(userId: number, file: ParsedFile): Promise<PointComparisons[]> {
    const compare: CompareInThread = (request) => this.#threads().compare(request);
    const comparisons = file.tracks.map(() => new PointComparisons(compare));
    for (const [index, parsed] of file.tracks.entries()) {
      await findSameRide(this.#context.store, userId, parsed, comparisons[index]!);
    }
    return comparisons;
  }

  /**
   * #store's transaction. 'again': with the lock taken last, it found that the file's rides are to
   * be stored otherwise than it began to (another upload stored some of them meanwhile, or the file
   * completes a stored trip), and rolled back.
   */
  async #storeRides(
    run: RunningTask,
    file: ParsedFile,
    staged: StagedOriginal,
    comparisons: readonly PointComparisons[],
    lock: 'lock first' | 'lock last',
  ): Promise<'stored' | 'again'> {
    const { task, owner } = run;
    const { store } = this.#context;
    const { tracks } = file;
    const metadata: AssetMetadata = {
      ...(task.metadata.name === undefined ? {} : { name: task.metadata.name }),
      ...(task.metadata.description === undefined ? {} : { description: task.metadata.description }),
      ...(task.metadata.visibility === undefined ? {} : { visibility: task.metadata.visibility }),
      sourceSha256: task.sha256,
      externalId: task.externalId,
      externalClientId: task.externalId === null ? null : task.apiClientId,
    };
    try {
      await store.transaction(async (trx) => {
        // The same bytes or external_id may have been stored since the check before parsing (two uploads
        // at once, on this node or another): wait for any other transaction storing this rider's rides.
        if (lock === 'lock first') await store.tasks.serializeRidesOf(task.userId, trx);
        const existing = await this.#storedAlready(task, trx);
        if (existing.objects.length > 0) {
          // Read from committed rides: right without the lock too.
          return store.tasks.finish(task.id, owner, withDetailsNote(duplicate(existing), task.metadata), trx);
        }
        // Issue 20, "Original files": the file is kept once the first ride or route is made from it.
        let originalFileId: number | null = null;
        const original = async (): Promise<number> =>
          (originalFileId ??= await store.originalFiles.save(
            {
              userId: task.userId,
              filename: task.filename,
              format: file.format,
              stored: await staged.stored(trx),
              uploadedGzip: file.uploadedGzip,
              byteLength: file.uploadLength,
            },
            trx,
          ));
        const objects: TaskObject[] = [];
        /** the trips made, as compared (one-ride.ts) */
        const made: TripsCompared = new Map();
        const said = new Map<string, WarningWords>();
        const found: SameRide[] = [];
        // per track, the stored trips compared with it, for the check under the lock
        const compared = tracks.map((): TripsCompared => new Map());
        const sameRide = (index: number): Promise<SameRide | null> =>
          findSameRide(store, task.userId, tracks[index]!, comparisons[index]!, trx, compared[index]);
        for (const [index, parsed] of tracks.entries()) {
          const packedPoints = {
            bytes: parsed.packedPoints,
            count: parsed.pointCount,
            lastTime: parsed.lastTime,
            timeRange: parsed.timeRange,
          };
          const same = await sameRide(index);
          if (same !== null) {
            // A file that holds one recording twice (chained copies) makes one trip.
            if (objects.some((object) => object.type === 'trip' && object.id === same.trip.id)) continue;
            if (found.some((ride) => ride.trip.id === same.trip.id)) continue;
            if (same.completes) {
              if (lock === 'lock last') throw new StoreAgain();
              await store.assets.completeTrip(
                same.trip.id,
                parsed.track,
                { packedPoints, sourceSha256: task.sha256 },
                trx,
              );
            }
            found.push(same);
            continue;
          }
          const created = await store.assets.createFromTrack(
            task.userId,
            parsed.track,
            { ...metadata, packedPoints, originalFileId: await original() },
            trx,
          );
          objects.push({ type: created.type, id: created.row.id });
          if (created.type === 'trip') made.set(created.row.id, comparedAs(created.row));
          // Each problem once, about the first track it concerns (a cut-off end: the last track).
          for (const warning of parsed.track.warnings) {
            if (!said.has(warning.code)) {
              said.set(warning.code, warningWords(warning, warnedTrack(created.type, created.row)));
            }
          }
        }
        const outcome =
          objects.length === 0 && found.length > 0
            ? withDetailsNote(sameRecordingOutcome(found), task.metadata)
            : succeeded(objects, [...said.values()], found);
        await store.tasks.finish(task.id, owner, outcome, trx);
        if (lock === 'lock last') {
          await store.tasks.serializeRidesOf(task.userId, trx);
          for (const trips of compared) for (const [id, as] of made) trips.set(id, as);
          if (await this.#storedMeanwhile(task, tracks.length, objects, sameRide, trx))
            throw new StoreAgain();
        }
      });
      return 'stored';
    } catch (error) {
      if (error instanceof StoreAgain) return 'again';
      throw error;
    }
  }

  /**
   * Whether another upload stored, since this transaction read, rides that this file's would
   * duplicate: a route or trip of the same bytes or external_id, other than those this transaction
   * made (`made`), or a trip that is the same recording as one of its `trackCount` rides
   * (`sameRide`), among the trips not compared with that ride yet (those it read, found and made) or
   * completed since. Read under the rider's lock, so every such upload has committed.
   */
  async #storedMeanwhile(
    task: ClaimedTask,
    trackCount: number,
    made: readonly TaskObject[],
    sameRide: (index: number) => Promise<SameRide | null>,
    trx: Kysely<Database>,
  ): Promise<boolean> {
    const ours = (object: TaskObject): boolean =>
      made.some((mine) => mine.type === object.type && mine.id === object.id);
    const stored = await this.#storedAlready(task, trx);
    if (stored.objects.some((object) => !ours(object))) return true;
    for (let index = 0; index < trackCount; index++) {
      if ((await sameRide(index)) !== null) return true;
    }
    return false;
  }

  async #end(run: RunningTask, outcome: TaskOutcome): Promise<void> {
    try {
      await this.#context.store.tasks.finish(run.task.id, run.owner, outcome);
      this.#storageIsBack();
    } catch (error) {
      if (!(error instanceof TaskLeaseLostError)) throw error;
    }
  }

  #stopParser(run: RunningTask, reason: StopReason): void {
    if (run.stopReason !== null) return;
    run.stopReason = reason;
    run.abort.abort(new Error(`parser stopped: ${reason}`));
  }

  /**
   * docs/contributors/decisions.md §5: successful tasks are purged nightly at `purgeAt`, server local time. `after`: the
   * time of the purge that just ran, so a clock that stands still (tests) does not purge again at once.
   */
  #schedulePurge(after?: number): void {
    const { purgeAt } = this.#context.options.queue;
    if (purgeAt === null || this.#state !== 'running') return;
    const now = this.#context.options.clock();
    const from = Math.max(now, after ?? now);
    const at = from + millisecondsUntil(purgeAt, from);
    this.#purgeTimer = setTimeout(() => {
      void this.#purge().finally(() => {
        this.#schedulePurge(at);
      });
    }, at - now).unref();
  }

  /** The purge itself, by the one server on the database that holds the role (db/engine.ts). */
  async #purge(): Promise<void> {
    const { store } = this.#context;
    this.#purgeRole ??= store.exclusiveRole('nightly purge');
    try {
      if (!(await this.#purgeRole.held())) {
        this.#log.info('upload queue: another server on this database purges finished tasks');
        return;
      }
      this.#log.info(await store.tasks.purge(), 'upload queue: purged finished tasks');
    } catch (error) {
      this.#log.error({ err: error }, 'upload queue: purging tasks failed');
    }
  }
}

/**
 * Whether the original file kept is the task's upload itself (an upload that was gzip, or a ride of a
 * ZIP kept as gzip by the server): then the two are stored once.
 */
function isTheUpload(task: ClaimedTask, file: ParsedFile): boolean {
  return file.uploadedGzip || task.unzippedLength !== null;
}

function duration(milliseconds: number): string {
  return milliseconds < 10_000 ? `${milliseconds} ms` : `${Math.round(milliseconds / 1000)} s`;
}

/** A failed task: `message` in words for people, `errorCode` for programs (issue 16). */
function failed(errorCode: string, message: string): TaskOutcome {
  return { status: -1, responseCode: 'failed', message, errorCode, objects: [] };
}

/**
 * A file the parser rejected: its code for programs; for people, its message (the library's messages
 * are plain words: "the file is empty"), never led by the code (issue 16).
 */
export function unreadable(code: string, message: string): TaskOutcome {
  return failed(code, `Could not read the file: ${message}`);
}

/** Thrown inside #storeRides's transaction to roll it back and store the file again, the lock taken first. */
class StoreAgain extends Error {
  override readonly name = 'StoreAgain';
}

/** What the user stored already from an upload, and what told it: the same bytes or external_id. */
interface StoredAlready {
  objects: TaskObject[];
  by: 'bytes' | 'external_id';
}

function duplicate({ objects, by }: StoredAlready): TaskOutcome {
  const verb = objects.length === 1 ? 'exists' : 'exist';
  const same = by === 'bytes' ? 'from the same file' : 'with the same external_id';
  return {
    status: 1,
    responseCode: 'duplicate',
    message: `Duplicate upload: ${count(objects)} ${same} ${verb} already`,
    errorCode: null,
    objects,
  };
}

/**
 * A duplicate changes nothing (issue 20, "Duplicate with new details"; as Strava answers "duplicate
 * of <activity>" and leaves it be): when the upload carried a name, description or visibility, the
 * task says they were not applied, in every upload path alike (they all end here).
 */
function withDetailsNote(outcome: TaskOutcome, metadata: TaskMetadata): TaskOutcome {
  const sent = [
    metadata.name === undefined ? null : 'name',
    metadata.description === undefined ? null : 'description',
    metadata.visibility === undefined ? null : 'visibility',
  ].filter((field) => field !== null);
  if (sent.length === 0) return outcome;
  const message = `${outcome.message}; the ${inWords(sent)} sent with this upload ${
    sent.length === 1 ? 'was' : 'were'
  } not applied: edit the ride to change ${sent.length === 1 ? 'it' : 'them'}`;
  return { ...outcome, message };
}

/**
 * What the upload made, what was wrong with the file, in words (issue 16): "Created 1 ride from a file
 * that ends early: the ride was read up to 14:32", and the rides of the file already stored ("Already on
 * the platform as Morning Ride"), which the task's objects list too. The uploader's history shows this
 * message.
 */
export function succeeded(
  objects: TaskObject[],
  said: readonly WarningWords[] = [],
  found: readonly SameRide[] = [],
): TaskOutcome {
  const created = createdMessage(objects, said);
  return {
    status: 1,
    responseCode: 'success',
    message: found.length === 0 ? created : `${created}. ${foundWords(found)}`,
    errorCode: null,
    objects: [...objects, ...found.map((ride): TaskObject => ({ type: 'trip', id: ride.trip.id }))],
  };
}

function createdMessage(objects: readonly TaskObject[], said: readonly WarningWords[]): string {
  const created = `Created ${count(objects)}`;
  const [only] = said;
  if (only === undefined) return `${created} from upload`;
  if (said.length === 1) return `${created} from ${only.file}: ${only.consequence}`;
  // Task messages end without a full stop, as pages put them in sentences of their own.
  const sentences = said.map((words) => words.sentence).join(' ');
  return `${created} from a file with ${said.length} problems. ${sentences.replace(/\.$/, '')}`;
}

/** "2 rides", "1 ride and 1 route", "3 routes". */
export function count(objects: readonly TaskObject[]): string {
  const rides = objects.filter((object) => object.type === 'trip').length;
  const routes = objects.length - rides;
  const words = [
    rides > 0 ? `${rides} ${rides === 1 ? 'ride' : 'rides'}` : null,
    routes > 0 ? `${routes} ${routes === 1 ? 'route' : 'routes'}` : null,
  ].filter((word) => word !== null);
  return words.join(' and ');
}

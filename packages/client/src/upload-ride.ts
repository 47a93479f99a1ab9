/**
 * uploadRide (issue: "upload + poll `queued_tasks/status.json` with exponential backoff and jitter
 * (first poll soon, capped interval, overall deadline), returning the created trips or a typed
 * failure"; docs/integrators/api.md, legacy endpoints rule 1; docs/contributors/decisions.md §5).
 *
 * Retries, and why each is safe:
 * - The upload POST is not idempotent, so it is never re-sent after a plain error answer. When its
 *   answer is lost (UNREACHABLE, a transport TIMEOUT) or is a 5xx, the server may or may not have
 *   stored the file: the same bytes are sent again. Identical bytes from the same user are a duplicate
 *   (docs/contributors/decisions.md §5), so if the first upload did arrive the new task ends `duplicate` with the trips
 *   the first one made: a success for the caller, nothing made twice. A 507 (the server's disk is full,
 *   issue 17) is not a lost answer: the server said it stored nothing and will say so again for a
 *   while, so it goes to the caller at once (SERVER_FULL), to wait longer than this loop would.
 * - Status polls are GETs: retried on UNREACHABLE, TIMEOUT, 5xx and 429 until the deadline, except
 *   that a server unreachable for several polls in a row ends the wait with UNREACHABLE (and the task
 *   id): the caller then knows it is offline instead of waiting out the deadline, and a later upload
 *   of the same bytes ends as a duplicate of this task's trips.
 * - A 429 anywhere is waited out by the request layer (http.ts); a 401 ends everything at once.
 */
import { ClientError, ClientErrorCode, isRetryable } from './errors.js';
import type { CallOptions, Http } from './http.js';
import type { LegacyApi } from './legacy.js';
import type { RideUpload } from './multipart.js';
import type { QueuedTask, RouteRecord, TripRecord } from './records.js';
import { backoffDelayMs, throwIfAborted } from './timing.js';

/** How long `uploadRide` waits, and how often it asks. */
export interface UploadRideOptions {
  /** the whole operation, upload and polls, ms; default 120 s (files usually take ~10 s, occasionally minutes) */
  deadlineMs?: number;
  /** the first poll comes about this soon after the upload, ms; default 50 */
  firstPollMs?: number;
  /** polls are never further apart than this, ms; default 2 s */
  maxPollMs?: number;
  signal?: AbortSignal;
  /** told the task id as soon as the server has accepted the file */
  onTask?: (taskId: number) => void;
}

/** What became of an uploaded ride: the trips and routes the server made of it. */
export interface UploadedRide {
  taskId: number;
  /** `duplicate`: these bytes were uploaded before; the trips are the ones that upload made */
  outcome: 'created' | 'duplicate';
  /** the task's message */
  message: string;
  trips: TripRecord[];
  routes: RouteRecord[];
}

/** The defaults of `UploadRideOptions`, ms. */
export const UPLOAD_RIDE_DEFAULTS = { deadlineMs: 120_000, firstPollMs: 50, maxPollMs: 2_000 } as const;

/** Upload attempts in all (the first and its re-uploads after a lost answer). */
export const MAX_UPLOAD_ATTEMPTS = 4;
/** Backoff between re-uploads, ms. */
const REUPLOAD_BASE_MS = 250;
const REUPLOAD_CAP_MS = 4_000;
/** Polls in a row that find the server unreachable before the wait ends as UNREACHABLE. */
export const MAX_UNREACHABLE_POLLS = 4;
/** The status request sent right at the deadline may take this long, ms. */
const FINAL_POLL_GRACE_MS = 1_000;

export interface UploadRideContext {
  http: Http;
  legacy: LegacyApi;
  random: () => number;
}

/** The longest delay setTimeout takes; a longer deadline gets no timer on its requests. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long `waitForTask` waits, and how often it asks (as for `uploadRide`). */
export type WaitForTaskOptions = Omit<UploadRideOptions, 'onTask'>;

/** The deadline of one uploadRide (or waitForTask) and the requests made under it. */
class Deadline {
  readonly #http: Http;
  readonly #signal: AbortSignal | undefined;
  readonly #deadlineMs: number;
  readonly #atMs: number;
  /** the deadline's own TIMEOUTs, told apart from a transport's TIMEOUT on one request (retried) */
  readonly #errors = new WeakSet<ClientError>();

  constructor(http: Http, deadlineMs: number, signal: AbortSignal | undefined) {
    this.#http = http;
    this.#signal = signal;
    this.#deadlineMs = deadlineMs;
    this.#atMs = http.now() + deadlineMs;
  }

  remainingMs(): number {
    return this.#atMs - this.#http.now();
  }

  timeout(taskId: number | null, cause?: unknown): ClientError {
    const error = new ClientError(
      ClientErrorCode.TIMEOUT,
      taskId === null
        ? `the upload was not accepted within ${this.#deadlineMs} ms`
        : `task ${taskId} did not end within ${this.#deadlineMs} ms`,
      { taskId, cause },
    );
    this.#errors.add(error);
    return error;
  }

  /** Whether trying again may help (and there is still time: the deadline's TIMEOUT is final). */
  retryable(error: unknown): boolean {
    return isRetryable(error) && !this.#errors.has(error as ClientError);
  }

  /**
   * One request under the deadline: the caller's signal, plus a timer that aborts it at the deadline
   * (`graceMs` past it, for the last status poll, which is sent right at the deadline).
   */
  async request<T>(taskId: number | null, send: (call: CallOptions) => Promise<T>, graceMs = 0): Promise<T> {
    throwIfAborted(this.#signal);
    const left = this.remainingMs() + graceMs;
    if (left <= 0) throw this.timeout(taskId);
    const controller = new AbortController();
    const timer =
      left > MAX_TIMER_MS
        ? undefined
        : setTimeout(() => {
            controller.abort(new Error('uploadRide deadline'));
          }, left);
    // The caller's signal aborts this request through a listener removed when the request ends, not
    // AbortSignal.any: in Node 20, AbortSignal.any leaves a reference on a long-lived signal (the sync
    // engine passes one to every upload) for each signal it makes, forever (issue 22).
    const callerAborted = (): void => {
      controller.abort(this.#signal?.reason);
    };
    this.#signal?.addEventListener('abort', callerAborted, { once: true });
    try {
      return await send({ signal: controller.signal, deadlineAtMs: this.#atMs + graceMs });
    } catch (error) {
      if (controller.signal.aborted && this.#signal?.aborted !== true) throw this.timeout(taskId, error);
      throw error;
    } finally {
      clearTimeout(timer);
      this.#signal?.removeEventListener('abort', callerAborted);
    }
  }
}

export async function uploadRide(
  context: UploadRideContext,
  upload: RideUpload,
  options: UploadRideOptions = {},
): Promise<UploadedRide> {
  const { http, legacy, random } = context;
  const deadline = new Deadline(http, options.deadlineMs ?? UPLOAD_RIDE_DEFAULTS.deadlineMs, options.signal);

  // Upload, re-sending the same bytes while the answer is lost (see the top of this file).
  let taskId: number | undefined;
  for (let attempt = 0; taskId === undefined; attempt += 1) {
    try {
      ({ taskId } = await deadline.request(null, (call) => legacy.uploadFile(upload, call)));
    } catch (error) {
      const answerLost =
        error instanceof ClientError &&
        error.code !== ClientErrorCode.RATE_LIMITED &&
        error.code !== ClientErrorCode.SERVER_FULL &&
        deadline.retryable(error);
      if (!answerLost || attempt + 1 >= MAX_UPLOAD_ATTEMPTS) throw error;
      const delayMs = backoffDelayMs(attempt, { baseMs: REUPLOAD_BASE_MS, capMs: REUPLOAD_CAP_MS, random });
      if (delayMs >= deadline.remainingMs()) throw deadline.timeout(null, error);
      await http.pause(delayMs, options.signal);
    }
  }
  options.onTask?.(taskId);
  return pollTask(context, taskId, deadline, options);
}

/**
 * Polls a task that was uploaded earlier until it ends (e.g. after a restart, with the id onTask gave):
 * the second half of uploadRide, with a deadline of its own.
 */
export function waitForTask(
  context: UploadRideContext,
  taskId: number,
  options: WaitForTaskOptions = {},
): Promise<UploadedRide> {
  const deadline = new Deadline(
    context.http,
    options.deadlineMs ?? UPLOAD_RIDE_DEFAULTS.deadlineMs,
    options.signal,
  );
  return pollTask(context, taskId, deadline, options);
}

/** Polls until the task ends or the deadline passes. */
async function pollTask(
  { http, legacy, random }: UploadRideContext,
  id: number,
  deadline: Deadline,
  options: WaitForTaskOptions,
): Promise<UploadedRide> {
  const firstPollMs = options.firstPollMs ?? UPLOAD_RIDE_DEFAULTS.firstPollMs;
  const maxPollMs = Math.max(firstPollMs, options.maxPollMs ?? UPLOAD_RIDE_DEFAULTS.maxPollMs);
  let unreachable = 0;
  for (let attempt = 0; ; attempt += 1) {
    const left = deadline.remainingMs();
    if (left <= 0) throw deadline.timeout(id);
    const delayMs = backoffDelayMs(attempt, { baseMs: firstPollMs, capMs: maxPollMs, random });
    // The last wait is cut short so that one poll still happens right at the deadline.
    const last = delayMs >= left;
    await http.pause(last ? left : delayMs, options.signal);
    let task: QueuedTask | undefined;
    try {
      [task] = await deadline.request(
        id,
        (call) => legacy.taskStatus([id], { ...call, includeObjects: true }),
        last ? FINAL_POLL_GRACE_MS : 0,
      );
    } catch (error) {
      const down = error instanceof ClientError && error.code === ClientErrorCode.UNREACHABLE;
      unreachable = down ? unreachable + 1 : 0;
      if (deadline.retryable(error) && unreachable < MAX_UNREACHABLE_POLLS) continue;
      throw error instanceof ClientError && error.taskId === null ? error.withTaskId(id) : error;
    }
    unreachable = 0;
    if (task === undefined) {
      // Only the caller's own tasks are answered; unknown and purged ids are left out (docs/contributors/decisions.md §5).
      throw new ClientError(ClientErrorCode.NOT_FOUND, `task ${id} is not in the status answer`, {
        taskId: id,
      });
    }
    if (task.status === 0) continue;
    if (task.status === 1) return outcomeOf(task);
    throw new ClientError(ClientErrorCode.REJECTED, `task ${id} failed: ${task.message}`, {
      serverMessages: [task.message],
      serverCode: task.error_code ?? null,
      taskId: id,
    });
  }
}

function outcomeOf(task: QueuedTask): UploadedRide {
  const trips: TripRecord[] = [];
  const routes: RouteRecord[] = [];
  for (const object of task.associated_objects) {
    if (object.type === 'trip') trips.push(object.trip);
    else routes.push(object.route);
  }
  return {
    taskId: task.id,
    outcome: task.response_code === 'duplicate' ? 'duplicate' : 'created',
    message: task.message,
    trips,
    routes,
  };
}

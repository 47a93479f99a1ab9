/**
 * The webhook dispatcher (docs/contributors/decisions.md §6; issue 5, "Webhooks"): delivers the outbox that
 * logAssetChange fills in the transaction of every change (store/webhooks.ts).
 *
 * Life: built with the app, doing nothing; `start()` runs when the server is ready (onReady), `stop()`
 * when it closes (preClose, before the database closes). Stopping aborts requests in flight without
 * recording them: those deliveries go out again, with the same delivery id, after the next start. Every
 * state that matters is in the database, so a killed server resumes where it was.
 *
 * Finding work — polling, not a signal from the writer: changes are also written by the upload
 * queue's workers, on connections of their own, which the dispatcher cannot hear. Every
 * `pollIntervalMs` (250 ms) it reads the outbox rows written since the last look (a primary-key range,
 * so an idle server reads nothing). On SQLite rows become visible in id order (one writer at a time);
 * on PostgreSQL a row can commit after a row with a higher id (issue 18), so every
 * PENDING_RESCAN_POLLS polls (5 s) the dispatcher also reads which clients have anything pending at all
 * (an index-only read of the pending rows), and a late row is delivered then, never left for a restart.
 *
 * Batching: a client's notifications go out up to 100 a request. A batch is sent when 100 are waiting,
 * or when its oldest notification is `batchWindowMs` (1 s) old; with the poll interval that is within
 * 1.25 s of the change (docs/contributors/decisions.md §6: "batched over at most 2 seconds").
 *
 * Order: per API client, strictly first in, first out. A client has at most one delivery open: its
 * next batch is formed only once the previous one is delivered or has failed for good, so while a
 * batch waits for a retry, nothing newer goes to that client (a later notification about an item can
 * never overtake an earlier one). A batch keeps its notifications and its delivery id across retries
 * and restarts (x-service-delivery lets receivers drop repeats: delivery is at least once). Clients
 * do not wait for each other.
 *
 * Failures: anything but a 2xx within `requestTimeoutMs` (status, timeout, connection error) is
 * retried after retryDelayMs (exponential, with jitter) until `giveUpAfterMs` (24 h) after the batch's
 * oldest change; then the batch is marked failed and the client's next batch goes. A target the policy
 * refuses (targets.ts) fails at once, its reason in the delivery log (issue 17): it would be refused
 * again. A client whose webhook URL has been removed has its waiting notifications marked failed (one
 * logged "attempt" per batch, without a request): its developer asked for no more webhooks.
 *
 * Every attempt is logged in webhook_deliveries (the developer settings page shows it). Times compared
 * with stored times come from the server's clock (options.clock); durations from the monotonic clock.
 * Delivered and failed notifications are deleted after `outboxRetentionMs` (7 days), log entries after
 * `deliveryLogRetentionMs` (30 days).
 *
 * One dispatcher per database: on SQLite one server runs on a data directory; on PostgreSQL, where
 * several servers share the database, the dispatcher delivers only while it holds the role "webhook
 * dispatcher" (an advisory lock, db/engine.ts), asked at every poll; another server's dispatcher takes
 * over within a poll of its death and resumes each open delivery with its delivery id. (Were two to
 * run, they would lose nothing: a batch is claimed with a conditional update.)
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerContext } from '../context.js';
import type { ExclusiveRole } from '../db/engine.js';
import type { ApiClient, AttemptOutcome, OutboxRow } from '../store/index.js';
import { faultWords, StorageFaultNotice } from '../storage-fault.js';
import { nextAttemptAt } from './backoff.js';
import { deliveryHeaders, MAX_NOTIFICATIONS_PER_REQUEST, notificationsBody } from './payload.js';
import { WebhookPoster, type PostResult } from './post.js';

/** Delivered and failed notifications and old log entries are deleted at most this often. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** Polls between two reads of every client with pending notifications (rows committed late). */
const PENDING_RESCAN_POLLS = 20;

/** What the dispatcher knows of one API client with notifications to deliver. */
interface ClientQueue {
  apiClientId: number;
  /**
   * At or below the id of the client's oldest notification neither delivered nor failed; every later
   * notification of the client is unresolved too (they are resolved strictly in order)
   */
  headId: number;
  /** server-clock time before which there is nothing to do: the end of a batch window, or a retry */
  notBefore: number;
  /** a step is running for this client */
  busy: boolean;
  /** bumped whenever newer notifications of this client are seen */
  discoveries: number;
}

type State = 'idle' | 'running' | 'stopping' | 'stopped';

export class WebhookDispatcher {
  readonly #context: ServerContext;
  readonly #log: FastifyBaseLogger;
  /** a full disk or a database out of reach, said once when it begins and once when it has passed */
  readonly #faults: StorageFaultNotice;
  #state: State = 'idle';
  #stopped: Promise<void> | null = null;
  #poster: WebhookPoster | null = null;
  readonly #stopping = new AbortController();
  readonly #queues = new Map<number, ClientQueue>();
  /** the newest outbox id seen */
  #lastSeenId = 0;
  /** whether this server delivers (holds the role); the queues are read afresh when it starts to */
  #leading = false;
  #pollsToRescan = 0;
  #role: ExclusiveRole | null = null;
  #timer: NodeJS.Timeout | null = null;
  #tickRunning: Promise<void> | null = null;
  readonly #steps = new Set<Promise<void>>();
  #nextPruneAt = 0;

  /** Nothing happens until `start()`. */
  constructor(context: ServerContext, log: FastifyBaseLogger) {
    this.#context = context;
    this.#log = log;
    // Deliveries wait while the storage fails; nothing is lost.
    this.#faults = new StorageFaultNotice(log, faultWords('webhooks', 'deliveries'));
  }

  /**
   * Starts polling; the first poll picks up what a previous run left (any undelivered notification),
   * once this server holds the dispatcher's role.
   */
  start(): Promise<void> {
    if (this.#state !== 'idle') return Promise.resolve();
    this.#state = 'running';
    const { options, store } = this.#context;
    this.#poster = new WebhookPoster({
      allowPrivateTargets: options.webhooks.allowPrivateTargets,
      requestTimeoutMs: options.webhooks.requestTimeoutMs,
      resolveHost: options.webhooks.resolveHost,
    });
    this.#role = store.exclusiveRole('webhook dispatcher');
    this.#schedule(0);
    return Promise.resolve();
  }

  /** Stops polling, aborts requests in flight (not recorded) and waits for the database work to end. */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    if (this.#state === 'idle') {
      this.#state = 'stopped';
      return;
    }
    this.#state = 'stopping';
    this.#stopping.abort();
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#tickRunning;
    await Promise.all(this.#steps);
    await this.#role?.release();
    await this.#poster?.close();
    this.#state = 'stopped';
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#tickRunning = this.#tick().finally(() => {
        this.#tickRunning = null;
        if (this.#state === 'running') this.#schedule(this.#context.options.webhooks.pollIntervalMs);
      });
    }, delayMs);
    // The dispatcher alone never keeps a process alive (the listening server does).
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    const { store, clock } = { store: this.#context.store, clock: this.#context.options.clock };
    try {
      const held = await this.#role!.held();
      this.#faults.succeeded();
      if (!held) {
        // Another server delivers; what this one knew goes stale, and is read afresh if it takes over.
        this.#leading = false;
        for (const [id, queue] of this.#queues) if (!queue.busy) this.#queues.delete(id);
        return;
      }
      if (!this.#leading || --this.#pollsToRescan <= 0) {
        if (!this.#leading) this.#lastSeenId = await store.webhooks.latestOutboxId();
        this.#leading = true;
        this.#pollsToRescan = PENDING_RESCAN_POLLS;
        this.#noteWaiting(await store.webhooks.pendingClients());
      }
      const seen = await store.webhooks.newSince(this.#lastSeenId);
      this.#lastSeenId = seen.latestId;
      this.#noteWaiting(seen.clients);
      const now = clock();
      if (now >= this.#nextPruneAt) {
        this.#nextPruneAt = now + PRUNE_INTERVAL_MS;
        const { outboxRetentionMs, deliveryLogRetentionMs } = this.#context.options.webhooks;
        await store.webhooks.prune(now - outboxRetentionMs, now - deliveryLogRetentionMs);
      }
    } catch (error) {
      if (!this.#faults.failed(error)) this.#log.error({ err: error }, 'webhooks: reading the outbox failed');
    }
    for (const queue of this.#queues.values()) {
      if (this.#state !== 'running') break;
      if (queue.busy || clock() < queue.notBefore) continue;
      const step: Promise<void> = this.#step(queue).finally(() => this.#steps.delete(step));
      this.#steps.add(step);
    }
  }

  /** Clients with notifications from `firstId` on: a new queue, or an earlier head for a known one. */
  #noteWaiting(clients: ReadonlyArray<{ apiClientId: number; firstId: number }>): void {
    for (const { apiClientId, firstId } of clients) {
      const queue = this.#queues.get(apiClientId);
      if (queue === undefined) {
        this.#queues.set(apiClientId, {
          apiClientId,
          headId: firstId,
          notBefore: 0,
          busy: false,
          discoveries: 0,
        });
      } else {
        queue.headId = Math.min(queue.headId, firstId);
        queue.discoveries += 1;
      }
    }
  }

  /** Delivers the client's batches one after another until it has none due. Never rejects. */
  async #step(queue: ClientQueue): Promise<void> {
    queue.busy = true;
    try {
      while (this.#state === 'running') {
        if (!(await this.#deliverNext(queue))) return;
      }
    } catch (error) {
      if (!this.#faults.failed(error)) {
        this.#log.error({ err: error, apiClientId: queue.apiClientId }, 'webhooks: delivery step failed');
      }
      queue.notBefore = this.#context.options.clock() + this.#context.options.webhooks.backoffBaseMs;
    } finally {
      queue.busy = false;
    }
  }

  /**
   * Delivers the client's next batch if it is due. True when a batch was resolved (delivered or failed)
   * and the next may follow at once; false when there is nothing to do now.
   */
  async #deliverNext(queue: ClientQueue): Promise<boolean> {
    const { store, options } = this.#context;
    const now = options.clock();
    if (now < queue.notBefore) return false;
    const discoveries = queue.discoveries;
    const rows = await store.webhooks.pendingOf(
      queue.apiClientId,
      queue.headId,
      MAX_NOTIFICATIONS_PER_REQUEST,
    );
    const first = rows[0];
    if (first === undefined) {
      // Idle; unless newer rows were seen while this query ran, the next ones re-create the queue.
      if (queue.discoveries === discoveries) this.#queues.delete(queue.apiClientId);
      return false;
    }
    queue.headId = first.id;
    let batch: OutboxRow[];
    let deliveryId: string;
    if (first.delivery_id !== null) {
      // An open delivery (a retry, or one a stopped or killed server left): the same rows, the same id.
      deliveryId = first.delivery_id;
      batch = rows.filter((row) => row.delivery_id === deliveryId);
      if (now < first.next_attempt_at) {
        queue.notBefore = first.next_attempt_at;
        return false;
      }
    } else {
      const windowEnd = first.created_at + options.webhooks.batchWindowMs;
      if (rows.length < MAX_NOTIFICATIONS_PER_REQUEST && now < windowEnd) {
        queue.notBefore = windowEnd;
        return false;
      }
      const end = rows.findIndex((row) => row.delivery_id !== null);
      batch = end === -1 ? rows : rows.slice(0, end);
      deliveryId = randomUUID();
      if (
        !(await store.webhooks.startDelivery(
          batch.map((row) => row.id),
          deliveryId,
        ))
      ) {
        queue.notBefore = now + options.webhooks.pollIntervalMs;
        return false;
      }
    }
    const resolved = await this.#attempt(queue, batch, deliveryId);
    if (resolved) {
      queue.headId = batch.at(-1)!.id + 1;
      queue.notBefore = 0;
    }
    return resolved;
  }

  /** One attempt at a delivery, logged; true when the delivery is now resolved. */
  async #attempt(queue: ClientQueue, batch: readonly OutboxRow[], deliveryId: string): Promise<boolean> {
    const { store, options } = this.#context;
    const client = await store.apiClients.findById(queue.apiClientId);
    // A deleted client's outbox rows went with it (foreign-key cascade).
    if (client === undefined) return true;
    const attempt = batch[0]!.attempts + 1;
    const attemptedAt = options.clock();
    const result = await this.#post(client, batch, deliveryId);
    if (result.interrupted) return false;
    let outcome: AttemptOutcome;
    if (result.ok) {
      outcome = { kind: 'delivered' };
    } else if (client.webhookUrl === null || result.refused) {
      // No URL, or one the target policy refuses (issue 17): no later attempt could go better.
      outcome = { kind: 'failed' };
    } else {
      const oldest = Math.min(...batch.map((row) => row.created_at));
      const next = nextAttemptAt(attempt, options.clock(), oldest, options.webhooks);
      outcome = next === null ? { kind: 'failed' } : { kind: 'retry', nextAttemptAt: next };
    }
    await store.webhooks.recordAttempt({
      apiClientId: client.id,
      deliveryId,
      outboxIds: batch.map((row) => row.id),
      url: client.webhookUrl ?? '',
      attempt,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      at: attemptedAt,
      outcome,
    });
    const context = { apiClientId: client.id, deliveryId, attempt, statusCode: result.statusCode };
    if (outcome.kind === 'retry') {
      this.#log.debug({ ...context, error: result.error }, 'webhooks: attempt failed, will retry');
      queue.notBefore = outcome.nextAttemptAt;
      return false;
    }
    if (outcome.kind === 'failed') {
      this.#log.warn({ ...context, error: result.error }, 'webhooks: delivery failed for good');
    }
    return true;
  }

  #post(client: ApiClient, batch: readonly OutboxRow[], deliveryId: string): Promise<PostResult> {
    if (client.webhookUrl === null) {
      return Promise.resolve({
        ok: false,
        statusCode: null,
        error: 'no webhook URL is set: the notifications were dropped',
        refused: false,
        durationMs: 0,
        interrupted: false,
      });
    }
    const { store, options } = this.#context;
    const body = notificationsBody(batch, options.baseUrl);
    const headers = deliveryHeaders(body, client.apiKey, store.apiClients.secretOf(client), deliveryId);
    return this.#poster!.post(client.webhookUrl, body, headers, this.#stopping.signal);
  }
}

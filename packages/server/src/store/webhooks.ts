/**
 * The webhook outbox and its delivery log (docs/contributors/decisions.md §6; tables of migration 3).
 *
 * - `queueWebhookNotifications` writes one outbox row per API client to notify, with the transaction
 *   of the change itself (logAssetChange calls it), so a change is never committed without its
 *   notifications nor announced without being committed.
 * - The `Webhooks` repository is what the dispatcher (src/webhooks) and the developer settings page
 *   read and write: the pending notifications of a client, in order, the batches (deliveries) they are
 *   sent in, and every attempt.
 *
 * Who is notified: the API clients the item's owner has authorized, meaning the owner holds an
 * unrevoked auth token or an unrevoked OAuth access token for that client (docs/contributors/decisions.md §1 and §6),
 * and whose webhook URL is set and whose asset kinds include the item's type. A revoked token never
 * counts: revoking withdraws the authorization. An auth token that has merely expired (unused for the
 * configured lifetime) still counts: expiry asks the user to log in again (docs/contributors/decisions.md §1), it does
 * not withdraw the client's authorization (OAuth tokens, the other way to authorize, never expire);
 * the notification carries ids only, and reading the item still needs a live credential. The
 * lifetime is also a server option that the change log, written from any transaction, does not have.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, WebhookDeliveriesTable, WebhookOutboxTable } from '../db/schema.js';
import type { NewAssetChange } from './asset-change.js';
import type { StoreContext } from './context.js';

export type OutboxRow = Selectable<WebhookOutboxTable>;
export type DeliveryLogRow = Selectable<WebhookDeliveriesTable>;

/**
 * Writes the outbox rows of one change with `db`, which must be the transaction that makes the change.
 * One INSERT … SELECT: the owner's unrevoked tokens come from the (user_id, api_client_id) indexes of
 * auth_tokens and oauth_tokens, their clients by primary key; nothing else is read. It runs inside
 * every upload's transaction, so it must stay this cheap.
 */
export async function queueWebhookNotifications(db: Kysely<Database>, change: NewAssetChange): Promise<void> {
  await db
    .insertInto('webhook_outbox')
    .columns([
      'api_client_id',
      'user_id',
      'item_type',
      'item_id',
      'item_user_id',
      'action',
      'created_at',
      'delivery_id',
      'next_attempt_at',
      'attempts',
      'delivered_at',
      'failed_at',
      'last_error',
    ])
    .expression((eb) =>
      eb
        .selectFrom('api_clients as c')
        .select((s) => [
          'c.id',
          s.val(change.userId).as('user_id'),
          s.val(change.itemType).as('item_type'),
          s.val(change.itemId).as('item_id'),
          s.val(change.itemUserId).as('item_user_id'),
          s.val(change.action).as('action'),
          s.val(change.at).as('created_at'),
          sql<null>`NULL`.as('delivery_id'),
          s.val(change.at).as('next_attempt_at'),
          s.val(0).as('attempts'),
          sql<null>`NULL`.as('delivered_at'),
          sql<null>`NULL`.as('failed_at'),
          sql<null>`NULL`.as('last_error'),
        ])
        .where(
          'c.id',
          'in',
          eb
            .selectFrom('auth_tokens')
            .select('api_client_id')
            .where('user_id', '=', change.itemUserId)
            .where('revoked_at', 'is', null)
            .union(
              eb
                .selectFrom('oauth_tokens')
                .select('api_client_id')
                .where('user_id', '=', change.itemUserId)
                .where('revoked_at', 'is', null),
            ),
        )
        .where('c.webhook_url', 'is not', null)
        // webhook_assets is a comma-separated list of kinds (schema.ts)
        .where(sql<boolean>`',' || c.webhook_assets || ',' LIKE ${`%,${change.itemType},%`}`)
        .orderBy('c.id'),
    )
    .execute();
}

/** What happened to one attempt, and so to the notifications of its delivery. */
export type AttemptOutcome =
  { kind: 'delivered' } | { kind: 'retry'; nextAttemptAt: number } | { kind: 'failed' };

export interface AttemptRecord {
  apiClientId: number;
  deliveryId: string;
  /** the outbox rows of the delivery */
  outboxIds: readonly number[];
  /** the URL posted to ('' when the client had none) */
  url: string;
  /** 1 for the first attempt of the delivery */
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** Unix milliseconds */
  at: number;
  outcome: AttemptOutcome;
}

export class Webhooks {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /** The newest outbox id, 0 when the outbox is empty (the dispatcher reads rows after it from then on). */
  async latestOutboxId(): Promise<number> {
    const row = await this.#context.db
      .selectFrom('webhook_outbox')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return row?.id ?? 0;
  }

  /**
   * Per API client, the id of its oldest notification neither delivered nor failed (a dispatcher
   * starting, or looking for rows committed after rows with higher ids: dispatcher.ts). Index-only, on
   * webhook_outbox_due.
   */
  async pendingClients(): Promise<Array<{ apiClientId: number; firstId: number }>> {
    const rows = await this.#context.db
      .selectFrom('webhook_outbox')
      .select(['api_client_id', (eb) => eb.fn.min('id').as('first_id')])
      .where('delivered_at', 'is', null)
      .where('failed_at', 'is', null)
      .groupBy('api_client_id')
      .execute();
    return rows.map((row) => ({ apiClientId: row.api_client_id, firstId: row.first_id }));
  }

  /**
   * Per API client, the first id of the notifications written after `afterId` (a range of the primary
   * key: only the new rows are read), and the newest id overall. On SQLite ids become visible in
   * increasing order (one writer at a time); on PostgreSQL a lower id can appear later, which the
   * dispatcher's reads of pendingClients find.
   */
  async newSince(
    afterId: number,
  ): Promise<{ latestId: number; clients: Array<{ apiClientId: number; firstId: number }> }> {
    const rows = await this.#context.db
      .selectFrom('webhook_outbox')
      .select([
        'api_client_id',
        (eb) => eb.fn.min('id').as('first_id'),
        (eb) => eb.fn.max('id').as('last_id'),
      ])
      .where('id', '>', afterId)
      .groupBy('api_client_id')
      .execute();
    let latestId = afterId;
    for (const row of rows) latestId = Math.max(latestId, row.last_id);
    return {
      latestId,
      clients: rows.map((row) => ({ apiClientId: row.api_client_id, firstId: row.first_id })),
    };
  }

  /**
   * The client's oldest `limit` notifications neither delivered nor failed, from id `fromId` on, in
   * order. Read along the primary key from `fromId` (the unary `+` keeps SQLite from choosing the
   * webhook_outbox_due index, which would visit every client's pending rows): the dispatcher resolves
   * a client's notifications strictly in order, so its `fromId` is never far behind the first row.
   */
  async pendingOf(apiClientId: number, fromId: number, limit: number): Promise<OutboxRow[]> {
    return this.#context.db
      .selectFrom('webhook_outbox')
      .selectAll()
      .where('id', '>=', fromId)
      .where(sql<number>`+api_client_id`, '=', apiClientId)
      .where(sql<number | null>`+delivered_at`, 'is', null)
      .where(sql<number | null>`+failed_at`, 'is', null)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * Makes the notifications `outboxIds` one delivery: `deliveryId` stays with them across every retry
   * (and restart), so receivers can drop repeats. False, and nothing changed, when any of them already
   * belongs to a delivery (another dispatcher got there first).
   */
  async startDelivery(outboxIds: readonly number[], deliveryId: string): Promise<boolean> {
    return this.#context.db
      .transaction()
      .execute(async (trx) => {
        const result = await trx
          .updateTable('webhook_outbox')
          .set({ delivery_id: deliveryId })
          .where('id', 'in', outboxIds)
          .where('delivery_id', 'is', null)
          .where('delivered_at', 'is', null)
          .where('failed_at', 'is', null)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === outboxIds.length) return true;
        // Rolls back: the delivery is either all of them or none.
        throw new DeliveryTaken();
      })
      .catch((error: unknown) => {
        if (error instanceof DeliveryTaken) return false;
        throw error;
      });
  }

  /** Logs one attempt and applies its outcome to the delivery's notifications, in one transaction. */
  async recordAttempt(record: AttemptRecord): Promise<void> {
    await this.#context.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhook_deliveries')
        .values({
          api_client_id: record.apiClientId,
          delivery_id: record.deliveryId,
          url: record.url,
          notification_count: record.outboxIds.length,
          attempt: record.attempt,
          status_code: record.statusCode,
          error: record.error,
          duration_ms: record.durationMs,
          attempted_at: record.at,
        })
        .execute();
      const { outcome } = record;
      if (record.outboxIds.length === 0) return;
      await trx
        .updateTable('webhook_outbox')
        .set({
          attempts: record.attempt,
          last_error: outcome.kind === 'delivered' ? null : (record.error ?? `HTTP ${record.statusCode}`),
          ...(outcome.kind === 'delivered' ? { delivered_at: record.at } : {}),
          ...(outcome.kind === 'failed' ? { failed_at: record.at } : {}),
          ...(outcome.kind === 'retry' ? { next_attempt_at: outcome.nextAttemptAt } : {}),
        })
        .where('id', 'in', record.outboxIds)
        .execute();
    });
  }

  /** The client's latest delivery attempts, newest first (the developer settings page). */
  recentAttempts(apiClientId: number, limit: number): Promise<DeliveryLogRow[]> {
    return this.#context.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('api_client_id', '=', apiClientId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** How many of the client's notifications are neither delivered nor failed yet. */
  async pendingCount(apiClientId: number): Promise<number> {
    const row = await this.#context.db
      .selectFrom('webhook_outbox')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('delivered_at', 'is', null)
      .where('failed_at', 'is', null)
      .where('api_client_id', '=', apiClientId)
      .executeTakeFirstOrThrow();
    return row.count;
  }

  /** Every outbox row of a client, oldest first (tests and diagnostics). */
  outboxOf(apiClientId: number): Promise<OutboxRow[]> {
    return this.#context.db
      .selectFrom('webhook_outbox')
      .selectAll()
      .where('api_client_id', '=', apiClientId)
      .orderBy('id')
      .execute();
  }

  /**
   * Deletes notifications delivered or failed before `outboxBefore`, and delivery-log entries older
   * than `logBefore` (Unix milliseconds). Both outbox deletions are ranges of webhook_outbox_due.
   */
  async prune(outboxBefore: number, logBefore: number): Promise<void> {
    await this.#context.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhook_outbox').where('delivered_at', '<', outboxBefore).execute();
      await trx
        .deleteFrom('webhook_outbox')
        .where('delivered_at', 'is', null)
        .where('failed_at', '<', outboxBefore)
        .execute();
      await trx.deleteFrom('webhook_deliveries').where('attempted_at', '<', logBefore).execute();
    });
  }
}

/** Thrown inside startDelivery's transaction to roll it back. */
class DeliveryTaken extends Error {
  override readonly name = 'DeliveryTaken';
}

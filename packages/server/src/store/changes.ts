/**
 * The change log of routes and trips (table asset_changes): one row for every create, update and
 * delete, written in the transaction of the change itself (docs/contributors/architecture.md, "Storage": one transaction per
 * change). `GET /api/v1/sync.json` reads it (docs/contributors/decisions.md §2), and the webhook outbox of issue 5 is
 * written beside it in the same transaction (docs/contributors/decisions.md §6), so a change can never be made without
 * being announced. The log is append-only: sync.json with since=1970-01-01 reads all of it, and the
 * v1 list pages (api/v1/asset-endpoints.ts) rely on the newest id of an owner's changes only ever growing.
 */
import type { Kysely, Selectable } from 'kysely';
import { PreparedQuery } from '../db/prepared.js';
import type { AssetChangesTable, AssetType, ChangeAction, Database } from '../db/schema.js';
import { VersionedCache } from '../versioned-cache.js';
import type { NewAssetChange } from './asset-change.js';
import type { StoreContext } from './context.js';
import { queueWebhookNotifications } from './webhooks.js';

export type AssetChangeRow = Selectable<AssetChangesTable>;

export type { NewAssetChange } from './asset-change.js';

/**
 * Writes one change-log row with `db`, which must be the transaction that makes the change, and the
 * change's webhook notifications, one outbox row per API client to notify (docs/contributors/decisions.md §6: "an outbox
 * in the database, written in the same transaction as the change"; store/webhooks.ts says who).
 */
export async function logAssetChange(db: Kysely<Database>, change: NewAssetChange): Promise<AssetChangeRow> {
  const row = await db
    .insertInto('asset_changes')
    .values({
      item_type: change.itemType,
      item_id: change.itemId,
      item_user_id: change.itemUserId,
      user_id: change.userId,
      action: change.action,
      at: change.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await queueWebhookNotifications(db, change);
  return row;
}

/** One asset that changed in a time window, as sync.json reports it. */
export interface SyncedAsset {
  itemType: AssetType;
  itemId: number;
  itemUserId: number;
  /**
   * 'deleted' when the last change was the deletion; else 'created' when the asset was created inside
   * the window (the client has never seen it), else 'updated'
   */
  action: ChangeAction;
  /** Unix milliseconds of the asset's last change in the window */
  at: number;
}

/** Owners and kinds whose newest change id is kept: more than a local server's users; a number and a short key each, under 100 KB (issue 22). */
const LATEST_CHANGE_IDS_KEPT = 1000;

export class AssetChanges {
  readonly #context: StoreContext;
  /** compiled once (db/prepared.ts): the v1 lists ask it on every request */
  readonly #latestChangeId;
  /** the answers of latestChangeId, by owner and kind, while the database is unchanged */
  readonly #latestChangeIds = new VersionedCache<number>(LATEST_CHANGE_IDS_KEPT);

  constructor(context: StoreContext) {
    this.#context = context;
    this.#latestChangeId = new PreparedQuery(context.db, 2, (db, ownerId: number, kind: AssetType) =>
      db
        .selectFrom('asset_changes')
        .select((eb) => eb.fn.max('id').as('id'))
        .where('item_user_id', '=', ownerId)
        .where('item_type', '=', kind),
    );
  }

  /**
   * What changed in `ownerId`'s library at or after `sinceMs`, one entry per asset (its last change),
   * oldest first. The window is inclusive: the next_sync_url of sync.json carries the answer's time cut
   * to whole seconds, so a change in that same second is reported again rather than lost.
   */
  async since(ownerId: number, sinceMs: number, kinds: readonly AssetType[]): Promise<SyncedAsset[]> {
    if (kinds.length === 0) return [];
    const rows = await this.#context.db
      .selectFrom('asset_changes')
      .select(['item_type', 'item_id', 'item_user_id', 'action', 'at'])
      .where('item_user_id', '=', ownerId)
      .where('at', '>=', sinceMs)
      .where('item_type', 'in', kinds)
      .orderBy('at')
      .orderBy('id')
      .execute();
    const byAsset = new Map<string, SyncedAsset>();
    for (const row of rows) {
      const key = `${row.item_type}:${row.item_id}`;
      const seen = byAsset.get(key);
      const createdInWindow = row.action === 'created' || seen?.action === 'created';
      const action: ChangeAction =
        row.action === 'deleted' ? 'deleted' : createdInWindow ? 'created' : 'updated';
      // Re-inserted so the map's order stays the order of each asset's last change.
      byAsset.delete(key);
      byAsset.set(key, {
        itemType: row.item_type,
        itemId: row.item_id,
        itemUserId: row.item_user_id,
        action,
        at: row.at,
      });
    }
    return [...byAsset.values()];
  }

  /**
   * The time sync.json's next window starts at: every change stamped before it that will ever commit
   * is in this answer or an earlier one (db/engine.ts; issue 18). Read before the changes themselves.
   */
  settledBefore(): Promise<number> {
    return this.#context.engine.settledBefore(this.#context.db, this.#context.clock());
  }

  /**
   * The id of the newest change to `ownerId`'s assets of one kind, 0 when there is none. Every write to
   * routes and trips logs a change (see Assets), so this number moves whenever a list of them could
   * read differently: the v1 lists use it to tell whether a rendered page is still current.
   */
  async latestChangeId(ownerId: number, kind: AssetType): Promise<number> {
    const stamp = await this.#context.generation.stamp();
    const key = `${ownerId}:${kind}`;
    let id = this.#latestChangeIds.get(key, stamp);
    if (id === undefined) {
      id = (await this.#latestChangeId.executeTakeFirst(ownerId, kind))?.id ?? 0;
      this.#latestChangeIds.set(key, stamp, id);
    }
    return id;
  }
}

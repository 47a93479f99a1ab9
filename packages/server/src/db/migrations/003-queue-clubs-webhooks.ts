/**
 * Migration 3 (issue 5; docs/contributors/decisions.md §5–6): the file-upload queue, club routes, the origin of routes
 * and trips made from uploads, and the webhook outbox with its delivery log.
 *
 * - queued_tasks: one per upload; status -1/0/1 as the specification says, with the lease a worker
 *   holds while it processes the task (a crashed worker's lease runs out and the task is claimed
 *   again) and the attempts counted (a file that crashes the parser twice fails instead of looping).
 * - task_uploads: the uploaded bytes, apart from the task row so status queries never read them;
 *   written in the transaction that creates the task (the task is durable before the 200 answer) and
 *   dropped when the task ends.
 * - task_objects: the routes and trips a task made or found (duplicates), for include_objects.
 * - routes/trips.source_sha256: the SHA-256 of the upload an asset came from; the same user's
 *   identical bytes are then a duplicate, decided before any parsing.
 * - club_routes: the routes members share with a club (an organization).
 * - webhook_outbox: one row per notification per API client, written in the transaction of the change
 *   (store/changes.ts); the dispatcher batches them into deliveries (delivery_id, kept across retries so
 *   receivers can drop repeats), signs and delivers them.
 * - webhook_deliveries: every delivery attempt, for the developer settings page.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE queued_tasks (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      api_client_id INTEGER REFERENCES api_clients(id) ON DELETE SET NULL,
      status INTEGER NOT NULL CHECK (status IN (-1, 0, 1)),
      response_code TEXT NOT NULL CHECK (response_code IN ('pending', 'success', 'duplicate', 'failed')),
      message TEXT NOT NULL,
      progress INTEGER NOT NULL,
      sha256 TEXT NOT NULL,
      filename TEXT,
      byte_length INTEGER NOT NULL,
      metadata TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      lease_owner TEXT,
      lease_expires_at INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      finished_at INTEGER
    ) STRICT`.execute(db);
  await sql`CREATE INDEX queued_tasks_waiting ON queued_tasks (status, lease_expires_at, id)`.execute(db);
  await sql`CREATE INDEX queued_tasks_by_user ON queued_tasks (user_id, id)`.execute(db);
  await sql`CREATE INDEX queued_tasks_finished ON queued_tasks (status, finished_at)`.execute(db);
  await sql`
    CREATE TABLE task_uploads (
      task_id INTEGER PRIMARY KEY REFERENCES queued_tasks(id) ON DELETE CASCADE,
      bytes BLOB NOT NULL
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE task_objects (
      task_id INTEGER NOT NULL REFERENCES queued_tasks(id) ON DELETE CASCADE,
      asset_type TEXT NOT NULL CHECK (asset_type IN ('route', 'trip')),
      asset_id INTEGER NOT NULL,
      PRIMARY KEY (task_id, asset_type, asset_id)
    ) STRICT`.execute(db);
  for (const table of ['routes', 'trips']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN source_sha256 TEXT`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_by_source`)} ON ${sql.table(table)} (user_id, source_sha256) WHERE source_sha256 IS NOT NULL`.execute(
      db,
    );
  }
  await sql`
    CREATE TABLE club_routes (
      organization_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      route_id INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
      shared_by INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (organization_id, route_id)
    ) STRICT`.execute(db);
  await sql`CREATE INDEX club_routes_by_route ON club_routes (route_id)`.execute(db);
  await sql`
    CREATE TABLE webhook_outbox (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      api_client_id INTEGER NOT NULL REFERENCES api_clients(id) ON DELETE CASCADE,
      user_id INTEGER NOT NULL,
      item_type TEXT NOT NULL CHECK (item_type IN ('route', 'trip')),
      item_id INTEGER NOT NULL,
      item_user_id INTEGER NOT NULL,
      action TEXT NOT NULL CHECK (action IN ('created', 'updated', 'deleted')),
      created_at INTEGER NOT NULL,
      delivery_id TEXT,
      next_attempt_at INTEGER NOT NULL,
      attempts INTEGER NOT NULL,
      delivered_at INTEGER,
      failed_at INTEGER,
      last_error TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX webhook_outbox_due ON webhook_outbox (delivered_at, failed_at, next_attempt_at, api_client_id, id)`.execute(
    db,
  );
  await sql`
    CREATE TABLE webhook_deliveries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      api_client_id INTEGER NOT NULL REFERENCES api_clients(id) ON DELETE CASCADE,
      delivery_id TEXT NOT NULL,
      url TEXT NOT NULL,
      notification_count INTEGER NOT NULL,
      attempt INTEGER NOT NULL,
      status_code INTEGER,
      error TEXT,
      duration_ms INTEGER NOT NULL,
      attempted_at INTEGER NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_by_client ON webhook_deliveries (api_client_id, id DESC)`.execute(
    db,
  );
}

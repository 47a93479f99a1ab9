/**
 * Migration 3 (issue 5): the file-upload queue, club routes, the origin of routes and trips made from
 * uploads, and the webhook outbox with its delivery log.
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
import { sql, type ColumnBuilderCallback } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';

const notNull: ColumnBuilderCallback = (column) => column.notNull();

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  const { integer, text } = dialect;
  const clientId: ColumnBuilderCallback = (column) =>
    column.notNull().references('api_clients.id').onDelete('cascade');
  const taskId: ColumnBuilderCallback = (column) => column.references('queued_tasks.id').onDelete('cascade');
  await dialect
    .createTable(db, 'queued_tasks')
    .addColumn('id', integer, dialect.idNeverReused)
    .addColumn('user_id', integer, (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('api_client_id', integer, (column) => column.references('api_clients.id').onDelete('set null'))
    .addColumn('status', integer, (column) => column.notNull().check(sql`status IN (-1, 0, 1)`))
    .addColumn('response_code', text, (column) =>
      column.notNull().check(sql`response_code IN ('pending', 'success', 'duplicate', 'failed')`),
    )
    .addColumn('message', text, notNull)
    .addColumn('progress', integer, notNull)
    .addColumn('sha256', text, notNull)
    .addColumn('filename', text)
    .addColumn('byte_length', integer, notNull)
    .addColumn('metadata', text, notNull)
    .addColumn('attempts', integer, notNull)
    .addColumn('lease_owner', text)
    .addColumn('lease_expires_at', integer)
    .addColumn('created_at', integer, notNull)
    .addColumn('updated_at', integer, notNull)
    .addColumn('finished_at', integer)
    .execute();
  for (const [name, columns] of [
    ['queued_tasks_waiting', ['status', 'lease_expires_at', 'id']],
    ['queued_tasks_by_user', ['user_id', 'id']],
    ['queued_tasks_finished', ['status', 'finished_at']],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on('queued_tasks')
      .columns([...columns])
      .execute();
  }
  await dialect
    .createTable(db, 'task_uploads')
    .addColumn('task_id', integer, (column) => taskId(column.primaryKey()))
    .addColumn('bytes', dialect.bytes, notNull)
    .execute();
  await dialect
    .createTable(db, 'task_objects')
    .addColumn('task_id', integer, (column) => taskId(column.notNull()))
    .addColumn('asset_type', text, (column) => column.notNull().check(sql`asset_type IN ('route', 'trip')`))
    .addColumn('asset_id', integer, notNull)
    .addPrimaryKeyConstraint('task_objects_pkey', ['task_id', 'asset_type', 'asset_id'])
    .execute();
  for (const table of ['routes', 'trips']) {
    await db.schema.alterTable(table).addColumn('source_sha256', text).execute();
    await db.schema
      .createIndex(`${table}_by_source`)
      .on(table)
      .columns(['user_id', 'source_sha256'])
      .where('source_sha256', 'is not', null)
      .execute();
  }
  await dialect
    .createTable(db, 'club_routes')
    .addColumn('organization_id', integer, (column) =>
      column.notNull().references('users.id').onDelete('cascade'),
    )
    .addColumn('route_id', integer, (column) => column.notNull().references('routes.id').onDelete('cascade'))
    .addColumn('shared_by', integer, (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', integer, notNull)
    .addPrimaryKeyConstraint('club_routes_pkey', ['organization_id', 'route_id'])
    .execute();
  await db.schema.createIndex('club_routes_by_route').on('club_routes').column('route_id').execute();
  await dialect
    .createTable(db, 'webhook_outbox')
    .addColumn('id', integer, dialect.idNeverReused)
    .addColumn('api_client_id', integer, clientId)
    .addColumn('user_id', integer, notNull)
    .addColumn('item_type', text, (column) => column.notNull().check(sql`item_type IN ('route', 'trip')`))
    .addColumn('item_id', integer, notNull)
    .addColumn('item_user_id', integer, notNull)
    .addColumn('action', text, (column) =>
      column.notNull().check(sql`action IN ('created', 'updated', 'deleted')`),
    )
    .addColumn('created_at', integer, notNull)
    .addColumn('delivery_id', text)
    .addColumn('next_attempt_at', integer, notNull)
    .addColumn('attempts', integer, notNull)
    .addColumn('delivered_at', integer)
    .addColumn('failed_at', integer)
    .addColumn('last_error', text)
    .execute();
  await db.schema
    .createIndex('webhook_outbox_due')
    .on('webhook_outbox')
    .columns(['delivered_at', 'failed_at', 'next_attempt_at', 'api_client_id', 'id'])
    .execute();
  await dialect
    .createTable(db, 'webhook_deliveries')
    .addColumn('id', integer, dialect.idNeverReused)
    .addColumn('api_client_id', integer, clientId)
    .addColumn('delivery_id', text, notNull)
    .addColumn('url', text, notNull)
    .addColumn('notification_count', integer, notNull)
    .addColumn('attempt', integer, notNull)
    .addColumn('status_code', integer)
    .addColumn('error', text)
    .addColumn('duration_ms', integer, notNull)
    .addColumn('attempted_at', integer, notNull)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_by_client')
    .on('webhook_deliveries')
    .columns(['api_client_id', 'id desc'])
    .execute();
}

/**
 * Migration 2 (issue 4, v1 resources): routes and trips keep their v1 record rendered as JSON, ids of
 * routes, trips and events are never used twice, and the change log answers "the newest change of this
 * user's routes" with one index seek.
 *
 * record_json / record_format: see store/asset-records.ts. Rows written before this migration keep
 * null there and are rendered from their columns when read.
 *
 * SQLite gives an INTEGER PRIMARY KEY without AUTOINCREMENT the largest id + 1, so deleting the newest
 * trip would hand its id to the next trip, possibly another user's: an old URL, a sync.json entry or a
 * webhook saying "trip 7 deleted" would then point at a different ride. Rebuilding the tables with
 * AUTOINCREMENT is not possible inside a migration's transaction with foreign keys on (dropping a
 * table cascades into its points), so the repositories draw ids before they insert a row
 * (`MigrationDialect.drawIdsBeforeInsert`: on SQLite a table that works the way sqlite_sequence does).
 */
import { sql } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  for (const table of ['routes', 'trips']) {
    await db.schema.alterTable(table).addColumn('record_json', dialect.text).execute();
    await db.schema.alterTable(table).addColumn('record_format', dialect.integer).execute();
  }
  // Start above every id already used, including deleted assets the change log remembers.
  const largest = (table: string, type: string) => sql<number>`
    SELECT coalesce(max(id), 0) FROM (
      SELECT id FROM ${sql.table(table)}
      UNION ALL SELECT item_id FROM asset_changes WHERE item_type = ${sql.lit(type)}) AS used`;
  await dialect.drawIdsBeforeInsert(db, [
    { table: 'routes', after: largest('routes', 'route') },
    { table: 'trips', after: largest('trips', 'trip') },
    { table: 'events', after: sql<number>`SELECT coalesce(max(id), 0) FROM events` },
  ]);
  // The v1 lists check "has anything in this user's routes (trips) changed?" per request.
  await db.schema
    .createIndex('asset_changes_by_owner_type')
    .on('asset_changes')
    .columns(['item_user_id', 'item_type', 'id'])
    .execute();
}

/**
 * Migration 2 (issue 4, v1 resources): routes and trips keep their v1 record rendered as JSON, ids of
 * routes, trips and events are never used twice, and the change log answers "the newest change of this
 * user's routes" with one index seek.
 *
 * record_json / record_format: see store/asset-records.ts. Rows written before this migration keep
 * null there and are rendered from their columns when read.
 *
 *
 * SQLite gives an INTEGER PRIMARY KEY without AUTOINCREMENT the largest id + 1, so deleting the newest
 * trip would hand its id to the next trip, possibly another user's: an old URL, a sync.json entry or a
 * webhook saying "trip 7 deleted" would then point at a different ride. Rebuilding the tables with
 * AUTOINCREMENT is not possible inside a migration's transaction with foreign keys on (dropping a
 * table cascades into its points), so the repositories draw ids from this table instead, the way
 * sqlite_sequence works: an UPDATE … RETURNING in the transaction that inserts the row.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['routes', 'trips']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN record_json TEXT`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN record_format INTEGER`.execute(db);
  }
  await sql`
    CREATE TABLE id_sequences (
      name TEXT PRIMARY KEY,
      last_id INTEGER NOT NULL
    ) STRICT`.execute(db);
  // Start above every id already used, including deleted assets the change log remembers.
  await sql`
    INSERT INTO id_sequences (name, last_id) VALUES
      ('routes', max(
        coalesce((SELECT max(id) FROM routes), 0),
        coalesce((SELECT max(item_id) FROM asset_changes WHERE item_type = 'route'), 0))),
      ('trips', max(
        coalesce((SELECT max(id) FROM trips), 0),
        coalesce((SELECT max(item_id) FROM asset_changes WHERE item_type = 'trip'), 0))),
      ('events', coalesce((SELECT max(id) FROM events), 0))`.execute(db);
  // The v1 lists check "has anything in this user's routes (trips) changed?" per request.
  await sql`CREATE INDEX asset_changes_by_owner_type ON asset_changes (item_user_id, item_type, id)`.execute(
    db,
  );
}

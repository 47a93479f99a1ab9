/**
 * Migration 4 (issue 5, upload figures): a route's or trip's points are stored packed (binary columns,
 * store/track-points.ts) when the asset is created, and their JSON text is rendered from them the first
 * time someone reads them, then kept. Rendering the JSON of a long ride costs more than parsing its FIT
 * file, and most uploads are never read point by point soon after, so the upload queue no longer pays
 * for it before the task is done.
 *
 * SQLite cannot drop a NOT NULL constraint in place: the two points tables are built again (nothing
 * refers to them, so dropping the old ones cascades nowhere). A row holds its JSON, its packed points,
 * or both while the JSON is being kept.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, assets] of [
    ['route_track_points', 'routes'],
    ['trip_track_points', 'trips'],
  ] as const) {
    const rebuilt = `${table}_rebuilt`;
    await sql`
      CREATE TABLE ${sql.table(rebuilt)} (
        asset_id INTEGER PRIMARY KEY REFERENCES ${sql.table(assets)}(id) ON DELETE CASCADE,
        points TEXT,
        packed BLOB,
        CHECK (points IS NOT NULL OR packed IS NOT NULL)
      ) STRICT`.execute(db);
    await sql`INSERT INTO ${sql.table(rebuilt)} (asset_id, points) SELECT asset_id, points FROM ${sql.table(table)}`.execute(
      db,
    );
    await sql`DROP TABLE ${sql.table(table)}`.execute(db);
    await sql`ALTER TABLE ${sql.table(rebuilt)} RENAME TO ${sql.table(table)}`.execute(db);
  }
}

/**
 * Migration 4 (issue 5, upload figures): a route's or trip's points are stored packed (binary columns,
 * store/track-points.ts) when the asset is created, and their JSON text is rendered from them the first
 * time someone reads them, then kept. Rendering the JSON of a long ride costs more than parsing its FIT
 * file, and most uploads are never read point by point soon after, so the upload queue no longer pays
 * for it before the task is done.
 *
 * SQLite cannot drop a NOT NULL constraint in place: the two points tables are built again (nothing
 * refers to them). A row holds its JSON, its packed points, or both while the JSON is being kept.
 */
import { sql } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  for (const [table, assets] of [
    ['route_track_points', 'routes'],
    ['trip_track_points', 'trips'],
  ] as const) {
    await dialect.rebuildTable(
      db,
      table,
      (rebuilt) =>
        rebuilt
          .addColumn('asset_id', dialect.integer, (column) =>
            column.primaryKey().references(`${assets}.id`).onDelete('cascade'),
          )
          .addColumn('points', dialect.text)
          .addColumn('packed', dialect.bytes)
          // Named as PostgreSQL names a CHECK on more than one column that has no name of its own.
          .addCheckConstraint(`${table}_check`, sql`points IS NOT NULL OR packed IS NOT NULL`),
      ['asset_id', 'points'],
    );
  }
}

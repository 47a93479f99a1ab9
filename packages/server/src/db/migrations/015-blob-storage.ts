/**
 * Migration 15 (issue 18, "sustained ingest on PostgreSQL at least 70 % of SQLite's"): how the large
 * byte columns are stored. PostgreSQL compresses every value over 2 KB with pglz before it stores it
 * out of line (TOAST), which took much of the database's CPU during uploads; SQLite stores a value as it
 * is given, so nothing changes there (`MigrationDialect.storeUncompressed`, `compressWithLz4`).
 * - task_uploads.bytes, an upload waiting to be parsed: kept for seconds, read once (in slices,
 *   Tasks.uploadBytes) and deleted: never compressed.
 * - original_files.bytes: gzip-compressed already (store/original-files.ts), so pglz can only spend
 *   time finding that out: never compressed.
 * - the packed and JSON track points, kept for as long as the trip or route: compressed still, with lz4,
 *   several times faster than pglz at about its ratio. A server built without lz4 (`--with-lz4`, which
 *   the PostgreSQL project's packages and the usual hosted services have) keeps pglz.
 * Only values written from now on change; stored ones are read as they are.
 */
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  await dialect.storeUncompressed(db, [
    { table: 'task_uploads', column: 'bytes' },
    { table: 'original_files', column: 'bytes' },
  ]);
  await dialect.compressWithLz4(
    db,
    ['trip_track_points', 'route_track_points'].flatMap((table) =>
      ['packed', 'points'].map((column) => ({ table, column })),
    ),
  );
}

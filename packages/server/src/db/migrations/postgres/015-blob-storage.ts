/**
 * Migration 15 on PostgreSQL (issue 18, "sustained ingest at least 70 % of SQLite's"): how the large
 * byte columns are stored out of line (TOAST). By default PostgreSQL compresses every value over 2 KB
 * with pglz before it stores it; measured with `perf` during `bench:upload`, pglz_compress was 28 % of
 * the database's CPU, on a machine where the database and the server share two cores.
 * - task_uploads.bytes, an upload waiting to be parsed: kept for seconds, read once (in slices,
 *   Tasks.uploadBytes) and deleted. EXTERNAL: out of line, never compressed; PostgreSQL also reads a
 *   slice of an EXTERNAL value without reading the whole value (ALTER TABLE, "SET STORAGE").
 * - original_files.bytes: gzip-compressed already (store/original-files.ts), so pglz can only spend
 *   time finding that out. EXTERNAL.
 * - the packed and JSON track points, kept for as long as the trip or route: compressed still, with lz4,
 *   several times faster than pglz at about its ratio. A server built without lz4 (`--with-lz4`, which
 *   the PostgreSQL project's packages and the usual hosted services have) refuses it; then these keep
 *   pglz, which is correct, only slower.
 * Only values written from now on change; stored ones are read as they are.
 */
import { sql, type Kysely } from 'kysely';

const TRACK_POINT_TABLES = ['trip_track_points', 'route_track_points'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE task_uploads ALTER COLUMN bytes SET STORAGE EXTERNAL`.execute(db);
  await sql`ALTER TABLE original_files ALTER COLUMN bytes SET STORAGE EXTERNAL`.execute(db);
  const alterations = TRACK_POINT_TABLES.flatMap((table) =>
    ['packed', 'points'].map((column) => `ALTER TABLE ${table} ALTER COLUMN ${column} SET COMPRESSION lz4;`),
  ).join('\n');
  await sql`
    DO $$
    BEGIN
      ${sql.raw(alterations)}
    EXCEPTION WHEN feature_not_supported THEN
      -- built without lz4: pglz stays (see above)
    END
    $$`.execute(db);
}

/**
 * Migration 10 (issue 20, "Original files" and "`external_id`"):
 *
 * - original_files: the file each upload's routes and trips were read from, as the uploader sent it,
 *   gzip-compressed (`uploaded_gzip` 1: the upload was a `.gz` already and is kept byte for byte; 0:
 *   the server compressed it and gunzips it on download). `format` is what the parser read it as
 *   (its content type on download). One file can hold several rides and routes: each names it by
 *   original_file_id, and the file goes when the last of them is deleted (the triggers below, so no
 *   way of deleting a ride, the API's, the dashboard's or a user's deletion, can leave it behind).
 * - external_id (Strava's upload field): the uploader's own id for the ride, on the task (echoed in
 *   its status) and on the routes and trips it made, with the API client it came through
 *   (external_client_id). A repeated external_id from the same user and client is a duplicate
 *   whatever the bytes (queue/queue.ts); the indexes find it.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE original_files (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      filename TEXT,
      format TEXT NOT NULL,
      uploaded_gzip INTEGER NOT NULL CHECK (uploaded_gzip IN (0, 1)),
      byte_length INTEGER NOT NULL,
      bytes BLOB NOT NULL,
      created_at INTEGER NOT NULL
    ) STRICT`.execute(db);
  for (const table of ['trips', 'routes'] as const) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN original_file_id INTEGER
      REFERENCES original_files(id) ON DELETE SET NULL`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN external_id TEXT`.execute(db);
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN external_client_id INTEGER`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_original_file`)} ON ${sql.table(table)} (original_file_id)
      WHERE original_file_id IS NOT NULL`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_external_id`)} ON ${sql.table(table)} (user_id, external_id)
      WHERE external_id IS NOT NULL`.execute(db);
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_original_file_gone`)} AFTER DELETE ON ${sql.table(table)}
      WHEN OLD.original_file_id IS NOT NULL
      BEGIN
        DELETE FROM original_files WHERE id = OLD.original_file_id
          AND NOT EXISTS (SELECT 1 FROM trips WHERE original_file_id = OLD.original_file_id)
          AND NOT EXISTS (SELECT 1 FROM routes WHERE original_file_id = OLD.original_file_id);
      END`.execute(db);
  }
  await sql`ALTER TABLE queued_tasks ADD COLUMN external_id TEXT`.execute(db);
}

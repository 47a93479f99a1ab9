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
import { sql } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  const { integer, text } = dialect;
  await dialect
    .createTable(db, 'original_files')
    .addColumn('id', integer, dialect.idNeverReused)
    .addColumn('user_id', integer, (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('filename', text)
    .addColumn('format', text, (column) => column.notNull())
    .addColumn('uploaded_gzip', integer, (column) => column.notNull().check(sql`uploaded_gzip IN (0, 1)`))
    .addColumn('byte_length', integer, (column) => column.notNull())
    .addColumn('bytes', dialect.bytes, (column) => column.notNull())
    .addColumn('created_at', integer, (column) => column.notNull())
    .execute();
  for (const table of ['trips', 'routes']) {
    await db.schema
      .alterTable(table)
      .addColumn('original_file_id', integer, (column) =>
        column.references('original_files.id').onDelete('set null'),
      )
      .execute();
    await db.schema.alterTable(table).addColumn('external_id', text).execute();
    await db.schema.alterTable(table).addColumn('external_client_id', integer).execute();
    await db.schema
      .createIndex(`${table}_original_file`)
      .on(table)
      .column('original_file_id')
      .where('original_file_id', 'is not', null)
      .execute();
    await db.schema
      .createIndex(`${table}_external_id`)
      .on(table)
      .columns(['user_id', 'external_id'])
      .where('external_id', 'is not', null)
      .execute();
  }
  await dialect.createAfterDeleteTriggers(db, {
    name: 'original_file_gone',
    tables: ['trips', 'routes'],
    when: sql`OLD.original_file_id IS NOT NULL`,
    statement: sql`DELETE FROM original_files WHERE id = OLD.original_file_id
      AND NOT EXISTS (SELECT 1 FROM trips WHERE original_file_id = OLD.original_file_id)
      AND NOT EXISTS (SELECT 1 FROM routes WHERE original_file_id = OLD.original_file_id)`,
  });
  await db.schema.alterTable('queued_tasks').addColumn('external_id', text).execute();
}

/**
 * Migration 16 (issue 36, "a legal archive stalls everyone"): a ride of a ZIP archive is kept for its
 * task as gzip, the entry's compressed data unchanged, rather than as the file unzipped (a ride that
 * inflates to 250 MB was written, read and deleted whole on the server's main thread).
 * `queued_tasks.gzipped_by_server` 1 says that the task's bytes are the file gzipped by the server, not
 * the file as sent: the parser is held to `byte_length`, which is then the file's own length, and the
 * original kept is the file (original_files.uploaded_gzip 0). Tasks stored before are 0: as sent.
 */
import { sql } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .alterTable('queued_tasks')
    .addColumn('gzipped_by_server', dialect.integer, (column) =>
      column
        .notNull()
        .defaultTo(0)
        .check(sql`gzipped_by_server IN (0, 1)`),
    )
    .execute();
}

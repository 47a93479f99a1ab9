/**
 * Migration 13 (issue 18, "rate-limit counters live in a per-process Map"): the windows of the sign-in
 * rate limits (auth/rate-limit.ts) in the database, so that every server on one database counts the
 * same attempts: a guesser spreading requests over the nodes behind a load balancer meets the same
 * limits as one talking to a single server. A row is one fixed window: its key (a hash, so the emails
 * typed into a failed sign-in are not kept), the hits so far and when the window ends. Rows whose window
 * has ended are swept (store/rate-windows.ts), so the table holds only live windows.
 */
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  await dialect
    .createTable(db, 'rate_windows')
    .addColumn('key', dialect.text, (column) => column.primaryKey())
    .addColumn('hits', dialect.integer, (column) => column.notNull())
    .addColumn('ends_ms', dialect.integer, (column) => column.notNull())
    .execute();
  await db.schema.createIndex('rate_windows_ends').on('rate_windows').column('ends_ms').execute();
}

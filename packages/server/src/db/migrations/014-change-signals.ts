/**
 * Migration 14 (issue 18, "credential caches that every node invalidates at the next request after a
 * revocation anywhere"): on PostgreSQL, triggers that announce a change to what the servers keep in
 * memory (postgres/014-change-signals.ts, read by db/change-listener.ts). SQLite needs nothing: one
 * file's `PRAGMA data_version` already tells every process that the database changed
 * (db/generation.ts). The migration exists here too, empty, so both engines carry the same names
 * (db/postgres.test.ts).
 */
export async function up(): Promise<void> {
  // Nothing to change on SQLite: see above.
}

/**
 * Migration 15 (issue 18, "sustained ingest on PostgreSQL at least 70 % of SQLite's"): how PostgreSQL
 * stores the large byte columns (postgres/015-blob-storage.ts). SQLite stores a BLOB as it is given,
 * never compressed, so nothing changes here. The migration exists here too, empty, so both engines carry
 * the same names (db/postgres.test.ts).
 */
export async function up(): Promise<void> {
  // Nothing to change on SQLite: see above.
}

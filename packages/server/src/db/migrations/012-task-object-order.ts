/**
 * Migration 12 (issue 18): the order in which a task's routes and trips were associated with it, as a
 * column. It was SQLite's rowid, which PostgreSQL does not have. Rows stored before keep the order
 * they had: their rowid, which grows with every row, is their position.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE task_objects ADD COLUMN position INTEGER NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE task_objects SET position = rowid`.execute(db);
}

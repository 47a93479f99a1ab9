/**
 * Migration 12 (issue 18): the order in which a task's routes and trips were associated with it, as a
 * column. It was SQLite's rowid, which PostgreSQL does not have. Rows stored before keep the order
 * they had: their rowid, which grows with every row, is their position. (PostgreSQL came after them:
 * its databases have no such rows to order.)
 */
import { sql } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .alterTable('task_objects')
    .addColumn('position', dialect.integer, (column) => column.notNull().defaultTo(0))
    .execute();
  if (dialect.insertionOrder !== null) {
    await sql`UPDATE task_objects SET position = ${dialect.insertionOrder}`.execute(db);
  }
}

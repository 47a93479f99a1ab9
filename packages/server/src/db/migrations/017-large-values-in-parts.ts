/**
 * Migration 17 (issue 36, "one rider's upload never costs another rider more than a few milliseconds"):
 * a byte value larger than a part (store/large-values.ts) is stored as parts of a megabyte, each written
 * by a statement of its own, with the event loop turning between them, rather than in one statement
 * that holds the server's main thread and its database connection while the whole value is written (an
 * 18.7 MB upload took 85–105 ms on SQLite).
 * - large_values: one such value, with its length; large_value_parts: its bytes, part by part.
 * - task_uploads.large_value_id and original_files.large_value_id name a row's value when it is in
 *   parts; their `bytes` are then empty. A task's upload that is also its ride's original (a `.gz`
 *   upload, a ride of a ZIP) is one value named by both rows, written once.
 * - The triggers delete a value with the last row that names it; a value written by an upload that
 *   never committed names none, and the nightly purge deletes it.
 */
import { sql } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';

const OWNERS = ['task_uploads', 'original_files'] as const;

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  const { integer } = dialect;
  await dialect
    .createTable(db, 'large_values')
    .addColumn('id', integer, dialect.idNeverReused)
    .addColumn('byte_length', integer, (column) => column.notNull())
    .addColumn('created_at', integer, (column) => column.notNull())
    .execute();
  await dialect
    .createTable(db, 'large_value_parts')
    .addColumn('value_id', integer, (column) =>
      column.notNull().references('large_values.id').onDelete('cascade'),
    )
    .addColumn('part', integer, (column) => column.notNull())
    .addColumn('bytes', dialect.bytes, (column) => column.notNull())
    .addPrimaryKeyConstraint('large_value_parts_pkey', ['value_id', 'part'])
    .execute();
  await dialect.storeUncompressed(db, [{ table: 'large_value_parts', column: 'bytes' }]);
  for (const table of OWNERS) {
    await db.schema
      .alterTable(table)
      .addColumn('large_value_id', integer, (column) => column.references('large_values.id'))
      .execute();
    await db.schema
      .createIndex(`${table}_large_value`)
      .on(table)
      .column('large_value_id')
      .where('large_value_id', 'is not', null)
      .execute();
  }
  await dialect.createAfterDeleteTriggers(db, {
    name: 'large_value_gone',
    tables: OWNERS,
    when: sql`OLD.large_value_id IS NOT NULL`,
    statement: sql`DELETE FROM large_values WHERE id = OLD.large_value_id
      AND NOT EXISTS (SELECT 1 FROM task_uploads WHERE large_value_id = OLD.large_value_id)
      AND NOT EXISTS (SELECT 1 FROM original_files WHERE large_value_id = OLD.large_value_id)`,
  });
}

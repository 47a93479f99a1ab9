/**
 * SQLite's answers to the migrations' engine seam (dialect.ts; issue 35). Part of the migrations: what a
 * member makes never changes once a migration that calls it has shipped.
 */
import { sql } from 'kysely';
import { rebuildUnderName, type MigrationDb, type MigrationDialect, type TableBuilder } from './dialect.js';

const createTable = (db: MigrationDb, name: string): TableBuilder =>
  db.schema.createTable(name).modifyEnd(sql`STRICT`);

export const sqliteMigrationDialect: MigrationDialect = {
  // In capitals, as the migrations before issue 35 declared them: SQLite keeps a column's type as it
  // was declared (PRAGMA table_info), and a database must come out the same whichever made it.
  integer: sql`INTEGER`,
  real: sql`REAL`,
  text: sql`TEXT`,
  bytes: sql`BLOB`,
  caseInsensitiveText: sql`TEXT COLLATE NOCASE`,
  enableCaseInsensitiveText: () => Promise.resolve(),
  createTable,
  // INTEGER PRIMARY KEY is the rowid itself (the column's type must be INTEGER, as `integer` is).
  id: (column) => column.primaryKey(),
  idNeverReused: (column) => column.primaryKey().autoIncrement(),

  async drawIdsBeforeInsert(db, tables) {
    await createTable(db, 'id_sequences')
      .addColumn('name', sql`TEXT`, (column) => column.primaryKey())
      .addColumn('last_id', sql`INTEGER`, (column) => column.notNull())
      .execute();
    for (const { table, after } of tables) {
      await sql`INSERT INTO id_sequences (name, last_id) VALUES (${table}, (${after}))`.execute(db);
    }
  },

  insertionOrder: sql<number>`rowid`,

  // SQLite renames nothing but the table: its constraints have no names of their own to keep.
  rebuildTable: (db, table, define, copied) =>
    rebuildUnderName(db, table, `${table}_rebuilt`, define, copied, createTable),

  textBytes: (column, start, length) =>
    sql<Buffer | null>`substr(CAST(${column} AS BLOB), ${start + 1}, ${length})`,

  async createAfterDeleteTriggers(db, { name, tables, when, statement }) {
    for (const table of tables) {
      await sql`
        CREATE TRIGGER ${sql.id(`${table}_${name}`)} AFTER DELETE ON ${sql.table(table)}
        WHEN ${when}
        BEGIN
          ${statement};
        END`.execute(db);
    }
  },

  announceChanges: () => Promise.resolve(),
  storeUncompressed: () => Promise.resolve(),
  compressWithLz4: () => Promise.resolve(),
  // The names SQLite's migrations were recorded under never changed.
  adoptHistory: () => Promise.resolve(),
};

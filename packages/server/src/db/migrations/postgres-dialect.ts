/**
 * PostgreSQL's answers to the migrations' engine seam (dialect.ts; issues 18 and 35). Part of the
 * migrations: what a member makes never changes once a migration that calls it has shipped.
 */
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE, MIGRATION_LOCK_ID, sql } from 'kysely';
import { rebuildUnderName, type MigrationDb, type MigrationDialect, type TableBuilder } from './dialect.js';

const createTable = (db: MigrationDb, name: string): TableBuilder => db.schema.createTable(name);

/**
 * Before issue 35, PostgreSQL had migrations of its own, and the first made at once what SQLite's
 * 001–009 make (PostgreSQL support came after them). Databases of those versions have it recorded
 * under this name; the schema it made is the one these nine make (db/migrations.test.ts).
 */
const BASELINE_BEFORE_ISSUE_35 = '009-baseline';
export const BASELINE_NOW = [
  '001-platform',
  '002-asset-records',
  '003-queue-clubs-webhooks',
  '004-packed-track-points',
  '005-laps',
  '006-sign-in-links',
  '007-asset-warnings',
  '008-recordings',
  '009-bounded-text',
] as const;

export const postgresMigrationDialect: MigrationDialect = {
  integer: sql`bigint`,
  real: sql`double precision`,
  text: sql`text`,
  bytes: sql`bytea`,
  caseInsensitiveText: sql`citext`,
  async enableCaseInsensitiveText(db) {
    await sql`CREATE EXTENSION IF NOT EXISTS citext`.execute(db);
  },
  createTable,
  id: (column) => column.generatedByDefaultAsIdentity().primaryKey(),
  idNeverReused: (column) => column.generatedByDefaultAsIdentity().primaryKey(),
  drawIdsBeforeInsert: () => Promise.resolve(),
  insertionOrder: null,

  async rebuildTable(db, table, define, copied) {
    const rebuilt = `${table}_rebuilt`;
    await rebuildUnderName(db, table, rebuilt, define, copied, createTable);
    // PostgreSQL named the constraints after the table they were made in (rebuilt_pkey, …).
    const { rows } = await sql<{ name: string }>`
      SELECT conname AS name FROM pg_constraint
      WHERE conrelid = ${table}::regclass AND starts_with(conname, ${`${rebuilt}_`})`.execute(db);
    for (const { name } of rows) {
      await sql`ALTER TABLE ${sql.table(table)} RENAME CONSTRAINT ${sql.id(name)}
        TO ${sql.id(table + name.slice(rebuilt.length))}`.execute(db);
    }
  },

  textBytes: (column, start, length) =>
    sql<Buffer | null>`substring(convert_to(${column}, 'UTF8') FROM ${start + 1}::int4 FOR ${length}::int4)`,

  async createAfterDeleteTriggers(db, { name, tables, when, statement }) {
    await sql`
      CREATE FUNCTION ${sql.id(name)}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${statement};
        RETURN NULL;
      END $$`.execute(db);
    for (const table of tables) {
      await sql`
        CREATE TRIGGER ${sql.id(`${table}_${name}`)} AFTER DELETE ON ${sql.table(table)}
        FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${sql.id(name)}()`.execute(db);
    }
  },

  // Statement triggers, not row triggers: one notification per statement however many rows it touches,
  // and PostgreSQL folds equal notifications of one transaction into one, sent only when it commits.
  async announceChanges(db, { channel, functionName, tables }) {
    await sql`
      CREATE FUNCTION ${sql.id(functionName)}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify(${sql.lit(channel)}, TG_TABLE_NAME);
        RETURN NULL;
      END
      $$`.execute(db);
    for (const table of tables) {
      await sql`
        CREATE TRIGGER ${sql.id(`${table}_announce_change`)}
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.table(table)}
        FOR EACH STATEMENT EXECUTE FUNCTION ${sql.id(functionName)}()`.execute(db);
    }
  },

  async storeUncompressed(db, columns) {
    for (const { table, column } of columns) {
      await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN ${sql.ref(column)} SET STORAGE EXTERNAL`.execute(
        db,
      );
    }
  },

  // One block: a server built without lz4 refuses the first, and every column keeps pglz, which is
  // correct, only slower.
  async compressWithLz4(db, columns) {
    const alterations = columns.map(
      ({ table, column }) =>
        sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN ${sql.ref(column)} SET COMPRESSION lz4;`,
    );
    await sql`
      DO $$
      BEGIN
        ${sql.join(alterations, sql`\n`)}
      EXCEPTION WHEN feature_not_supported THEN
        -- built without lz4: pglz stays
      END
      $$`.execute(db);
  },

  /**
   * A database of a version before issue 35 has `009-baseline` recorded: it becomes the nine migrations
   * whose schema it made, recorded at the time it was, so the migrator finds every name it knows and
   * runs only those after them. Under Kysely's own migration lock (an advisory lock on PostgreSQL), so
   * that a server migrating the database at the same moment, of this version or an older one, runs
   * before or after it, never in between.
   */
  async adoptHistory(db) {
    const { adapter } = db.getExecutor();
    const lock = { lockTable: DEFAULT_MIGRATION_LOCK_TABLE, lockRowId: MIGRATION_LOCK_ID };
    await db.connection().execute(async (connection) => {
      await adapter.acquireMigrationLock(connection, lock);
      try {
        await connection.transaction().execute(async (trx) => {
          const { rows: found } = await sql<{ history: boolean }>`
            SELECT to_regclass(${DEFAULT_MIGRATION_TABLE}) IS NOT NULL AS history`.execute(trx);
          if (found[0]?.history !== true) return;
          const { rows: baseline } = await sql<{ timestamp: string }>`
            DELETE FROM ${sql.table(DEFAULT_MIGRATION_TABLE)} WHERE name = ${BASELINE_BEFORE_ISSUE_35}
            RETURNING timestamp`.execute(trx);
          if (baseline[0] === undefined) return;
          const { timestamp } = baseline[0];
          const rows = BASELINE_NOW.map((name) => sql`(${name}, ${timestamp})`);
          await sql`INSERT INTO ${sql.table(DEFAULT_MIGRATION_TABLE)} (name, timestamp)
            VALUES ${sql.join(rows)}`.execute(trx);
        });
      } finally {
        await adapter.releaseMigrationLock(connection, lock);
      }
    });
  },
};

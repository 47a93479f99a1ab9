/**
 * What SQLite and PostgreSQL do differently when a migration changes the schema (issue 35): there is
 * one migration tree for both engines, each migration written once with Kysely's schema builder, and
 * where the engines differ a migration asks this seam, never which engine runs.
 * sqlite-dialect.ts and postgres-dialect.ts answer it; index.ts hands each migration its engine's.
 *
 * An implementation belongs to the migrations: once a migration that calls a member has shipped, what
 * that member makes must not change, because databases were made by it and a new database must come
 * out the same. A new need is a new member.
 */
import {
  sql,
  type ColumnBuilderCallback,
  type CreateTableBuilder,
  type Expression,
  type Kysely,
  type RawBuilder,
} from 'kysely';

/** A database as a migration sees it: no tables typed, since it is the tables a migration changes. */
export type MigrationDb = Kysely<unknown>;

/** A column's type, as the engine spells it. */
export type ColumnType = RawBuilder<unknown>;

/** A table being made, as `MigrationDialect.createTable` starts it and its columns are added. */
export type TableBuilder = CreateTableBuilder<string, string>;

export interface TableColumn {
  table: string;
  column: string;
}

export interface MigrationDialect {
  /** Whole numbers (ids, counts, flags, Unix-millisecond times): SQLite INTEGER, PostgreSQL BIGINT. */
  readonly integer: ColumnType;
  /** Floating-point numbers: SQLite REAL, PostgreSQL DOUBLE PRECISION. */
  readonly real: ColumnType;
  readonly text: ColumnType;
  /** Bytes: SQLite BLOB, PostgreSQL BYTEA. */
  readonly bytes: ColumnType;
  /**
   * Text that compares equal whatever its case (emails): SQLite TEXT COLLATE NOCASE, PostgreSQL the
   * citext extension's type, once `enableCaseInsensitiveText` has run.
   */
  readonly caseInsensitiveText: ColumnType;
  enableCaseInsensitiveText(db: MigrationDb): Promise<void>;

  /** CREATE TABLE: SQLite's tables are STRICT, so a column holds only values of its type. */
  createTable(db: MigrationDb, name: string): TableBuilder;
  /**
   * The `id` column: the table's key, given by the database to a row inserted without one. SQLite's
   * INTEGER PRIMARY KEY (the rowid) may give a deleted newest row's id to the next row; PostgreSQL's
   * identity column never gives an id twice.
   */
  readonly id: ColumnBuilderCallback;
  /** The same, never giving an id twice on either engine: SQLite's AUTOINCREMENT. */
  readonly idNeverReused: ColumnBuilderCallback;
  /**
   * Ids of `tables` (whose `id` is `id` above) drawn before their row is inserted, never one used
   * before (db/engine.ts, `Engine.nextId`), the first above `after`. SQLite: the table id_sequences,
   * which counts them as sqlite_sequence does. PostgreSQL: the identity columns' own sequences already
   * do it, so nothing is made (migration 002 came before PostgreSQL: its sequences start empty).
   */
  drawIdsBeforeInsert(
    db: MigrationDb,
    tables: readonly { table: string; after: Expression<number> }[],
  ): Promise<void>;
  /**
   * The order in which a table's rows were inserted, where the engine keeps one: SQLite's rowid, which
   * grows with every row. PostgreSQL keeps none (null).
   */
  readonly insertionOrder: RawBuilder<number> | null;
  /**
   * Builds `table` anew as `define` says, keeping the rows' `copied` columns: for a change SQLite's ALTER
   * TABLE cannot make (a NOT NULL dropped, a CHECK added). Nothing may refer to the table. Its
   * constraints end with the names they would have had had it been made so at first.
   */
  rebuildTable(
    db: MigrationDb,
    table: string,
    define: (rebuilt: TableBuilder) => TableBuilder,
    copied: readonly string[],
  ): Promise<void>;
  /**
   * At most `length` bytes of the UTF-8 text in `column` from byte `start` (0-based), read without the
   * engine decoding the text (SQLite's text functions stop at a NUL character).
   */
  textBytes(column: Expression<unknown>, start: number, length: number): RawBuilder<Buffer | null>;
  /**
   * Triggers `${table}_${name}` on each of `tables` that, after a row is deleted and `when` holds of it
   * (`OLD.…`), run `statement`. PostgreSQL's call one trigger function, `name`.
   */
  createAfterDeleteTriggers(
    db: MigrationDb,
    trigger: {
      name: string;
      tables: readonly string[];
      when: RawBuilder<unknown>;
      statement: RawBuilder<unknown>;
    },
  ): Promise<void>;
  /**
   * After each statement that changes one of `tables`, a notification on `channel` names the table, so
   * that every server drops what it keeps of it (db/change-listener.ts). PostgreSQL: statement triggers
   * `${table}_announce_change` calling the function `functionName`. SQLite: nothing, since every process
   * on one file sees that it changed through `PRAGMA data_version` (db/generation.ts).
   */
  announceChanges(
    db: MigrationDb,
    announced: { channel: string; functionName: string; tables: readonly string[] },
  ): Promise<void>;
  /**
   * Byte columns whose values are stored as they are, never compressed. PostgreSQL compresses large
   * values unless told otherwise (SET STORAGE EXTERNAL, which also reads a slice without the whole
   * value); SQLite never compresses.
   */
  storeUncompressed(db: MigrationDb, columns: readonly TableColumn[]): Promise<void>;
  /**
   * Columns whose large values are compressed with lz4 rather than the default. PostgreSQL built without
   * lz4 keeps its default, pglz, for all of them; SQLite never compresses.
   */
  compressWithLz4(db: MigrationDb, columns: readonly TableColumn[]): Promise<void>;

  /**
   * Before the migrator reads the history of a database (table kysely_migration), renames there what
   * versions before this tree recorded under other names, in one transaction, holding the migrator's
   * own lock so that servers starting at once on one database adopt it once (issue 35).
   */
  adoptHistory(db: MigrationDb): Promise<void>;
}

/**
 * `table` built anew under the name `rebuilt`, with the rows of its `copied` columns, and renamed: the
 * part of `MigrationDialect.rebuildTable` both engines do alike.
 */
export async function rebuildUnderName(
  db: MigrationDb,
  table: string,
  rebuilt: string,
  define: (rebuilt: TableBuilder) => TableBuilder,
  copied: readonly string[],
  createTable: (db: MigrationDb, name: string) => TableBuilder,
): Promise<void> {
  await define(createTable(db, rebuilt)).execute();
  const columns = sql.join(copied.map((column) => sql.ref(column)));
  await sql`INSERT INTO ${sql.table(rebuilt)} (${columns}) SELECT ${columns} FROM ${sql.table(table)}`.execute(
    db,
  );
  await db.schema.dropTable(table).execute();
  await db.schema.alterTable(rebuilt).renameTo(table).execute();
}

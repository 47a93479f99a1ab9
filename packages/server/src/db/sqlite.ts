/**
 * The SQLite engine (docs/contributors/architecture.md, "Storage"; the default, one machine): better-sqlite3 under Kysely, WAL
 * mode, foreign keys on, migrations applied. Nothing outside src/db and src/store touches SQL.
 */
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  sql,
  SqliteDialect,
  type SqliteDatabase as KyselySqliteDatabase,
  type SqliteStatement,
} from 'kysely';
import { createOwnerOnlyFile, makeOwnerOnlyFolder } from '@rideport/files';
import { inspectDatabase } from './database-state.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import type { Engine } from './engine.js';
import { DatabaseGeneration } from './generation.js';
import { migrate } from './migrate.js';
import { sqliteMigrationDialect } from './migrations/sqlite-dialect.js';
import type { OpenDatabase, OpenOptions } from './open-types.js';
import type { Database } from './schema.js';

export interface OpenSqliteDatabase extends OpenDatabase {
  /** the raw connection, for the few things Kysely does not do (backups, checkpoints) */
  sqlite: SqliteDatabase.Database;
}

/**
 * `path` ':memory:' gives a private in-memory database (tests). A file is created only in a new data
 * directory: a missing, empty or unreadable one beside other state is refused (db/database-state.ts).
 */
export async function openSqlite(path: string, options: OpenOptions = {}): Promise<OpenSqliteDatabase> {
  if (path !== ':memory:') {
    inspectDatabase(path);
    // Issue 20: the database (and so its -wal and -shm, which SQLite makes with its mode) is 0600.
    makeOwnerOnlyFolder(dirname(path));
    createOwnerOnlyFile(path);
  }
  const sqlite = new SqliteDatabase(path);
  // Readers and the writer of another process (a worker, the CLI) wait instead of failing at once.
  sqlite.pragma('busy_timeout = 5000');
  useIncrementalVacuum(sqlite);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  // WAL makes NORMAL durable against application crashes; only an OS crash can lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  const generation = new DatabaseGeneration(sqlite);
  const connection = withStatementCache(sqlite, () => {
    generation.noteWrite();
  });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  try {
    await migrate(db, sqliteMigrationDialect);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const checkpointer: Checkpointer | null =
    options.backgroundCheckpoints === true && path !== ':memory:' ? startCheckpointer(path, sqlite) : null;
  return {
    db,
    engine: SQLITE_ENGINE,
    generation,
    sqlite,
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** SQLite's `auto_vacuum` value for INCREMENTAL. */
const INCREMENTAL_VACUUM = 2;

/**
 * Puts the database in incremental auto-vacuum mode (issue 36, "space comes back"), so that the free
 * pages deleted rides and uploads leave can be given back to the file system a slice at a time
 * (db/checkpoint-worker.ts) instead of keeping the file at its largest for good. A new database takes
 * the mode before its first table. A database made before issue 36 is rebuilt once by VACUUM to take
 * it: that copies the database (it needs as much free disk again, and a while for a large one), and
 * is skipped, with a warning, when it cannot be done now (another connection busy, the disk full);
 * the next start tries again, and nothing is lost meanwhile but the space.
 */
function useIncrementalVacuum(sqlite: SqliteDatabase.Database): void {
  if (sqlite.pragma('auto_vacuum', { simple: true }) === INCREMENTAL_VACUUM) return;
  sqlite.pragma('auto_vacuum = INCREMENTAL');
  const tables = sqlite.prepare('SELECT count(*) FROM sqlite_master').pluck().get() as number;
  if (tables === 0) return;
  try {
    sqlite.exec('VACUUM');
  } catch (error) {
    process.emitWarning(
      `${sqlite.name}: deleted rides' space cannot be given back until the database is rebuilt, which failed now and is tried at the next start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Prepared statements kept at most; queries with a varying `IN (…)` list make new SQL each time. A
 * statement is its SQL and SQLite's compiled program, a few KB: a few MB in all (issue 22).
 */
const STATEMENT_CACHE_SIZE = 512;
/**
 * Database pages SQLite keeps in memory per connection, in KiB (a negative cache_size): its default,
 * said here because it is one of the server's bounded caches (issue 22). It fills as the database is
 * read and stays full; it never grows past this with the database.
 */
const PAGE_CACHE_KIB = 2000;

/**
 * The connection as Kysely sees it, with its prepared statements kept by SQL text. Kysely prepares
 * every query anew, and preparing was a third of the time of a simple authenticated v1 request
 * (issue 4's bench/api): the same few queries run on every request. A statement is bound afresh on
 * each run, and Kysely runs one query at a time on this single connection, so sharing one is safe.
 * Statements that may write call `onWrite` when they run (db/generation.ts).
 */
function withStatementCache(sqlite: SqliteDatabase.Database, onWrite: () => void): KyselySqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        const prepared = sqlite.prepare(sql);
        statement =
          sql === 'rollback'
            ? rollbackIfOpen(sqlite, prepared)
            : prepared.readonly
              ? prepared
              : noticingWrites(prepared, onWrite);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * A statement that calls `onWrite` whenever it runs. Kysely calls `all` for statements that return rows
 * (an INSERT … RETURNING too) and `run` for the others.
 */
function noticingWrites(statement: SqliteDatabase.Statement, onWrite: () => void): SqliteStatement {
  return {
    reader: statement.reader,
    all(parameters) {
      onWrite();
      return statement.all(parameters);
    },
    run(parameters) {
      onWrite();
      return statement.run(parameters);
    },
    iterate(parameters) {
      onWrite();
      return statement.iterate(parameters);
    },
  };
}

/**
 * Kysely's ROLLBACK after a failed transaction, sent only when a transaction is still open. After some
 * errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, SQLITE_BUSY) SQLite has already rolled the
 * transaction back by itself (https://sqlite.org/lang_transaction.html, "Response To Errors Within A
 * Transaction"); the ROLLBACK then failed with "cannot rollback - no transaction is active", and that
 * error replaced the one that said why (issue 17: a full disk answered 500, not 507).
 */
function rollbackIfOpen(
  sqlite: SqliteDatabase.Database,
  rollback: SqliteDatabase.Statement,
): SqliteStatement {
  return {
    reader: false,
    all: () => [],
    run: () => (sqlite.inTransaction ? rollback.run() : { changes: 0, lastInsertRowid: 0 }),
    iterate: () => [][Symbol.iterator](),
  };
}

/** SQLite's side of the engine seam (db/engine.ts). */
const SQLITE_ENGINE: Engine = {
  name: 'sqlite',
  /**
   * An INTEGER PRIMARY KEY without AUTOINCREMENT would hand a deleted newest row's id to the next row,
   * so ids come from id_sequences (migration 002). The UPDATE takes the write lock at once, so two
   * writers (the server and an upload worker) cannot draw the same id.
   */
  async nextId(db, table) {
    const row = await db
      .updateTable('id_sequences')
      .set((eb) => ({ last_id: eb('last_id', '+', 1) }))
      .where('name', '=', table)
      .returning('last_id')
      .executeTakeFirstOrThrow();
    return row.last_id;
  },
  integersOfJsonArray: (json) => sql<number>`(SELECT value FROM json_each(${json}))`,
  lockedForClaim: (query) => query,
  serializeRidesOf: () => Promise.resolve(),
  settledBefore: (_db, nowMs) => Promise.resolve(nowMs),
  exclusiveRole: () => ({ held: () => Promise.resolve(true), release: () => Promise.resolve() }),
  textAsBytes: (column) => sql<Buffer | null>`CAST(${column} AS BLOB)`,
  bytesReadSlice: null,
  bytesSlice: (column, start, length) => sql<Buffer | null>`substr(${column}, ${start + 1}, ${length})`,
  isUniqueViolation: (error) =>
    (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY',
};

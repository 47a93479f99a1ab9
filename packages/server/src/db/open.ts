/**
 * Opens the SQLite database behind the server (design.md, "Storage"): better-sqlite3 under Kysely,
 * WAL mode, foreign keys on, migrations applied. Nothing outside src/db and src/store touches SQL.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';

export interface OpenDatabase {
  db: Kysely<Database>;
  /** the raw connection, for the few things Kysely does not do (backups, checkpoints) */
  sqlite: SqliteDatabase.Database;
  close(): Promise<void>;
}

/** `path` ':memory:' gives a private in-memory database (tests). */
export async function openDatabase(path: string): Promise<OpenDatabase> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SqliteDatabase(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  // Readers and the writer of another process (a worker, the CLI) wait instead of failing at once.
  sqlite.pragma('busy_timeout = 5000');
  // WAL makes NORMAL durable against application crashes; only an OS crash can lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    db,
    sqlite,
    close: () => db.destroy(),
  };
}

async function migrate(db: Kysely<Database>): Promise<void> {
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    const reason = error instanceof Error ? error.message : JSON.stringify(error);
    throw new Error(`database migration ${failed} failed: ${reason}`, { cause: error });
  }
}

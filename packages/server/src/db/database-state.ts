/**
 * Is this data directory new, or does it hold a Rideport database? (issue 17: "A database that is
 * missing, empty or unreadable while the data directory holds other state is a clear error that
 * changes nothing; only a new, empty data directory is initialised.") A zero-byte database beside
 * master.key used to be re-created empty, and every client then failed with "unknown API key".
 *
 * Looking changes nothing: the directory is listed and stat'ed, and the database is read only through
 * SQLite, read-only. Never through an fs file handle: closing one drops every POSIX lock this process
 * holds on the file, SQLite's included (SQLite's own "How To Corrupt" §2.2). A zero-byte database is
 * not given to SQLite at all: SQLite deletes the write-ahead log of a database with no pages.
 */
import { statSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { DataDirectoryError, DataDirectoryErrorCode } from '../errors.js';
import { LOCAL_ACCOUNT_FILE, LOCAL_SYNC_FOLDER, MASTER_KEY_FILE } from '../data-layout.js';

const SQLITE_HEADER_BYTES = 100;

const NOTHING_CHANGED =
  'Rideport starts a new database only in a new, empty data directory, so it changed nothing: restore the database from a backup, or move the folder away to start afresh.';

/** `new`: nothing of Rideport's yet, to be initialised; `existing`: a Rideport database to open. */
export type DatabaseState = 'new' | 'existing';

/**
 * What a server or its hosts write only once the database exists (docs/operators/serving.md, "One server per data
 * directory"): their presence says a database was here. The desktop app's own settings.json and
 * credentials are not among them: the app in remote mode keeps them with no database of its own, and so
 * does `rideport sync` its ledger under sync/<remote server>.
 */
function otherState(databasePath: string): string[] {
  const directory = dirname(databasePath);
  const found: string[] = [];
  for (const name of [MASTER_KEY_FILE, LOCAL_ACCOUNT_FILE, LOCAL_SYNC_FOLDER]) {
    if (statOrNull(join(directory, name)) !== null) found.push(name);
  }
  // Pages committed but not yet checkpointed into the database: the newest part of its content.
  const wal = `${basename(databasePath)}-wal`;
  if ((statOrNull(join(directory, wal))?.size ?? 0) > 0) found.push(wal);
  return found;
}

/** The state of the database at `databasePath`, or a DataDirectoryError that says what to do. */
export function inspectDatabase(databasePath: string): DatabaseState {
  const directory = dirname(databasePath);
  const directoryStats = statOrNull(directory);
  if (directoryStats === null) return 'new';
  if (!directoryStats.isDirectory()) {
    throw new DataDirectoryError(
      DataDirectoryErrorCode.UNUSABLE,
      `${directory} is not a folder: give a folder as the data directory`,
    );
  }
  const database = statOrNull(databasePath);
  if (database !== null && !database.isFile()) {
    throw unreadable(databasePath, 'it is not a file');
  }
  const others = otherState(databasePath);
  if (database === null) {
    if (others.length === 0) return 'new';
    throw new DataDirectoryError(
      DataDirectoryErrorCode.DATABASE_MISSING,
      `${directory} holds ${listed(others)} but no database (${basename(databasePath)}). ${NOTHING_CHANGED}`,
    );
  }
  // Shorter than SQLite's 100-byte header: not a database (SQLite itself would take a 1-byte file
  // for an empty database, and write one over it).
  if (database.size > 0 && database.size < SQLITE_HEADER_BYTES) {
    throw unreadable(databasePath, 'it is not an SQLite database');
  }
  // A zero-byte file alone is what a first start interrupted before its first write leaves.
  const tables = database.size === 0 ? [] : tablesOf(databasePath);
  if (tables.includes('kysely_migration') && tables.includes('users')) return 'existing';
  if (tables.length > 0) {
    throw unreadable(databasePath, 'it is an SQLite database, but not Rideport’s: none of its tables are');
  }
  if (others.length === 0) return 'new';
  throw new DataDirectoryError(
    DataDirectoryErrorCode.DATABASE_EMPTY,
    `${databasePath} is empty (${database.size === 0 ? '0 bytes' : 'no tables'}), but ${directory} holds ${listed(others)}. ${NOTHING_CHANGED}`,
  );
}

function unreadable(databasePath: string, reason: string, cause?: unknown): DataDirectoryError {
  return new DataDirectoryError(
    DataDirectoryErrorCode.DATABASE_UNREADABLE,
    `${databasePath} cannot be read as a Rideport database (${reason}), so Rideport changed nothing: restore it from a backup, or move the folder away to start afresh.`,
    cause === undefined ? undefined : { cause },
  );
}

/** The names of the database's tables, read-only. */
function tablesOf(databasePath: string): string[] {
  let connection: SqliteDatabase.Database | undefined;
  try {
    connection = new SqliteDatabase(databasePath, { readonly: true, fileMustExist: true, timeout: 5_000 });
    return connection
      .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .pluck()
      .all();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason =
      code === 'SQLITE_NOTADB'
        ? 'it is not an SQLite database'
        : code === 'SQLITE_CORRUPT'
          ? 'it is damaged'
          : (error as Error).message;
    throw unreadable(databasePath, reason, error);
  } finally {
    connection?.close();
  }
}

function listed(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

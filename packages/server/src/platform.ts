/**
 * The platform without the HTTP server: the database opened and migrated, and the data-access layer
 * over it. `buildServer` serves it; `rideport admin` uses it directly (docs/contributors/architecture.md, `rideport admin`).
 */
import { join } from 'node:path';
import { DATABASE_FILE } from './data-layout.js';
import { openDatabase, type OpenDatabase, type OpenOptions } from './db/open.js';
import { masterKeyFor } from './master-key.js';
import { resolveOptions, type ResolvedOptions, type ServerOptions } from './options.js';
import { Store, storeOptionsOf } from './store/index.js';

export interface Platform {
  store: Store;
  options: ResolvedOptions;
  close(): Promise<void>;
}

export async function openPlatform(options: ServerOptions): Promise<Platform> {
  const resolved = resolveOptions(options);
  const { store, database } = await openStore(resolved, options.masterKey);
  return { store, options: resolved, close: () => database.close() };
}

/**
 * The database opened (and migrated) and the store over it, with the master key: the one given, or
 * the SQLite database's own file, made after the database so that a new data directory is new
 * (db/database-state.ts); a server on PostgreSQL must be given one (master-key.ts).
 */
export async function openStore(
  options: ResolvedOptions,
  givenKey: Buffer | undefined,
  openOptions: OpenOptions = {},
): Promise<{ store: Store; masterKey: Buffer; database: OpenDatabase }> {
  const database = await openDatabase(options.database, openOptions);
  try {
    const masterKey = masterKeyFor(options, givenKey);
    return { store: new Store(database, storeOptionsOf(options), masterKey), masterKey, database };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** The database file inside a data directory (`--data`). */
export function databasePathIn(dataDirectory: string): string {
  return join(dataDirectory, DATABASE_FILE);
}

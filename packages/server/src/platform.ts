/**
 * The platform without the HTTP server: the database opened and migrated, and the data-access layer
 * over it. `buildServer` serves it; `rideport admin` uses it directly (design.md, `rideport admin`).
 */
import { join } from 'node:path';
import { DATABASE_FILE } from './data-directory/layout.js';
import { openDatabase } from './db/open.js';
import { loadMasterKey } from './master-key.js';
import { resolveOptions, type ResolvedOptions, type ServerOptions } from './options.js';
import { Store } from './store/index.js';

export interface Platform {
  store: Store;
  options: ResolvedOptions;
  close(): Promise<void>;
}

export async function openPlatform(options: ServerOptions): Promise<Platform> {
  const resolved = resolveOptions(options);
  const database = await openDatabase(resolved.databasePath);
  const masterKey = options.masterKey ?? loadMasterKey(resolved.databasePath);
  return {
    store: new Store(database, resolved, masterKey),
    options: resolved,
    close: () => database.close(),
  };
}

/** The database file inside a data directory (`--data`). */
export function databasePathIn(dataDirectory: string): string {
  return join(dataDirectory, DATABASE_FILE);
}

/**
 * Opens the database behind the server (docs/contributors/architecture.md, "Storage"; issue 18): SQLite in the data directory
 * by default, or PostgreSQL when a `postgres://` URL names one (`--database`, RIDEPORT_DATABASE_URL).
 * The PostgreSQL driver is loaded only then, so the desktop app and `rideport up` never load it.
 */
import type { Kysely } from 'kysely';
import type { Engine } from './engine.js';
import type { Generation } from './generation.js';
import type { Database } from './schema.js';
import { openSqlite, type OpenOptions } from './sqlite.js';
import type { DatabaseTarget } from './target.js';

export type { OpenOptions } from './sqlite.js';

export interface OpenDatabase {
  db: Kysely<Database>;
  /** what the engine does its own way (db/engine.ts) */
  engine: Engine;
  /** tells whether the database may have changed since a moment, for results kept between requests */
  generation: Generation;
  close(): Promise<void>;
}

/** `target` a path (or ':memory:') is a SQLite database; see db/target.ts for the URL form. */
export async function openDatabase(
  target: DatabaseTarget | string,
  options: OpenOptions = {},
): Promise<OpenDatabase> {
  if (typeof target === 'string') return openSqlite(target, options);
  if (target.engine === 'sqlite') return openSqlite(target.path, options);
  const { openPostgres } = await import('./postgres.js');
  return openPostgres(target.url);
}

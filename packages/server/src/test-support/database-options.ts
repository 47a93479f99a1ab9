/**
 * The server options that open a test database named by one string (test-database.ts): a SQLite file,
 * or a postgres:// URL. Apart from test-database.ts because child server processes use it, and they
 * run outside Vitest.
 */
import type { ServerOptions } from '../options.js';

/**
 * The master key of every server on a PostgreSQL test database, so that a restarted server and a
 * child process read the secrets of the first (on SQLite it is the file beside the database).
 */
const POSTGRES_TEST_MASTER_KEY = Buffer.alloc(32, 7);

/** The server options that open the database at `location` (a file path or a postgres:// URL). */
export function databaseOptions(
  location: string,
): Pick<ServerOptions, 'databasePath' | 'databaseUrl' | 'masterKey'> {
  return location.startsWith('postgres://')
    ? { databasePath: ':memory:', databaseUrl: location, masterKey: POSTGRES_TEST_MASTER_KEY }
    : { databasePath: location };
}

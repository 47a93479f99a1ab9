/**
 * Opens the database behind the server (issue 18): SQLite in the data directory by default, or
 * PostgreSQL when a `postgres://` URL names one (`--database`, RIDEPORT_DATABASE_URL). The PostgreSQL
 * driver is loaded only then, so the desktop app and `rideport up` never load it, and an installation
 * without it says what to do when asked for PostgreSQL.
 */
import type { OpenDatabase, OpenOptions } from './open-types.js';
import { openSqlite } from './sqlite.js';
import type { DatabaseTarget } from './target.js';

export type { OpenDatabase, OpenOptions } from './open-types.js';

/** `target` a path (or ':memory:') is a SQLite database; see db/target.ts for the URL form. */
export async function openDatabase(
  target: DatabaseTarget | string,
  options: OpenOptions = {},
): Promise<OpenDatabase> {
  if (typeof target === 'string') return openSqlite(target, options);
  if (target.engine === 'sqlite') return openSqlite(target.path, options);
  const { openPostgres } = await postgresEngine();
  return openPostgres(target.url);
}

/** The PostgreSQL engine (db/postgres.ts), which imports the driver, `pg`, when it is loaded. */
async function postgresEngine(): Promise<typeof import('./postgres.js')> {
  try {
    return await import('./postgres.js');
  } catch (error) {
    if (!isMissingDriver(error)) throw error;
    // In words, keeping Node's code for programs: not a stack trace about a module that was not found.
    throw Object.assign(
      new Error(
        'cannot open a PostgreSQL database: its driver, the npm package pg, is not installed; ' +
          'install it (npm install pg) beside Rideport and start again',
        { cause: error },
      ),
      { code: (error as { code: string }).code },
    );
  }
}

/** Whether `error` is Node's for the package `pg` not found (ES modules, or CommonJS in a bundle). */
function isMissingDriver(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    /\b(package|module) 'pg'/.test(message)
  );
}

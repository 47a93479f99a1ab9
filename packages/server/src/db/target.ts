/**
 * Which database a server or `rideport admin` uses (issue 18): `--database <url>` or
 * RIDEPORT_DATABASE_URL. A `postgres://` or `postgresql://` URL selects PostgreSQL; without one, the
 * SQLite file in the data directory (`--data`) as always.
 */
export type DatabaseTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

const EXAMPLE = 'postgres://rideport@db.example:5432/rideport';

/**
 * The target a `--database` value names; an Error in words for anything else. Only the scheme is
 * checked here: the rest is PostgreSQL's connection URI (libpq, "Connection URIs"), which the driver
 * reads, and which a WHATWG URL parser refuses in a form operators use on one machine, a user with the
 * host left to the query: `postgres://rideport@/rideport?host=/var/run/postgresql` (the Unix socket).
 */
export function databaseTargetOf(value: string): DatabaseTarget {
  const scheme = /^([a-z][a-z\d+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    throw new Error(`--database takes a PostgreSQL URL such as ${EXAMPLE}, not "${value}"`);
  }
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new Error(
      `--database takes a postgres:// URL; ${scheme}: is not one (SQLite needs no URL: it lives in --data)`,
    );
  }
  if (!value.startsWith('//', scheme.length + 1)) {
    throw new Error(`--database takes a PostgreSQL URL such as ${EXAMPLE}, not "${value}"`);
  }
  return { engine: 'postgres', url: value };
}

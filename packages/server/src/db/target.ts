/**
 * Which database a server or `rideport admin` uses (issue 18): `--database <url>` or
 * RIDEPORT_DATABASE_URL. A `postgres://` or `postgresql://` URL selects PostgreSQL; without one, the
 * SQLite file in the data directory (`--data`) as always.
 */
export type DatabaseTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

/** The target a `--database` value names; an Error in words for anything else. */
export function databaseTargetOf(value: string): DatabaseTarget {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(
      `--database takes a PostgreSQL URL such as postgres://rideport@db.example:5432/rideport, not "${value}"`,
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(
      `--database takes a postgres:// URL; ${url.protocol} is not one (SQLite needs no URL: it lives in --data)`,
    );
  }
  return { engine: 'postgres', url: value };
}

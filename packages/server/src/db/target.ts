/**
 * Which database a server or `rideport admin` uses (issue 18): `--database <url>` or
 * RIDEPORT_DATABASE_URL. A `postgres://` or `postgresql://` URL selects PostgreSQL; without one, the
 * SQLite file in the data directory (`--data`) as always.
 *
 * The URL is PostgreSQL's connection URI (libpq, "Connection URIs"), which the driver reads. It is
 * never read with a WHATWG URL parser here: that refuses a form operators use on one machine, a user
 * with the host left to the query: `postgres://rideport@/rideport?host=/var/run/postgresql` (the Unix
 * socket). Both the check and the printed form below split it with `uriParts`.
 */
export type DatabaseTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

const EXAMPLE = 'postgres://rideport@db.example:5432/rideport';

/** `scheme://authority rest`, the authority being `[user[:password]@]host…` up to the path or query. */
interface UriParts {
  scheme: string;
  /** undefined when the scheme is not followed by `//` */
  authority: string | undefined;
  rest: string;
}

function uriParts(value: string): UriParts | undefined {
  const match = /^([a-z][a-z\d+.-]*):(?:\/\/([^/?#]*))?(.*)$/is.exec(value);
  if (match === null) return undefined;
  return { scheme: match[1]!.toLowerCase(), authority: match[2], rest: match[3]! };
}

/** The target a `--database` value names; an Error in words for anything else (only the scheme and `//`). */
export function databaseTargetOf(value: string): DatabaseTarget {
  const parts = uriParts(value);
  if (parts === undefined) {
    throw new Error(`--database takes a PostgreSQL URL such as ${EXAMPLE}, not "${value}"`);
  }
  if (parts.scheme !== 'postgres' && parts.scheme !== 'postgresql') {
    throw new Error(
      `--database takes a postgres:// URL; ${parts.scheme}: is not one (SQLite needs no URL: it lives in --data)`,
    );
  }
  if (parts.authority === undefined) {
    throw new Error(`--database takes a PostgreSQL URL such as ${EXAMPLE}, not "${value}"`);
  }
  return { engine: 'postgres', url: value };
}

/**
 * The URL without its passwords, to print (a log may be read by others): the password of the user
 * part and a `password` parameter of the query.
 */
export function shownDatabaseUrl(url: string): string {
  let shown = url;
  const parts = uriParts(url);
  if (parts?.authority !== undefined) {
    const at = parts.authority.lastIndexOf('@');
    const colon = parts.authority.indexOf(':');
    if (at >= 0 && colon >= 0 && colon < at) {
      const scheme = url.slice(0, url.indexOf(':'));
      const user = parts.authority.slice(0, colon);
      shown = `${scheme}://${user}:***${parts.authority.slice(at)}${parts.rest}`;
    }
  }
  return shown.replace(/([?&]password=)[^&#]*/gi, '$1***');
}

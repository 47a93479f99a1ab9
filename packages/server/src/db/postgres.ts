/**
 * The PostgreSQL engine (issue 18): several server processes on one database, for clubs and teams that
 * outgrow one machine. Kysely's PostgresDialect over a `pg` pool; one migration tree serves both engines,
 * with PostgreSQL's answers where they differ (migrations/postgres-dialect.ts; issue 35).
 *
 * Loaded only when a `postgres://` URL is given (db/open.ts), so SQLite users never load `pg`.
 */
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { DatabaseUnreachableError } from '../errors.js';
import type { Engine, ExclusiveRole, ExclusiveRoleName } from './engine.js';
import { ChangeListener } from './change-listener.js';
import { migrate } from './migrate.js';
import { shownDatabaseUrl } from './target.js';
import { postgresMigrationDialect } from './migrations/postgres-dialect.js';
import type { OpenDatabase } from './open-types.js';
import type { Database } from './schema.js';

/** Connections per process: requests, upload workers and the webhook dispatcher share them. */
const POOL_SIZE = 10;

/**
 * Times are Unix milliseconds and ids count rows: both fit a JavaScript number, which the rest of the
 * server expects (SQLite gives numbers), where `pg` gives 64-bit integers as strings. Set for this
 * pool only, not for every `pg` user in the process.
 */
function integerTypes(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, parseSafeInteger);
  return types;
}

/**
 * A new connection not made within this long fails, ms: a database host that drops packets (a cut
 * network, a firewall) is then said in words (503) after seconds instead of TCP's own two minutes.
 * Waiting for a free connection of the pool has no limit: overload is not an outage.
 */
const CONNECT_TIMEOUT_MS = 10_000;
/** Idle connections are probed this often by TCP, ms, so one whose peer vanished is found and dropped. */
const KEEPALIVE_DELAY_MS = 30_000;

/**
 * The pool's connections, with a limit on making one. pg-pool's own `connectionTimeoutMillis` would
 * limit the wait for a free connection as well, so the limit goes to the client alone.
 */
function clientWithConnectTimeout(connectTimeoutMs: number): typeof pg.Client {
  return class extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs });
    }
  };
}

export async function openPostgres(
  url: string,
  { connectTimeoutMs = CONNECT_TIMEOUT_MS }: { connectTimeoutMs?: number } = {},
): Promise<OpenDatabase> {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    types: integerTypes(),
    Client: clientWithConnectTimeout(connectTimeoutMs),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  const target: ConnectTarget = { shownUrl: shownDatabaseUrl(url), connectTimeoutMs };
  // A connection the database closes (a restart, an administrator's pg_terminate_backend) emits
  // 'error', which unheard would end the process: the pool's when the connection was idle (the pool
  // drops it), the connection's own when it was in use (its query fails with the same error, and the
  // pool drops it when it is released). The next query opens another connection, or is told in words
  // that it cannot (connectOrSay).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    sayLostConnections(client);
  });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: { connect: () => connectOrSay(pool, target), end: () => pool.end() },
    }),
  });
  try {
    (await connectOrSay(pool, target)).release();
    await migrate(db, postgresMigrationDialect);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const generation = new ChangeListener(url);
  return {
    db,
    engine: postgresEngine(url),
    generation,
    close: async () => {
      await generation.close();
      await db.destroy();
    },
  };
}

/** Where the pool connects and how long it waits, for the words of a connection that timed out. */
interface ConnectTarget {
  /** the URL without its password (db/target.ts) */
  shownUrl: string;
  connectTimeoutMs: number;
}

/** A connection of the pool, or a DatabaseUnreachableError that says why there is none. */
async function connectOrSay(pool: pg.Pool, target: ConnectTarget): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw unreachable(error, target);
  }
}

/** pg's words when a connection was not made within its `connectionTimeoutMillis` */
const CONNECT_TIMEOUT_MESSAGES: ReadonlySet<string> = new Set([
  'timeout expired',
  'Connection terminated due to connection timeout',
]);

/**
 * A query that fails because its connection was lost (the database restarting or ending the session,
 * the socket cut) fails with a DatabaseUnreachableError, which the server answers 503 and the upload
 * queue waits out (storage-fault.ts), instead of with the driver's error, a 500. Whether a COMMIT
 * whose answer was lost took effect is not known: the words promise nothing about it.
 */
function sayLostConnections(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]): unknown => {
    const result = query(...args);
    if (!(result instanceof Promise)) return result; // a cursor: its reads say their own errors
    return result.catch((error: unknown) => {
      throw lostConnection(error) ?? error;
    });
  };
}

/** pg's own words for a connection that ended under a query (pg/lib/client.js). */
const LOST_CONNECTION_MESSAGES: ReadonlySet<string> = new Set([
  'Connection terminated unexpectedly',
  'Client has encountered a connection error and is not queryable',
]);

/** Node's codes for a socket cut under a query. */
const LOST_SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * The error as a DatabaseUnreachableError when it says the connection was lost: pg's words, a cut
 * socket, or PostgreSQL's SQLSTATE class 08 (connection exception) and 57P01–57P03 (the server
 * shutting down, crashed, or not accepting connections yet); null for any other error.
 */
function lostConnection(error: unknown): DatabaseUnreachableError | null {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const lost =
    (typeof message === 'string' && LOST_CONNECTION_MESSAGES.has(message)) ||
    (typeof code === 'string' &&
      (LOST_SOCKET_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code)));
  if (!lost) return null;
  return new DatabaseUnreachableError(`lost the connection to the database: ${String(message)}`, {
    cause: error,
    code: typeof code === 'string' ? code : undefined,
  });
}

interface ConnectError extends Error {
  /** Node's (ENOENT, ECONNREFUSED, …) or PostgreSQL's SQLSTATE (28P01, 3D000, …) */
  code?: string;
  address?: string;
  port?: number;
}

/**
 * Why the database cannot be reached, in words, keeping the cause's code for programs: the driver says
 * "connect ENOENT /var/run/postgresql/.s.PGSQL.5432", which tells an operator little. PostgreSQL's own
 * refusals (a wrong password, no such database) are words already and are kept.
 */
function unreachable(error: unknown, target: ConnectTarget): DatabaseUnreachableError {
  const cause = error as ConnectError;
  if (CONNECT_TIMEOUT_MESSAGES.has(cause.message)) {
    const seconds = target.connectTimeoutMs / 1000;
    return new DatabaseUnreachableError(
      `cannot connect to the database: ${target.shownUrl} did not answer within ${seconds} s`,
      { cause: error, code: 'ETIMEDOUT' },
    );
  }
  const where =
    cause.port === undefined ? (cause.address ?? '') : `${cause.address ?? ''}:${String(cause.port)}`;
  const reason =
    cause.code === 'ENOENT' || (cause.code === 'ECONNREFUSED' && cause.port === undefined)
      ? `no PostgreSQL server listens on the Unix socket ${where}`
      : cause.code === 'ECONNREFUSED'
        ? `no PostgreSQL server listens on ${where}`
        : cause.code === 'ENOTFOUND' || cause.code === 'EAI_AGAIN'
          ? `the host ${(cause as { hostname?: string }).hostname ?? where} is not known`
          : cause.code === 'ETIMEDOUT'
            ? `${where} did not answer`
            : cause.message;
  return new DatabaseUnreachableError(`cannot connect to the database: ${reason}`, {
    cause: error,
    code: cause.code,
  });
}

function parseSafeInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`the database returned ${text}, beyond 2^53`);
  return value;
}

/**
 * The first key of PostgreSQL's two-key advisory locks, one per purpose; the second is the id the lock
 * is about. Arbitrary numbers, chosen to be unlikely in another application's locks on the database.
 */
const ADVISORY_LOCKS = { ridesOfUser: 0x52_49_44_45, role: 0x52_4f_4c_45 } as const;

/** The second key of each role's advisory lock. */
const ROLE_KEYS: Record<ExclusiveRoleName, number> = { 'webhook dispatcher': 1, 'nightly purge': 2 };

/**
 * How far apart the clocks of the servers on one database (and the database's own) may be, ms: a
 * change is stamped with its server's clock, and the watermark of sync.json is another server's time.
 * NTP keeps clocks far closer; docs/operators/postgresql.md asks for it.
 */
export const CLOCK_SKEW_MS = 1000;

/** PostgreSQL's unique_violation (SQLSTATE 23505). */
const UNIQUE_VIOLATION = '23505';

/**
 * Bytes of an upload read per query (Engine.bytesReadSlice): a slice travels as twice its size in hex,
 * so reading an upload costs its size plus a few slices' worth, however large it is.
 */
export const POSTGRES_BYTES_READ_SLICE = 4 * 1024 * 1024;

/** PostgreSQL's side of the engine seam (db/engine.ts), for the database at `url`. */
const postgresEngine = (url: string): Engine => ({
  name: 'postgres',
  /**
   * The identity column's own sequence: nextval never hands out a value twice, and it does not wait
   * for other transactions (one counter row would serialise every upload of every node).
   */
  async nextId(db, table) {
    const { rows } = await sql<{
      id: number;
    }>`SELECT nextval(pg_get_serial_sequence(${table}, 'id')) AS id`.execute(db);
    return rows[0]!.id;
  },
  integersOfJsonArray: (json) => sql<number>`(SELECT (json_array_elements_text(${json}::json))::bigint)`,
  lockedForClaim: (query) => query.forUpdate().skipLocked(),
  async serializeRidesOf(db, userId) {
    await sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.ridesOfUser}, ${userId}::int4)`.execute(db);
  },
  textAsBytes: (column) => sql<Buffer | null>`convert_to(${column}, 'UTF8')`,
  bytesReadSlice: POSTGRES_BYTES_READ_SLICE,
  bytesSlice: (column, start, length) =>
    sql<Buffer | null>`substring(${column} FROM ${start + 1}::int4 FOR ${length}::int4)`,
  /**
   * Before the start of the oldest transaction on this database that has written and not ended (its
   * stamps come after its start), and never later than this server's clock, both less the clocks'
   * possible skew. pg_stat_activity is live (it is not the cumulative statistics): a transaction
   * there is open now. Its rows of other roles' sessions hide xact_start; the servers share one role.
   */
  async settledBefore(db, nowMs) {
    const { rows } = await sql<{ oldest: number | null }>`
      SELECT (EXTRACT(EPOCH FROM min(xact_start)) * 1000)::float8 AS oldest
      FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = 'client backend'
        AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()`.execute(db);
    const oldest = rows[0]?.oldest ?? Number.POSITIVE_INFINITY;
    return Math.floor(Math.min(nowMs, oldest)) - CLOCK_SKEW_MS;
  },
  isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION,
  exclusiveRole: (name) => advisoryRole(url, ROLE_KEYS[name]),
});

/**
 * A role held as a session advisory lock on a connection of its own. Every `held()` asks that
 * connection (one small query), so a connection that died, and with it the lock, is noticed at once
 * and never taken for a role still held; a lock lasts as long as its session.
 */
function advisoryRole(url: string, key: number): ExclusiveRole {
  let client: pg.Client | null = null;
  let holding = false;
  const drop = (): void => {
    const dropped = client;
    client = null;
    holding = false;
    dropped?.end().catch(() => undefined);
  };
  return {
    async held() {
      try {
        if (client === null) {
          const connecting = new pg.Client({
            connectionString: url,
            keepAlive: true,
            keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
            connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
          });
          connecting.on('error', drop);
          await connecting.connect();
          client = connecting;
        }
        if (holding) {
          await client.query('SELECT 1');
          return true;
        }
        const { rows } = await client.query<{ held: boolean }>(
          'SELECT pg_try_advisory_lock($1, $2) AS held',
          [ADVISORY_LOCKS.role, key],
        );
        holding = rows[0]?.held === true;
        return holding;
      } catch {
        drop();
        return false;
      }
    },
    release() {
      drop();
      return Promise.resolve();
    },
  };
}

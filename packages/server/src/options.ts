/**
 * What `buildServer` takes (issue 4: "database path, clock, public base URL, limits injected"), with
 * the defaults of docs/contributors/decisions.md §1 and §7.
 */
import type { LookupAddress } from 'node:dns';
import { availableParallelism } from 'node:os';
import type { FastifyServerOptions, RouteOptions } from 'fastify';
import { openFileLimit, type ConnectionLimits } from './ports/connection-limits.js';
import type { LocalSync } from './ports/local-sync.js';
import { databaseTargetOf, type DatabaseTarget } from './db/target.js';

export interface ServerLimits {
  /** request body of an upload, bytes (docs/contributors/decisions.md §7: 64 MB compressed) */
  uploadBytes: number;
  /** a gzip-compressed upload after inflating, bytes (256 MB) */
  gunzipBytes: number;
  /** track points in one ride */
  trackPoints: number;
  /** points in one `track_points` request */
  pointsPerRequest: number;
}

/** Sign-in limits (auth/rate-limit.ts; docs/contributors/decisions.md §7; issue 17; docs/operators/limits.md, "Sign-in attempts"). */
export interface RateLimits {
  /** requests per address per `windowSeconds` to the endpoints that only sign in or issue tokens */
  perIp: number;
  windowSeconds: number;
  /** failed password sign-ins from one address, whatever the accounts, per `failureWindowSeconds` */
  failuresPerAddress: number;
  /** failed sign-ins of one account from one address per `failureWindowSeconds` */
  failuresPerAccountAndAddress: number;
  /**
   * failed sign-ins of one account from every address per `failureWindowSeconds`: a ceiling against
   * guessing from many addresses, which must stay out of reach of any one address (resolveRateLimits)
   */
  failuresPerAccount: number;
  failureWindowSeconds: number;
}

/** Connections at most by default, and at most half the process's open files where the system says. */
const MAX_CONNECTIONS = 1000;

export const DEFAULT_CONNECTION_LIMITS: Omit<ConnectionLimits, 'maxConnections'> = {
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  perAddress: 100,
  perAddressOnLoopback: false,
};

/**
 * The limits with their defaults. Connections default to 1000, or half the open-file limit when that
 * is lower (the other half stays for the database, uploads, workers and logs, which must never be
 * the ones that find no file descriptor).
 */
export function resolveConnectionLimits(
  options: Partial<ConnectionLimits> = {},
  fileLimit: number | undefined = openFileLimit(),
): ConnectionLimits {
  const defaultMax =
    fileLimit === undefined ? MAX_CONNECTIONS : Math.min(MAX_CONNECTIONS, Math.floor(fileLimit / 2));
  const limits = { ...DEFAULT_CONNECTION_LIMITS, maxConnections: defaultMax, ...options };
  const wholeNumbers = {
    maxConnections: limits.maxConnections,
    // null: no per-address limit, nothing to check
    perAddress: limits.perAddress ?? 1,
    headerTimeoutMs: limits.headerTimeoutMs,
    requestTimeoutMs: limits.requestTimeoutMs,
    keepAliveTimeoutMs: limits.keepAliveTimeoutMs,
    idleTimeoutMs: limits.idleTimeoutMs,
  };
  for (const [name, value] of Object.entries(wholeNumbers)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`connections.${name} must be a whole number from 1 up, got ${value}`);
    }
  }
  if (limits.requestTimeoutMs < limits.headerTimeoutMs) {
    throw new TypeError(
      `connections.requestTimeoutMs (${limits.requestTimeoutMs}) must not be shorter than headerTimeoutMs (${limits.headerTimeoutMs})`,
    );
  }
  return limits;
}

/**
 * The webhook dispatcher (docs/contributors/decisions.md §6; src/webhooks). Times are injectable so tests need not wait
 * for production backoffs; the defaults are what the decisions ask for.
 */
export interface WebhookOptions {
  /**
   * Deliver to loopback and private-network targets (127/8, 10/8, 172.16/12, 192.168/16, 100.64/10,
   * ::1, fc00::/7, …). Off by default; the local desktop setup turns it on. Link-local and cloud-metadata
   * targets are refused whatever this says.
   */
  allowPrivateTargets: boolean;
  /** how often the dispatcher looks for new notifications, ms (≤ 500 keeps delivery within 2 s) */
  pollIntervalMs: number;
  /**
   * how long a client's oldest waiting notification waits for more to join its batch, ms (a full batch
   * of 100 goes at once); poll interval + window stays under the 2 s of docs/contributors/decisions.md §6
   */
  batchWindowMs: number;
  /** a delivery that has no 2xx answer within this time failed, ms (docs/contributors/decisions.md §6: 5 s) */
  requestTimeoutMs: number;
  /** the first retry comes about this long after a failed attempt, doubling each time, ms */
  backoffBaseMs: number;
  /** retries are never further apart than this, ms */
  backoffCapMs: number;
  /** notifications are retried until this long after their change, then marked failed, ms (24 h) */
  giveUpAfterMs: number;
  /** delivered and failed notifications are deleted from the outbox this long after, ms */
  outboxRetentionMs: number;
  /** delivery-log entries (the developer settings page) are deleted this long after the attempt, ms */
  deliveryLogRetentionMs: number;
  /** resolves a target's host name to every address; default: the system resolver (dns.lookup). For tests. */
  resolveHost: ((hostname: string) => Promise<LookupAddress[]>) | null;
}

/**
 * The upload queue (docs/contributors/decisions.md §5; src/queue). Injectable so that tests and bench/upload can set the
 * number of workers and the lease; the defaults are what docs/contributors/architecture.md and the decisions ask for.
 */
export interface QueueOptions {
  /**
   * worker threads parsing uploads (docs/contributors/architecture.md, "Upload queue": one per core). 0 on PostgreSQL: this
   * server only accepts uploads, and `rideport worker` processes read them (issue 18, `serve --no-workers`)
   */
  workers: number;
  /**
   * how long a claimed task is its worker's, ms: a running worker renews it; a crashed server's tasks
   * are claimed again once it runs out
   */
  leaseMs: number;
  /** a parse that takes longer is stopped and counts as a crash of the parser, ms */
  parseTimeoutMs: number;
  /**
   * when the server stops, how long running tasks may still finish, ms; then their parsers are stopped
   * and the tasks given back, for the next start
   */
  stopGraceMs: number;
  /** local time of day (HH:MM) at which successful tasks are purged; null: never (docs/contributors/decisions.md §5: 03:00) */
  purgeAt: string | null;
  /** failed tasks are kept this long after they ended, ms (docs/contributors/decisions.md §5: 30 days) */
  failedRetentionMs: number;
}

export interface ServerOptions {
  /** SQLite file; ':memory:' for a private in-memory database */
  databasePath: string;
  /**
   * a `postgres://` URL: PostgreSQL instead of the SQLite file, for several servers on one database
   * (issue 18; `--database`, RIDEPORT_DATABASE_URL). `masterKey` is then required: every node must
   * have the same one, so it is never made beside one node.
   */
  databaseUrl?: string;
  /** the public base URL, e.g. http://127.0.0.1:4242: absolute URLs in responses are built from it */
  baseUrl: string;
  /** Unix milliseconds now; injected so tests control expiry */
  clock?: () => number;
  /**
   * 32-byte key from which API client secrets are derived (security/secrets.ts). Default: the file
   * `master.key` beside the SQLite database (created on first start), or a random key for ':memory:';
   * no default on PostgreSQL.
   */
  masterKey?: Buffer;
  /** auth tokens expire this long after their last use (docs/contributors/decisions.md §1: 30 days) */
  authTokenLifetimeSeconds?: number;
  /** web sign-in sessions expire this long after their last use */
  sessionLifetimeSeconds?: number;
  limits?: Partial<ServerLimits>;
  rateLimits?: Partial<RateLimits>;
  webhooks?: Partial<WebhookOptions>;
  queue?: Partial<QueueOptions>;
  connections?: Partial<ConnectionLimits>;
  /** Fastify's logger option (pino); default off */
  logger?: FastifyServerOptions['logger'];
  /** the host's sync engine (`rideport up`, the desktop app), served under /api/v1/local/sync */
  localSync?: LocalSync;
  /**
   * told of every route as it is registered, before the first: for the test that every API route is in
   * the OpenAPI document (issue 20, openapi.test.ts); Fastify tells later hooks of later routes only
   */
  onRoute?: (route: RouteOptions) => void;
}

export interface ResolvedOptions {
  databasePath: string;
  /** the database the server opens: the SQLite file at databasePath, or PostgreSQL */
  database: DatabaseTarget;
  baseUrl: URL;
  clock: () => number;
  authTokenLifetimeMs: number;
  sessionLifetimeMs: number;
  limits: ServerLimits;
  rateLimits: RateLimits;
  webhooks: WebhookOptions;
  queue: QueueOptions;
  connections: ConnectionLimits;
  /** cookies get `Secure` when the public base URL is https */
  secureCookies: boolean;
  localSync: LocalSync | null;
}

const DAY_SECONDS = 24 * 60 * 60;

export const DEFAULT_LIMITS: ServerLimits = {
  uploadBytes: 64 * 1024 * 1024,
  gunzipBytes: 256 * 1024 * 1024,
  trackPoints: 2_000_000,
  pointsPerRequest: 200_000,
};

export const DEFAULT_RATE_LIMITS: RateLimits = {
  perIp: 30,
  windowSeconds: 60,
  failuresPerAddress: 30,
  failuresPerAccountAndAddress: 10,
  failuresPerAccount: 100,
  failureWindowSeconds: 15 * 60,
};

/**
 * The most an upload may be: 4 GiB less a byte, what one resizable ArrayBuffer (the buffer an upload is
 * received into, legacy/upload-intake.ts) and one Buffer can hold.
 */
export const MAX_UPLOAD_BYTES = 2 ** 32 - 1;

/** The limits with their defaults, each a whole number from 1 up; an upload at most MAX_UPLOAD_BYTES. */
export function resolveLimits(options: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...DEFAULT_LIMITS, ...options };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`limits.${name} must be a whole number from 1 up, got ${value}`);
    }
  }
  if (limits.uploadBytes > MAX_UPLOAD_BYTES) {
    throw new TypeError(
      `limits.uploadBytes must be at most ${MAX_UPLOAD_BYTES} (4 GiB less a byte), got ${limits.uploadBytes}`,
    );
  }
  return limits;
}

/**
 * The limits with their defaults; the account's ceiling must be more than twice what one address can
 * add to it (the smaller of its two limits: its windows are fixed and start at its first failure, so
 * two of them may fall into one window of the account), else one address could lock the owner out.
 */
function resolveRateLimits(options: Partial<RateLimits> = {}): RateLimits {
  const limits = { ...DEFAULT_RATE_LIMITS, ...options };
  const oneAddress = Math.min(limits.failuresPerAddress, limits.failuresPerAccountAndAddress);
  if (limits.failuresPerAccount <= 2 * oneAddress) {
    throw new TypeError(
      `rateLimits.failuresPerAccount (${limits.failuresPerAccount}) must be more than twice what one address may fail (${oneAddress}), so that one address cannot lock an account out`,
    );
  }
  return limits;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = {
  allowPrivateTargets: false,
  pollIntervalMs: 250,
  batchWindowMs: 1000,
  requestTimeoutMs: 5000,
  backoffBaseMs: 5000,
  backoffCapMs: 60 * 60 * 1000,
  giveUpAfterMs: DAY_SECONDS * 1000,
  outboxRetentionMs: 7 * DAY_SECONDS * 1000,
  deliveryLogRetentionMs: 30 * DAY_SECONDS * 1000,
  resolveHost: null,
};

/** The upload queue's defaults; `workers` is the number of cores, found when options are resolved. */
export const DEFAULT_QUEUE_OPTIONS: Omit<QueueOptions, 'workers'> = {
  leaseMs: 30_000,
  parseTimeoutMs: 120_000,
  stopGraceMs: 5000,
  purgeAt: '03:00',
  failedRetentionMs: 30 * DAY_SECONDS * 1000,
};

function resolveQueueOptions(options: Partial<QueueOptions> = {}): QueueOptions {
  const queue = { workers: availableParallelism(), ...DEFAULT_QUEUE_OPTIONS, ...options };
  if (!Number.isInteger(queue.workers) || queue.workers < 0) {
    throw new TypeError(`queue.workers must be a whole number, 0 or more, got ${queue.workers}`);
  }
  if (queue.purgeAt !== null && !/^([01]\d|2[0-3]):[0-5]\d$/.test(queue.purgeAt)) {
    throw new TypeError(`queue.purgeAt must be a time of day as HH:MM, or null, got ${queue.purgeAt}`);
  }
  return queue;
}

export function resolveOptions(options: ServerOptions): ResolvedOptions {
  const baseUrl = new URL(options.baseUrl);
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http or https URL, got ${options.baseUrl}`);
  }
  const database: DatabaseTarget =
    options.databaseUrl === undefined
      ? { engine: 'sqlite', path: options.databasePath }
      : databaseTargetOf(options.databaseUrl);
  const queue = resolveQueueOptions(options.queue);
  if (queue.workers === 0 && database.engine === 'sqlite') {
    // No other process may open the SQLite file, so nothing would ever read the uploads.
    throw new TypeError('queue.workers 0 needs PostgreSQL: on SQLite no other process can read the uploads');
  }
  return {
    databasePath: options.databasePath,
    database,
    baseUrl,
    clock: options.clock ?? Date.now,
    authTokenLifetimeMs: (options.authTokenLifetimeSeconds ?? 30 * DAY_SECONDS) * 1000,
    sessionLifetimeMs: (options.sessionLifetimeSeconds ?? 14 * DAY_SECONDS) * 1000,
    limits: resolveLimits(options.limits),
    rateLimits: resolveRateLimits(options.rateLimits),
    webhooks: { ...DEFAULT_WEBHOOK_OPTIONS, ...options.webhooks },
    queue,
    connections: resolveConnectionLimits(options.connections),
    secureCookies: baseUrl.protocol === 'https:',
    localSync: options.localSync ?? null,
  };
}

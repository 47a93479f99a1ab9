/**
 * What `buildServer` takes (issue 4: "database path, clock, public base URL, limits injected"), with
 * the defaults of decisions.md §1 and §7.
 */
import type { FastifyServerOptions } from 'fastify';

export interface ServerLimits {
  /** request body of an upload, bytes (decisions.md §7: 64 MB compressed) */
  uploadBytes: number;
  /** a gzip-compressed upload after inflating, bytes (256 MB) */
  gunzipBytes: number;
  /** track points in one ride */
  trackPoints: number;
  /** points in one `track_points` request */
  pointsPerRequest: number;
}

export interface RateLimits {
  /** sign-in and token requests per IP per window */
  perIp: number;
  /** failed sign-ins per account per window, before the account is throttled */
  failuresPerAccount: number;
  windowSeconds: number;
}

export interface ServerOptions {
  /** SQLite file; ':memory:' for a private in-memory database */
  databasePath: string;
  /** the public base URL, e.g. http://127.0.0.1:4242: absolute URLs in responses are built from it */
  baseUrl: string;
  /** Unix milliseconds now; injected so tests control expiry */
  clock?: () => number;
  /**
   * 32-byte key from which API client secrets are derived (security/secrets.ts). Default: the file
   * `master.key` beside the database (created on first start), or a random key for ':memory:'.
   */
  masterKey?: Buffer;
  /** auth tokens expire this long after their last use (decisions.md §1: 30 days) */
  authTokenLifetimeSeconds?: number;
  /** web sign-in sessions expire this long after their last use */
  sessionLifetimeSeconds?: number;
  limits?: Partial<ServerLimits>;
  rateLimits?: Partial<RateLimits>;
  /** Fastify's logger option (pino); default off */
  logger?: FastifyServerOptions['logger'];
}

export interface ResolvedOptions {
  databasePath: string;
  baseUrl: URL;
  clock: () => number;
  authTokenLifetimeMs: number;
  sessionLifetimeMs: number;
  limits: ServerLimits;
  rateLimits: RateLimits;
  /** cookies get `Secure` when the public base URL is https */
  secureCookies: boolean;
}

const DAY_SECONDS = 24 * 60 * 60;

export const DEFAULT_LIMITS: ServerLimits = {
  uploadBytes: 64 * 1024 * 1024,
  gunzipBytes: 256 * 1024 * 1024,
  trackPoints: 2_000_000,
  pointsPerRequest: 200_000,
};

export const DEFAULT_RATE_LIMITS: RateLimits = { perIp: 30, failuresPerAccount: 10, windowSeconds: 60 };

export function resolveOptions(options: ServerOptions): ResolvedOptions {
  const baseUrl = new URL(options.baseUrl);
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http or https URL, got ${options.baseUrl}`);
  }
  return {
    databasePath: options.databasePath,
    baseUrl,
    clock: options.clock ?? Date.now,
    authTokenLifetimeMs: (options.authTokenLifetimeSeconds ?? 30 * DAY_SECONDS) * 1000,
    sessionLifetimeMs: (options.sessionLifetimeSeconds ?? 14 * DAY_SECONDS) * 1000,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...options.rateLimits },
    secureCookies: baseUrl.protocol === 'https:',
  };
}

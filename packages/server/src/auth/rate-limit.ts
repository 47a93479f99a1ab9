/**
 * Rate limits on sign-in and token requests (decisions.md §7; issue 4, "login and token endpoints
 * rate-limited (429 with Retry-After)"): per IP through @fastify/rate-limit, and per account (failed
 * sign-ins per email) with AccountThrottle below. Both count time with the server's injected clock
 * (options.clock), never Date.now, so tests move time instead of waiting, and both are fixed windows
 * of `rateLimits.windowSeconds`.
 *
 * A limited request is an ApiError 429 with `retryAfterSeconds`; each interface's error handler
 * formats it (v1 `{"errors": [...]}`, OAuth RFC 6749 style, pages as HTML) and sends `Retry-After`.
 */
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';
import { ApiError, ApiErrorCode } from '../errors.js';
import type { RateLimits } from '../options.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** failed sign-ins per account (POST /sign_in, POST /api/v1/auth_tokens.json) */
    signInThrottle: AccountThrottle;
  }
}

/** The endpoint families limited per IP; each IP has its own budget in each family. */
export type RateLimitGroup = 'sign_in' | 'oauth_token' | 'auth_tokens';

/** Windows kept at most; beyond this, expired windows are swept and then the oldest dropped. */
const MAX_TRACKED_KEYS = 10_000;

interface Window {
  count: number;
  startMs: number;
}

/** Fixed-window counters by key, on the injected clock, bounded in memory. */
export class FixedWindows {
  readonly #clock: () => number;
  readonly #windows = new Map<string, Window>();

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  /** Counts one hit on `key`; returns the count in the current window and the ms until it ends. */
  hit(key: string, windowMs: number): { count: number; remainingMs: number } {
    const now = this.#clock();
    let window = this.#live(key, windowMs, now);
    if (window === undefined) {
      this.#makeRoom(windowMs, now);
      window = { count: 0, startMs: now };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, remainingMs: window.startMs + windowMs - now };
  }

  /** The current window of `key` without counting a hit (count 0 when there is none). */
  peek(key: string, windowMs: number): { count: number; remainingMs: number } {
    const now = this.#clock();
    const window = this.#live(key, windowMs, now);
    return window === undefined
      ? { count: 0, remainingMs: 0 }
      : { count: window.count, remainingMs: window.startMs + windowMs - now };
  }

  clear(key: string): void {
    this.#windows.delete(key);
  }

  #live(key: string, windowMs: number, now: number): Window | undefined {
    const window = this.#windows.get(key);
    if (window !== undefined && window.startMs + windowMs <= now) {
      this.#windows.delete(key);
      return undefined;
    }
    return window;
  }

  /**
   * Windows are (re)inserted when they start, so the Map's insertion order is the order of their
   * start: expired windows are at the front, and the front is the oldest. Amortized O(1).
   */
  #makeRoom(windowMs: number, now: number): void {
    for (const [key, window] of this.#windows) {
      if (this.#windows.size < MAX_TRACKED_KEYS && window.startMs + windowMs > now) break;
      this.#windows.delete(key);
    }
  }
}

function tooManyRequests(remainingMs: number, what: string): ApiError {
  const retryAfterSeconds = Math.max(1, Math.ceil(remainingMs / 1000));
  return new ApiError(
    ApiErrorCode.TOO_MANY_REQUESTS,
    `${what}: try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`,
    { retryAfterSeconds },
  );
}

/**
 * Failed sign-ins per account (decisions.md §7, "per account"). The account is the email as typed,
 * trimmed and lower-cased, whether or not it exists, so being throttled never tells whether an email
 * has an account (decisions.md §1). After `failuresPerAccount` failures within a window, every attempt
 * (even with the right password) is refused until the window ends; a success clears the count.
 */
export class AccountThrottle {
  readonly #windows: FixedWindows;
  readonly #limits: RateLimits;

  constructor(clock: () => number, limits: RateLimits) {
    this.#windows = new FixedWindows(clock);
    this.#limits = limits;
  }

  /** Throws the 429 while the account is throttled. */
  assertAllowed(email: string): void {
    const { count, remainingMs } = this.#windows.peek(accountKey(email), this.#windowMs);
    if (count >= this.#limits.failuresPerAccount) {
      throw tooManyRequests(remainingMs, 'too many failed sign-ins for this account');
    }
  }

  recordFailure(email: string): void {
    this.#windows.hit(accountKey(email), this.#windowMs);
  }

  recordSuccess(email: string): void {
    this.#windows.clear(accountKey(email));
  }

  get #windowMs(): number {
    return this.#limits.windowSeconds * 1000;
  }
}

function accountKey(email: string): string {
  return email.normalize('NFC').trim().toLowerCase();
}

/**
 * A store for @fastify/rate-limit (its documented `store` option) over FixedWindows, so the per-IP
 * limit runs on the injected clock like everything else (the plugin's own LocalStore reads
 * Date.now). All routes share one store; the route's `groupId` is part of the key, so the `.json` and
 * bare paths of one endpoint share a budget instead of doubling it.
 */
function clockStore(windows: FixedWindows) {
  return class ClockStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      const { count, remainingMs } = windows.hit(key, timeWindow);
      callback(null, { current: count, ttl: remainingMs });
    }

    read(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      const { count, remainingMs } = windows.peek(key, timeWindow);
      callback(null, { current: count, ttl: remainingMs });
    }

    child(): this {
      return this;
    }
  };
}

/**
 * Registers @fastify/rate-limit (routes opt in with `config.rateLimit: perIpRateLimit(...)`) and the
 * per-account throttle. Must be registered before the routes it limits: the plugin attaches its hook
 * when a route is added.
 */
export async function registerRateLimiting(app: FastifyInstance, context: ServerContext): Promise<void> {
  const windows = new FixedWindows(context.options.clock);
  await app.register(rateLimit, {
    global: false,
    store: clockStore(windows),
    // The header is sent by each interface's error handler from the ApiError, with the rest of the 429.
    addHeaders: { 'retry-after': false },
    errorResponseBuilder: (_request, limit) =>
      tooManyRequests(limit.ttl, 'too many requests from this address'),
  });
  app.decorate('signInThrottle', new AccountThrottle(context.options.clock, context.options.rateLimits));
}

/** The per-IP limit of one endpoint family, from options.rateLimits (decisions.md §7). */
export function perIpRateLimit(context: ServerContext, group: RateLimitGroup): RateLimitOptions {
  const { perIp, windowSeconds } = context.options.rateLimits;
  return { max: perIp, timeWindow: windowSeconds * 1000, groupId: `:${group}` };
}

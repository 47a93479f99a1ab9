/**
 * Rate limits on signing in (decisions.md §7; issue 4, "login and token endpoints rate-limited (429
 * with Retry-After)"; issue 17, "anyone who knows a rider's email keeps that rider out"). Two kinds:
 *
 * - Requests per address to the endpoints that exist only to sign in or to get a token (POST /sign_in,
 *   POST /api/v1/auth_tokens.json, POST /oauth/token), through @fastify/rate-limit: `perIp` a
 *   `windowSeconds`, whatever their outcome (each one costs a password hash).
 * - Failed password sign-ins (SignInThrottle below), on every path that takes an email and a password
 *   (those pages and endpoints, and the legacy `email` + `password` on any request), counted per source
 *   address, per account from that address, and per account from everywhere. The rule follows the
 *   OWASP Authentication Cheat Sheet ("Login Throttling", "Account Lockout"): failures are counted
 *   against the account, so that guessing from many addresses is slowed too, but a lockout must not
 *   become a way to lock someone else out. So the address that fails is what is refused: the account
 *   from everywhere only past a ceiling that one address can never reach on its own (options.ts,
 *   resolveRateLimits, checks that), and the owner signing in from another address is not affected.
 *
 * Both count time with the server's injected clock (options.clock), never Date.now, so tests move time
 * instead of waiting, in fixed windows that start at the first hit. A limited request is an ApiError
 * 429 with `retryAfterSeconds` whose message says when to try again in words; each interface's error
 * handler formats it (v1 `{"errors": [...]}`, legacy `{"error"}`, OAuth RFC 6749 style, pages as HTML)
 * and sends `Retry-After`.
 */
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { clientAddress } from '../client-address.js';
import type { ServerContext } from '../context.js';
import { ApiError, ApiErrorCode } from '../errors.js';
import type { RateLimits } from '../options.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** failed password sign-ins (every path that takes an email and a password) */
    signInThrottle: SignInThrottle;
  }
}

/** The endpoint families limited per IP; each IP has its own budget in each family. */
export type RateLimitGroup = 'sign_in' | 'oauth_token' | 'auth_tokens';

/**
 * Windows kept at most; beyond this, expired windows are swept and then the oldest dropped. A key is an
 * address or an account and a count: about 1 MB in all (issue 22).
 */
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

/** "45 seconds", "15 minutes": how long, in words a person reads at a glance. */
export function waitInWords(seconds: number): string {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

function tooManyRequests(remainingMs: number, what: string): ApiError {
  const retryAfterSeconds = Math.max(1, Math.ceil(remainingMs / 1000));
  return new ApiError(
    ApiErrorCode.TOO_MANY_REQUESTS,
    `${what}: try again in ${waitInWords(retryAfterSeconds)}`,
    { retryAfterSeconds },
  );
}

/**
 * Failed password sign-ins (decisions.md §7, "per IP and per account"; issue 17), in three counters:
 *
 * - per source address (clientAddress: IPv4, or the IPv6 /64), whatever the accounts tried:
 *   `failuresPerAddress` failures refuse every password sign-in from that address;
 * - per account from one address: `failuresPerAccountAndAddress` failures refuse that account from
 *   that address only, even with the right password, until the window ends; a success forgets them;
 * - per account from every address: `failuresPerAccount`, a ceiling against guessing from many
 *   addresses, which one address alone can never reach (options.ts, resolveRateLimits).
 *
 * The account is the email as typed, trimmed and lower-cased, whether or not it exists, so being
 * throttled never tells whether an email has an account (decisions.md §1). A success clears only the
 * count of that account from that address: neither an attacker's own account nor the owner's sign-in
 * may reset what the other counters hold.
 */
export class SignInThrottle {
  readonly #byAddress: FixedWindows;
  readonly #byAccountAtAddress: FixedWindows;
  readonly #byAccount: FixedWindows;
  readonly #limits: RateLimits;

  constructor(clock: () => number, limits: RateLimits) {
    // One store each, so that keys flooding one counter never push another's out.
    this.#byAddress = new FixedWindows(clock);
    this.#byAccountAtAddress = new FixedWindows(clock);
    this.#byAccount = new FixedWindows(clock);
    this.#limits = limits;
  }

  /** Throws the 429 while any of the three counters is full; the wait is the longest of them. */
  assertAllowed(email: string, ip: string): void {
    const keys = this.#keys(email, ip);
    const limits = [
      {
        window: this.#byAddress.peek(keys.address, this.#windowMs),
        max: this.#limits.failuresPerAddress,
        what: 'too many failed sign-ins from this address',
      },
      {
        window: this.#byAccountAtAddress.peek(keys.accountAtAddress, this.#windowMs),
        max: this.#limits.failuresPerAccountAndAddress,
        what: 'too many failed sign-ins for this account from this address',
      },
      {
        window: this.#byAccount.peek(keys.account, this.#windowMs),
        max: this.#limits.failuresPerAccount,
        what: 'too many failed sign-ins for this account',
      },
    ].filter(({ window, max }) => window.count >= max);
    const longest = limits.sort((a, b) => b.window.remainingMs - a.window.remainingMs)[0];
    if (longest !== undefined) throw tooManyRequests(longest.window.remainingMs, longest.what);
  }

  recordFailure(email: string, ip: string): void {
    const keys = this.#keys(email, ip);
    this.#byAddress.hit(keys.address, this.#windowMs);
    this.#byAccountAtAddress.hit(keys.accountAtAddress, this.#windowMs);
    this.#byAccount.hit(keys.account, this.#windowMs);
  }

  recordSuccess(email: string, ip: string): void {
    this.#byAccountAtAddress.clear(this.#keys(email, ip).accountAtAddress);
  }

  #keys(email: string, ip: string): { address: string; accountAtAddress: string; account: string } {
    const account = email.normalize('NFC').trim().toLowerCase();
    const address = clientAddress(ip);
    return { address, account, accountAtAddress: `${account}\n${address}` };
  }

  get #windowMs(): number {
    return this.#limits.failureWindowSeconds * 1000;
  }
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
 * throttle of failed sign-ins. Must be registered before the routes it limits: the plugin attaches its
 * hook when a route is added.
 */
export async function registerRateLimiting(app: FastifyInstance, context: ServerContext): Promise<void> {
  const windows = new FixedWindows(context.options.clock);
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => clientAddress(request.ip),
    store: clockStore(windows),
    // The header is sent by each interface's error handler from the ApiError, with the rest of the 429.
    addHeaders: { 'retry-after': false },
    errorResponseBuilder: (_request, limit) =>
      tooManyRequests(limit.ttl, 'too many requests from this address'),
  });
  app.decorate('signInThrottle', new SignInThrottle(context.options.clock, context.options.rateLimits));
}

/** The per-IP limit of one endpoint family, from options.rateLimits (decisions.md §7). */
export function perIpRateLimit(context: ServerContext, group: RateLimitGroup): RateLimitOptions {
  const { perIp, windowSeconds } = context.options.rateLimits;
  return { max: perIp, timeWindow: windowSeconds * 1000, groupId: `:${group}` };
}

/**
 * Rate limits on signing in (docs/contributors/decisions.md §7; issue 4, "login and token endpoints rate-limited (429
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
 * Both count in fixed windows that start at the first hit, kept in the database (store/rate-windows.ts),
 * so that every server on one database counts the same attempts (issue 18), on the server's injected
 * clock (options.clock), never Date.now, so tests move time instead of waiting. A limited request is an ServerError
 * 429 with `retryAfterSeconds` whose message says when to try again in words; each interface's error
 * handler formats it (v1 `{"errors": [...]}`, legacy `{"error"}`, OAuth RFC 6749 style, pages as HTML)
 * and sends `Retry-After`.
 */
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { clientAddress } from '../client-address.js';
import type { ServerContext } from '../context.js';
import { ServerError, ServerErrorCode } from '../errors.js';
import type { RateLimits } from '../options.js';
import type { RateWindows, WindowCount } from '../store/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** failed password sign-ins (every path that takes an email and a password) */
    signInThrottle: SignInThrottle;
  }
}

/** The endpoint families limited per IP; each IP has its own budget in each family. */
export type RateLimitGroup = 'sign_in' | 'oauth_token' | 'auth_tokens';

/** "45 seconds", "15 minutes": how long, in words a person reads at a glance. */
export function waitInWords(seconds: number): string {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

function tooManyRequests(remainingMs: number, what: string): ServerError {
  const retryAfterSeconds = Math.max(1, Math.ceil(remainingMs / 1000));
  return new ServerError(
    ServerErrorCode.TOO_MANY_REQUESTS,
    `${what}: try again in ${waitInWords(retryAfterSeconds)}`,
    { retryAfterSeconds },
  );
}

/**
 * Failed password sign-ins (docs/contributors/decisions.md §7, "per IP and per account"; issue 17), in three counters:
 *
 * - per source address (clientAddress: IPv4, or the IPv6 /64), whatever the accounts tried:
 *   `failuresPerAddress` failures refuse every password sign-in from that address;
 * - per account from one address: `failuresPerAccountAndAddress` failures refuse that account from
 *   that address only, even with the right password, until the window ends; a success forgets them;
 * - per account from every address: `failuresPerAccount`, a ceiling against guessing from many
 *   addresses, which one address alone can never reach (options.ts, resolveRateLimits).
 *
 * The account is the email as typed, trimmed and lower-cased, whether or not it exists, so being
 * throttled never tells whether an email has an account (docs/contributors/decisions.md §1). A success clears only the
 * count of that account from that address: neither an attacker's own account nor the owner's sign-in
 * may reset what the other counters hold.
 */
export class SignInThrottle {
  readonly #windows: RateWindows;
  readonly #limits: RateLimits;

  constructor(windows: RateWindows, limits: RateLimits) {
    this.#windows = windows;
    this.#limits = limits;
  }

  /** Throws the 429 while any of the three counters is full; the wait is the longest of them. */
  async assertAllowed(email: string, ip: string): Promise<void> {
    const keys = this.#keys(email, ip);
    const counters: { window: WindowCount; max: number; what: string }[] = [
      {
        window: await this.#windows.peek(keys.address),
        max: this.#limits.failuresPerAddress,
        what: 'too many failed sign-ins from this address',
      },
      {
        window: await this.#windows.peek(keys.accountAtAddress),
        max: this.#limits.failuresPerAccountAndAddress,
        what: 'too many failed sign-ins for this account from this address',
      },
      {
        window: await this.#windows.peek(keys.account),
        max: this.#limits.failuresPerAccount,
        what: 'too many failed sign-ins for this account',
      },
    ];
    const longest = counters
      .filter(({ window, max }) => window.count >= max)
      .sort((a, b) => b.window.remainingMs - a.window.remainingMs)[0];
    if (longest !== undefined) throw tooManyRequests(longest.window.remainingMs, longest.what);
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    const keys = this.#keys(email, ip);
    await this.#windows.hit(keys.address, this.#windowMs);
    await this.#windows.hit(keys.accountAtAddress, this.#windowMs);
    await this.#windows.hit(keys.account, this.#windowMs);
  }

  async recordSuccess(email: string, ip: string): Promise<void> {
    await this.#windows.clear(this.#keys(email, ip).accountAtAddress);
  }

  /** One key space per counter, apart from the per-IP request limits' (`requests\n…`). */
  #keys(email: string, ip: string): { address: string; accountAtAddress: string; account: string } {
    const account = email.normalize('NFC').trim().toLowerCase();
    const address = clientAddress(ip);
    return {
      address: `failures from\n${address}`,
      accountAtAddress: `failures of account from\n${account}\n${address}`,
      account: `failures of account\n${account}`,
    };
  }

  get #windowMs(): number {
    return this.#limits.failureWindowSeconds * 1000;
  }
}

/**
 * A store for @fastify/rate-limit (its documented `store` option) over the database's windows, so the
 * per-IP limit is shared by every server and runs on the injected clock like everything else (the
 * plugin's own LocalStore is per process and reads Date.now). All routes share one store; the route's
 * `groupId` is part of the key, so the `.json` and bare paths of one endpoint share a budget instead of
 * doubling it.
 */
function databaseStore(windows: RateWindows) {
  type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
  const answer = (counted: Promise<WindowCount>, callback: Callback) => {
    counted.then(
      ({ count, remainingMs }) => {
        callback(null, { current: count, ttl: remainingMs });
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)));
      },
    );
  };
  return class DatabaseStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      answer(windows.hit(`requests\n${key}`, timeWindow), callback);
    }

    read(key: string, callback: Callback): void {
      answer(windows.peek(`requests\n${key}`), callback);
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
  const windows = context.store.rateWindows;
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => clientAddress(request.ip),
    store: databaseStore(windows),
    // The header is sent by each interface's error handler from the ServerError, with the rest of the 429.
    addHeaders: { 'retry-after': false },
    errorResponseBuilder: (_request, limit) =>
      tooManyRequests(limit.ttl, 'too many requests from this address'),
  });
  app.decorate('signInThrottle', new SignInThrottle(windows, context.options.rateLimits));
}

/** The per-IP limit of one endpoint family, from options.rateLimits (docs/contributors/decisions.md §7). */
export function perIpRateLimit(context: ServerContext, group: RateLimitGroup): RateLimitOptions {
  const { perIp, windowSeconds } = context.options.rateLimits;
  return { max: perIp, timeWindow: windowSeconds * 1000, groupId: `:${group}` };
}

/**
 * Fixed windows of the rate limits (auth/rate-limit.ts), in the database (migration 13; issue 18:
 * "rate-limit counters live in a per-process Map"), so every server on one database counts the same
 * attempts. One statement per hit, the same on both engines: an upsert that starts a new window when
 * the old one has ended and otherwise adds one, so two servers counting the same key at once both count
 * (the row is locked by the first until it commits).
 *
 * Keys are hashed: a failed sign-in's key holds the email as typed, which is not kept. Windows that have
 * ended are swept at most once a minute per server, so the table holds about the windows started in the
 * longest window plus a minute, whatever the number of keys ever seen (issue 22: bounded by time, not
 * by the history of the database).
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { StoreContext } from './context.js';

export interface WindowCount {
  /** hits in the current window (0 when there is none) */
  count: number;
  /** milliseconds until the current window ends (0 when there is none) */
  remainingMs: number;
}

const SWEEP_INTERVAL_MS = 60_000;

function storedKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

export class RateWindows {
  readonly #context: StoreContext;
  #lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /** Counts one hit on `key`; a window of `windowMs` starts at the first hit after the last one ended. */
  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.#context.clock();
    await this.#sweep(now);
    const ended = sql<boolean>`rate_windows.ends_ms <= ${now}`;
    const row = await this.#context.db
      .insertInto('rate_windows')
      .values({ key: storedKey(key), hits: 1, ends_ms: now + windowMs })
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          hits: sql`CASE WHEN ${ended} THEN 1 ELSE rate_windows.hits + 1 END`,
          ends_ms: sql`CASE WHEN ${ended} THEN ${now + windowMs} ELSE rate_windows.ends_ms END`,
        }),
      )
      .returning(['hits', 'ends_ms'])
      .executeTakeFirstOrThrow();
    return { count: row.hits, remainingMs: row.ends_ms - now };
  }

  /** The current window of `key`, without counting a hit. */
  async peek(key: string): Promise<WindowCount> {
    const now = this.#context.clock();
    const row = await this.#context.db
      .selectFrom('rate_windows')
      .select(['hits', 'ends_ms'])
      .where('key', '=', storedKey(key))
      .where('ends_ms', '>', now)
      .executeTakeFirst();
    return row === undefined
      ? { count: 0, remainingMs: 0 }
      : { count: row.hits, remainingMs: row.ends_ms - now };
  }

  async clear(key: string): Promise<void> {
    await this.#context.db.deleteFrom('rate_windows').where('key', '=', storedKey(key)).execute();
  }

  async #sweep(now: number): Promise<void> {
    if (now - this.#lastSweepMs < SWEEP_INTERVAL_MS) return;
    this.#lastSweepMs = now;
    await this.#context.db.deleteFrom('rate_windows').where('ends_ms', '<=', now).execute();
  }
}

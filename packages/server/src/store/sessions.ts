/**
 * Browser sign-in sessions for the web pages (docs/contributors/decisions.md §3–4): the cookie holds a random token, the
 * database its SHA-256; a session expires a configurable time after its last use.
 */
import type { UserRow } from '../db/schema.js';
import { randomToken, secretHash } from '../security/secrets.js';
import type { StoreContext } from './context.js';
import { touchLastUse } from './touch.js';

/** Last-seen times are written at most this often. */
const TOUCH_INTERVAL_MS = 60_000;

export class Sessions {
  readonly #context: StoreContext;
  readonly #lifetimeMs: number;

  constructor(context: StoreContext, lifetimeMs: number) {
    this.#context = context;
    this.#lifetimeMs = lifetimeMs;
  }

  /** A new session for `userId`; returns the token for the cookie. */
  async start(userId: number): Promise<string> {
    const token = randomToken();
    const now = this.#context.clock();
    await this.#context.db
      .insertInto('sessions')
      .values({
        session_hash: secretHash(token),
        user_id: userId,
        created_at: now,
        last_seen_at: now,
        expires_at: now + this.#lifetimeMs,
      })
      .execute();
    return token;
  }

  /** The signed-in user of a live session; extends the session's life. */
  async user(token: string): Promise<UserRow | undefined> {
    const now = this.#context.clock();
    const session = await this.#context.db
      .selectFrom('sessions')
      .selectAll()
      .where('session_hash', '=', secretHash(token))
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (session === undefined) return undefined;
    if (now - session.last_seen_at > TOUCH_INTERVAL_MS) {
      await touchLastUse(() =>
        this.#context.db
          .updateTable('sessions')
          .set({ last_seen_at: now, expires_at: now + this.#lifetimeMs })
          .where('id', '=', session.id)
          .execute(),
      );
    }
    return this.#context.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', session.user_id)
      .executeTakeFirst();
  }

  async end(token: string): Promise<void> {
    await this.#context.db.deleteFrom('sessions').where('session_hash', '=', secretHash(token)).execute();
  }

  /** Removes expired sessions (called now and then, so the table does not grow without end). */
  async purgeExpired(): Promise<number> {
    const result = await this.#context.db
      .deleteFrom('sessions')
      .where('expires_at', '<=', this.#context.clock())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

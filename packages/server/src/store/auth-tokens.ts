/**
 * Auth tokens (docs/contributors/decisions.md §1): bound to a user and an API client, kept as SHA-256 only, expiring a
 * configurable time after their last use.
 */
import type { AuthTokenRow } from '../db/schema.js';
import { randomToken, secretHash } from '../security/secrets.js';
import type { StoreContext } from './context.js';
import { touchLastUse } from './touch.js';

export interface IssuedAuthToken {
  row: AuthTokenRow;
  /** the token itself: shown once, never stored */
  token: string;
}

export type AuthTokenCheck =
  { ok: true; row: AuthTokenRow } | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'other_client' };

/** Last-use times are written at most this often, so a busy client does not write on every request. */
export const TOUCH_INTERVAL_MS = 60_000;

export class AuthTokens {
  readonly #context: StoreContext;
  readonly #lifetimeMs: number;

  constructor(context: StoreContext, lifetimeMs: number) {
    this.#context = context;
    this.#lifetimeMs = lifetimeMs;
  }

  async issue(userId: number, apiClientId: number): Promise<IssuedAuthToken> {
    const token = randomToken();
    const now = this.#context.clock();
    const row = await this.#context.db
      .insertInto('auth_tokens')
      .values({
        user_id: userId,
        api_client_id: apiClientId,
        token_hash: secretHash(token),
        created_at: now,
        updated_at: now,
        last_used_at: now,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, token };
  }

  /**
   * Whether `token` is a live token of the client `apiClientId`; a live token's last use is moved to now.
   * The lookup is by hash (an index seek on a value derived from the secret), so no comparison of the
   * secret itself can leak its prefix through timing.
   */
  async check(token: string, apiClientId: number): Promise<AuthTokenCheck> {
    const row = await this.#context.db
      .selectFrom('auth_tokens')
      .selectAll()
      .where('token_hash', '=', secretHash(token))
      .executeTakeFirst();
    if (row === undefined) return { ok: false, reason: 'unknown' };
    if (row.api_client_id !== apiClientId) return { ok: false, reason: 'other_client' };
    if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
    const now = this.#context.clock();
    if (now - row.last_used_at > this.#lifetimeMs) return { ok: false, reason: 'expired' };
    if (now - row.last_used_at > TOUCH_INTERVAL_MS) {
      await touchLastUse(() =>
        this.#context.db
          .updateTable('auth_tokens')
          .set({ last_used_at: now })
          .where('id', '=', row.id)
          .execute(),
      );
    }
    return { ok: true, row };
  }

  async revoke(tokenId: number): Promise<void> {
    await this.#context.db
      .updateTable('auth_tokens')
      .set({ revoked_at: this.#context.clock() })
      .where('id', '=', tokenId)
      .where('revoked_at', 'is', null)
      .execute();
  }
}

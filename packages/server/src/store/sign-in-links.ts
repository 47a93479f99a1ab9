/**
 * One-time sign-in links (issue 7: the desktop app's window and `rideport up` open the dashboard
 * signed in): a 256-bit random token whose SHA-256 alone is stored, as for sessions (docs/contributors/decisions.md §1),
 * good once and for a short while. Redeeming deletes the row in the same statement that reads it, so
 * two requests racing with one link cannot both sign in.
 */
import { randomToken, secretHash } from '../security/secrets.js';
import type { StoreContext } from './context.js';

/** How long a link is good for. */
export const SIGN_IN_LINK_LIFETIME_MS = 2 * 60_000;

export interface RedeemedSignInLink {
  userId: number;
  /** the same-site path the link was made for */
  nextPath: string;
}

export class SignInLinks {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /** A new link's token for `userId`, going on to `nextPath`; drops links that have run out. */
  async issue(userId: number, nextPath: string): Promise<string> {
    const token = randomToken();
    const now = this.#context.clock();
    await this.#context.db.transaction().execute(async (db) => {
      await db.deleteFrom('sign_in_links').where('expires_at', '<=', now).execute();
      await db
        .insertInto('sign_in_links')
        .values({
          token_hash: secretHash(token),
          user_id: userId,
          next_path: nextPath,
          created_at: now,
          expires_at: now + SIGN_IN_LINK_LIFETIME_MS,
        })
        .execute();
    });
    return token;
  }

  /** Uses the link up: whom it signs in and where it goes; undefined when unknown, used or expired. */
  async redeem(token: string): Promise<RedeemedSignInLink | undefined> {
    const row = await this.#context.db
      .deleteFrom('sign_in_links')
      .where('token_hash', '=', secretHash(token))
      .returning(['user_id', 'next_path', 'expires_at'])
      .executeTakeFirst();
    if (row === undefined || row.expires_at <= this.#context.clock()) return undefined;
    return { userId: row.user_id, nextPath: row.next_path };
  }
}

/**
 * OAuth 2.0 records (docs/contributors/decisions.md §3): access grants (codes, single-use, 10 minutes, bound to client
 * and redirect URI, with the PKCE challenge) and access tokens (scope `user`, no expiry, until
 * revoked). Codes and tokens are kept as SHA-256 only.
 */
import type { Selectable } from 'kysely';
import type { OAuthGrantsTable, OAuthTokensTable } from '../db/schema.js';
import { randomToken, secretHash } from '../security/secrets.js';
import type { StoreContext } from './context.js';

export type OAuthGrant = Selectable<OAuthGrantsTable>;
export type OAuthAccessToken = Selectable<OAuthTokensTable>;

export const GRANT_LIFETIME_MS = 10 * 60 * 1000;

export interface NewGrant {
  apiClientId: number;
  userId: number;
  redirectUri: string;
  scope: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  /** the code to store; a random one when absent */
  code?: string;
}

export class OAuth {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async createGrant(grant: NewGrant): Promise<{ row: OAuthGrant; code: string }> {
    const code = grant.code ?? randomToken();
    const now = this.#context.clock();
    const row = await this.#context.db
      .insertInto('oauth_grants')
      .values({
        code_hash: secretHash(code),
        api_client_id: grant.apiClientId,
        user_id: grant.userId,
        redirect_uri: grant.redirectUri,
        scope: grant.scope,
        code_challenge: grant.codeChallenge,
        code_challenge_method: grant.codeChallengeMethod,
        created_at: now,
        expires_at: now + GRANT_LIFETIME_MS,
        used_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, code };
  }

  /** The grant of `code` whatever its state (used, expired): the caller decides what that means. */
  findGrant(code: string): Promise<OAuthGrant | undefined> {
    return this.#context.db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('code_hash', '=', secretHash(code))
      .executeTakeFirst();
  }

  /**
   * Marks the grant used; true only for the one caller that used it first (the update is conditional,
   * so two exchanges racing with one code cannot both succeed).
   */
  async useGrant(grantId: number): Promise<boolean> {
    const result = await this.#context.db
      .updateTable('oauth_grants')
      .set({ used_at: this.#context.clock() })
      .where('id', '=', grantId)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async issueToken(
    apiClientId: number,
    userId: number,
    grantId: number | null,
    scope: string,
    token: string = randomToken(),
  ): Promise<{ row: OAuthAccessToken; token: string }> {
    const row = await this.#context.db
      .insertInto('oauth_tokens')
      .values({
        token_hash: secretHash(token),
        api_client_id: apiClientId,
        user_id: userId,
        grant_id: grantId,
        scope,
        created_at: this.#context.clock(),
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, token };
  }

  /** The unrevoked access token `token`, or undefined. */
  findLiveToken(token: string): Promise<OAuthAccessToken | undefined> {
    return this.#context.db
      .selectFrom('oauth_tokens')
      .selectAll()
      .where('token_hash', '=', secretHash(token))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  }

  /** Revokes `token` if it belongs to the client; false when there was nothing to revoke. */
  async revokeToken(token: string, apiClientId: number): Promise<boolean> {
    const result = await this.#context.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: this.#context.clock() })
      .where('token_hash', '=', secretHash(token))
      .where('api_client_id', '=', apiClientId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** A replayed code revokes every token issued from it (docs/contributors/decisions.md §3; RFC 6749 §4.1.2). */
  async revokeTokensOfGrant(grantId: number): Promise<void> {
    await this.#context.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: this.#context.clock() })
      .where('grant_id', '=', grantId)
      .where('revoked_at', 'is', null)
      .execute();
  }
}

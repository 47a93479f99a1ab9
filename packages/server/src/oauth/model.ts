/**
 * The model @node-oauth/oauth2-server works through, over the data-access layer (store.apiClients,
 * store.users, store.oauth). What docs/contributors/decisions.md §3 asks beyond the library's defaults is decided here:
 *
 * - scope: always `user`, whatever was asked (RFC 6749 §3.3 lets the server ignore the request; the
 *   token response says what was granted);
 * - codes: 256-bit random, kept as SHA-256, single-use, 10 minutes on the server's injected clock;
 *   replaying a used code fails and revokes the tokens issued from it (RFC 6749 §4.1.2);
 * - access tokens: 256-bit random, no expiry and no refresh token;
 * - clients: at the token endpoint a client always authenticates with its secret, PKCE or not
 *   (docs/integrators/api.md, OAuth 2.0 step 3 lists client_secret; PKCE is on top of it, not instead).
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { ServerContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import { randomToken } from '../security/secrets.js';
import type { ApiClient } from '../store/index.js';

/** The one scope there is (docs/contributors/decisions.md §1: "OAuth access token … scope `user`"). */
export const SCOPE = 'user';

/** A client as the library sees it; `id` is the api_key, which is also the OAuth client_id. */
export interface OAuthClient extends OAuth2Server.Client {
  id: string;
  grants: string[];
  redirectUris: string[];
  apiClient: ApiClient;
}

export interface OAuthUser extends OAuth2Server.User {
  row: UserRow;
}

/** A code as getAuthorizationCode hands it to the library: with the grant row's id. */
interface StoredCode extends OAuth2Server.AuthorizationCode {
  grantId: number;
}

/** What saveToken returns and the token endpoint answers with (the library passes it through). */
export interface IssuedToken extends OAuth2Server.Token {
  client: OAuthClient;
  user: OAuthUser;
  createdAtMs: number;
}

export function toOAuthClient(apiClient: ApiClient): OAuthClient {
  return {
    id: apiClient.apiKey,
    grants: ['authorization_code'],
    redirectUris: apiClient.redirectUris,
    apiClient,
  };
}

export function toOAuthUser(row: UserRow): OAuthUser {
  return { row };
}

/** The library types clients and users as open records; these are the ones toOAuth* made. */
const clientOf = (client: OAuth2Server.Client): ApiClient => (client as OAuthClient).apiClient;
const userOf = (user: OAuth2Server.User): UserRow => (user as OAuthUser).row;

/**
 * `identify`: the authorization endpoint, where a client is named by its client_id alone (RFC 6749
 * §4.1.1). `authenticate`: the token endpoint, where it must prove itself with its secret.
 */
export type ClientCheck = 'identify' | 'authenticate';

export function oauthModel(
  context: ServerContext,
  clientCheck: ClientCheck,
): OAuth2Server.AuthorizationCodeModel {
  const { store, options } = context;
  return {
    async getClient(clientId, clientSecret) {
      if (clientCheck === 'identify') {
        const client = await store.apiClients.findByApiKey(clientId);
        return client === undefined ? false : toOAuthClient(client);
      }
      // The library calls this without a secret when a PKCE verifier is present; that is no
      // authentication here (see the file comment), so the client is invalid.
      if (typeof clientSecret !== 'string' || clientSecret === '') return false;
      const client = await store.apiClients.authenticate(clientId, clientSecret);
      return client === undefined ? false : toOAuthClient(client);
    },

    generateAuthorizationCode: () => Promise.resolve(randomToken()),

    // The library's `expiresAt` comes from Date.now(); the store dates the grant by the injected clock.
    async saveAuthorizationCode(code, client, user) {
      const { row } = await store.oauth.createGrant({
        apiClientId: clientOf(client).id,
        userId: userOf(user).id,
        redirectUri: code.redirectUri,
        scope: SCOPE,
        codeChallenge: code.codeChallenge ?? null,
        codeChallengeMethod: code.codeChallenge === undefined ? null : (code.codeChallengeMethod ?? 'S256'),
        code: code.authorizationCode,
      });
      return {
        authorizationCode: code.authorizationCode,
        expiresAt: new Date(row.expires_at),
        redirectUri: row.redirect_uri,
        scope: [SCOPE],
        client,
        user,
      };
    },

    async getAuthorizationCode(code) {
      const grant = await store.oauth.findGrant(code);
      if (grant === undefined) return false;
      if (grant.used_at !== null) {
        // docs/contributors/decisions.md §3: a replayed code fails and revokes the tokens issued from it.
        await store.oauth.revokeTokensOfGrant(grant.id);
        throw new OAuth2Server.InvalidGrantError('Invalid grant: authorization code has already been used');
      }
      const now = options.clock();
      if (grant.expires_at <= now) {
        throw new OAuth2Server.InvalidGrantError('Invalid grant: authorization code has expired');
      }
      const [apiClient, user] = await Promise.all([
        store.apiClients.findById(grant.api_client_id),
        store.users.findById(grant.user_id),
      ]);
      if (apiClient === undefined || user === undefined) return false;
      const stored: StoredCode = {
        authorizationCode: code,
        // The library compares this with Date.now(); expiry was decided above on the injected clock,
        // so it is handed the time the code has left on that clock, counted from Date.now().
        expiresAt: new Date(Date.now() + (grant.expires_at - now)),
        redirectUri: grant.redirect_uri,
        scope: [grant.scope],
        client: toOAuthClient(apiClient),
        user: toOAuthUser(user),
        grantId: grant.id,
      };
      if (grant.code_challenge !== null) {
        stored.codeChallenge = grant.code_challenge;
        stored.codeChallengeMethod = grant.code_challenge_method ?? 'S256';
      }
      return stored;
    },

    async revokeAuthorizationCode(code) {
      const { grantId } = code as StoredCode;
      if (await store.oauth.useGrant(grantId)) return true;
      // Another exchange used it between the read and now: that one was a replay of this one.
      await store.oauth.revokeTokensOfGrant(grantId);
      return false;
    },

    validateScope: () => Promise.resolve([SCOPE]),

    generateAccessToken: () => Promise.resolve(randomToken()),

    // No refresh tokens (docs/contributors/decisions.md §3): an empty value makes the library issue none.
    generateRefreshToken: () => Promise.resolve(''),

    // The library's accessTokenExpiresAt is ignored: access tokens live until revoked.
    async saveToken(token, client, user) {
      const code: unknown = token.authorizationCode;
      const grant = typeof code === 'string' ? await store.oauth.findGrant(code) : undefined;
      if (grant === undefined) throw new OAuth2Server.ServerError('the token has no authorization code');
      const { row } = await store.oauth.issueToken(
        clientOf(client).id,
        userOf(user).id,
        grant.id,
        SCOPE,
        token.accessToken,
      );
      const issued: IssuedToken = {
        accessToken: token.accessToken,
        scope: [SCOPE],
        client: client as OAuthClient,
        user: user as OAuthUser,
        createdAtMs: row.created_at,
      };
      return issued;
    },

    // Not used by the server (auth/credentials.ts checks Bearer tokens), but part of the model.
    async getAccessToken(accessToken) {
      const row = await store.oauth.findLiveToken(accessToken);
      if (row === undefined) return false;
      const [apiClient, user] = await Promise.all([
        store.apiClients.findById(row.api_client_id),
        store.users.findById(row.user_id),
      ]);
      if (apiClient === undefined || user === undefined) return false;
      return { accessToken, scope: [row.scope], client: toOAuthClient(apiClient), user: toOAuthUser(user) };
    },
  };
}

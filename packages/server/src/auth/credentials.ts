/**
 * Who is calling (docs/contributors/decisions.md §1). v1 tries, in order: `Authorization: Bearer <access token>`;
 * `Authorization: Basic base64(<api key>:<auth token>)`; the headers `x-service-api-key` +
 * `x-service-auth-token`. Every request is made through an API client: an unknown key is a 401 even
 * where no user is needed.
 */
import type { FastifyRequest } from 'fastify';
import type { UserRow } from '../db/schema.js';
import { notAuthorized } from '../errors.js';
import type { ApiClient, Store } from '../store/index.js';

export interface Caller {
  user: UserRow;
  client: ApiClient;
  /** how the caller proved who they are */
  via: 'oauth' | 'auth_token';
}

export const LOG_IN_AGAIN = 'log in again to get a new one';

/** The credentials a request carries, before any is checked. */
export type PresentedCredentials =
  | { kind: 'bearer'; accessToken: string }
  | { kind: 'api_key'; apiKey: string; authToken: string | null }
  | { kind: 'none' };

export function presentedCredentials(request: FastifyRequest): PresentedCredentials {
  const authorization = request.headers.authorization;
  if (authorization !== undefined && authorization.trim() !== '') {
    const [scheme = '', value = ''] = authorization.trim().split(/\s+/, 2);
    if (scheme.toLowerCase() === 'bearer' && value !== '') return { kind: 'bearer', accessToken: value };
    if (scheme.toLowerCase() === 'basic' && value !== '') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) {
        const authToken = decoded.slice(colon + 1);
        return {
          kind: 'api_key',
          apiKey: decoded.slice(0, colon),
          authToken: authToken === '' ? null : authToken,
        };
      }
    }
    throw notAuthorized(
      'the Authorization header must be "Bearer <access token>" or "Basic base64(<api key>:<auth token>)"',
    );
  }
  const apiKey = header(request, 'x-service-api-key');
  if (apiKey !== undefined) {
    return { kind: 'api_key', apiKey, authToken: header(request, 'x-service-auth-token') ?? null };
  }
  return { kind: 'none' };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** The API client a request names (its key), for endpoints that need no user; 401 when unknown. */
export async function callingClient(request: FastifyRequest, store: Store): Promise<ApiClient> {
  const credentials = presentedCredentials(request);
  if (credentials.kind !== 'api_key')
    throw notAuthorized('an API key is required (header x-service-api-key)');
  const client = await store.apiClients.findByApiKey(credentials.apiKey);
  if (client === undefined) throw notAuthorized('unknown API key');
  return client;
}

/** The user and client behind a v1 request; 401 with the reason when there is none. */
export async function v1Caller(request: FastifyRequest, store: Store): Promise<Caller> {
  const credentials = presentedCredentials(request);
  if (credentials.kind === 'none') {
    throw notAuthorized(
      'authentication required: send a Bearer access token or an API key with an auth token',
    );
  }
  if (credentials.kind === 'bearer') {
    const resolved = await store.callers.byAccessToken(credentials.accessToken);
    if (resolved === undefined) throw notAuthorized('the access token is invalid or was revoked');
    return { ...resolved, via: 'oauth' };
  }
  if (credentials.authToken === null) {
    await knownClient(store, credentials.apiKey);
    throw notAuthorized('an auth token is required with the API key');
  }
  // One query when all is well; the detailed checks below only say what is wrong.
  const resolved = await store.callers.byAuthToken(credentials.apiKey, credentials.authToken);
  if (resolved !== undefined) return { ...resolved, via: 'auth_token' };
  const client = await knownClient(store, credentials.apiKey);
  return { user: await userOfAuthToken(store, credentials.authToken, client), client, via: 'auth_token' };
}

async function knownClient(store: Store, apiKey: string): Promise<ApiClient> {
  const client = await store.apiClients.findByApiKey(apiKey);
  if (client === undefined) throw notAuthorized('unknown API key');
  return client;
}

/** The user an auth token of `client` acts for; 401 saying to log in again when it is not live. */
export async function userOfAuthToken(store: Store, authToken: string, client: ApiClient): Promise<UserRow> {
  const check = await store.authTokens.check(authToken, client.id);
  if (!check.ok) {
    const what = check.reason === 'expired' ? 'the auth token has expired' : 'the auth token is invalid';
    throw notAuthorized(`${what}: ${LOG_IN_AGAIN}`);
  }
  const user = await store.users.findById(check.row.user_id);
  if (user === undefined) throw notAuthorized(`the auth token is invalid: ${LOG_IN_AGAIN}`);
  return user;
}

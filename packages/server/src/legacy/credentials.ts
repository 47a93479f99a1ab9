/**
 * Who is calling the legacy interface (docs/contributors/decisions.md §1): the `apikey` parameter (query, form or JSON
 * body; the `x-service-api-key` header too) names the API client on every request; the user comes
 * from `auth_token` (parameter or `x-service-auth-token` header) or from `email` + `password`, which
 * older clients send on every request. A failed login or an expired token is a 401 whose message says
 * to log in again (docs/contributors/decisions.md §5), so clients can tell.
 */
import type { FastifyRequest } from 'fastify';
import { LOG_IN_AGAIN, userOfAuthToken, type Caller } from '../auth/credentials.js';
import type { ServerContext } from '../context.js';
import { notAuthorized } from '../errors.js';
import type { ApiClient } from '../store/index.js';
import type { LegacyParams } from './params.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** The API client named by `apikey`; 401 when it is missing or unknown. */
async function legacyClient(apiKey: string | undefined, context: ServerContext): Promise<ApiClient> {
  if (apiKey === undefined) throw notAuthorized('the apikey parameter is required');
  const client = await context.store.apiClients.findByApiKey(apiKey);
  if (client === undefined) throw notAuthorized('unknown apikey');
  return client;
}

export interface LegacyUser extends Caller {
  /** set when the user signed in with email and password on this request */
  signedInWithPassword: boolean;
  /** the auth token the request presented (parameter or header); null when it signed in by password */
  authToken: string | null;
}

/**
 * The API client and the user behind a request (the user null when it carries no user credentials).
 * A live auth token with its client's key is one lookup the store keeps while the database is
 * unchanged (store/callers.ts): clients poll the upload queue's status with them many times a second
 * (issue 5). Anything else takes the detailed path, whose errors say what is wrong.
 */
export async function legacyCaller(
  request: FastifyRequest,
  params: LegacyParams,
  context: ServerContext,
): Promise<{ client: ApiClient; user: LegacyUser | null }> {
  const apiKey = params.text('apikey') ?? header(request, 'x-service-api-key');
  const authToken = params.text('auth_token') ?? header(request, 'x-service-auth-token');
  if (apiKey !== undefined && authToken !== undefined) {
    const resolved = await context.store.callers.byAuthToken(apiKey, authToken);
    if (resolved !== undefined) {
      const user = { ...resolved, via: 'auth_token' as const, signedInWithPassword: false, authToken };
      return { client: resolved.client, user };
    }
  }
  const client = await legacyClient(apiKey, context);
  return { client, user: await legacyUser(request, params, context, client, authToken) };
}

async function legacyUser(
  request: FastifyRequest,
  params: LegacyParams,
  context: ServerContext,
  client: ApiClient,
  authToken: string | undefined,
): Promise<LegacyUser | null> {
  if (authToken !== undefined) {
    const user = await userOfAuthToken(context.store, authToken, client);
    return { user, client, via: 'auth_token', signedInWithPassword: false, authToken };
  }
  const email = params.text('email');
  const password = params.raw('password');
  if (email === undefined && password === undefined) return null;
  if (email === undefined || typeof password !== 'string' || password === '') {
    throw notAuthorized(`email and password are both required to log in: ${LOG_IN_AGAIN}`);
  }
  const throttle = request.server.signInThrottle;
  await throttle.assertAllowed(email, request.ip);
  const user = await context.store.users.authenticate(email, password);
  if (user === undefined) {
    await throttle.recordFailure(email, request.ip);
    // One message for an unknown email and a wrong password (never reveal whether an email exists).
    throw notAuthorized('invalid email or password: log in again');
  }
  await throttle.recordSuccess(email, request.ip);
  return { user, client, via: 'auth_token', signedInWithPassword: true, authToken: null };
}

/**
 * Legacy users (docs/integrators/api.md, legacy endpoints and "Legacy authentication"; docs/contributors/decisions.md §5):
 *
 * - `GET /users/current.json`: the login. With `email` and `password` it answers the user with a NEW
 *   auth token (bound to the calling API client, docs/contributors/decisions.md §1); with `auth_token` it answers the
 *   same user object with the token that was sent. A failed login or an expired token is the 401 of
 *   legacy/credentials.ts, whose message says to log in again.
 * - `GET /users/{id}.json`: any user's public profile, to any API client, with or without a user;
 *   `email` only when the caller is that user.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../context.js';
import { notAuthorized, notFound } from '../errors.js';
import { LOG_IN_AGAIN } from '../auth/credentials.js';
import { pathId } from './inputs.js';
import { LEGACY_USER_SCHEMA, legacyUserRecord, type LegacySignedInUser } from './records.js';
import { legacyRoute, type LegacyCall } from './route.js';
import type { LegacyUser } from './credentials.js';

/** The signed-in user of a route registered with `auth: 'user'`. */
export function signedIn(call: LegacyCall): LegacyUser {
  if (call.user === null) throw new Error('signedIn used on a legacy route without auth: user');
  return call.user;
}

/** The id of the calling user, or null when the request carries no user credentials. */
export function viewerId(call: LegacyCall): number | null {
  return call.user === null ? null : call.user.user.id;
}

export function legacyUsers(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  const { store } = context;

  legacyRoute(app, context, {
    method: 'GET',
    path: '/users/current',
    auth: 'user',
    summary: 'The signed-in user (signs in with email and password, giving an auth token)',
    answer: { type: 'object', required: ['user'], properties: { user: LEGACY_USER_SCHEMA } },
    handler: async (_request, call) => {
      const caller = signedIn(call);
      let authToken = caller.authToken;
      if (caller.signedInWithPassword) {
        authToken = (await store.authTokens.issue(caller.user.id, call.client.id)).token;
      }
      // Every signed-in request has one or the other; this only keeps the types honest.
      if (authToken === null) throw notAuthorized(`no auth token: ${LOG_IN_AGAIN}`);
      const user: LegacySignedInUser = {
        ...legacyUserRecord(caller.user, caller.user.id),
        auth_token: authToken,
      };
      return { body: { user } };
    },
  });

  legacyRoute(app, context, {
    method: 'GET',
    path: '/users/:id',
    auth: 'optional',
    summary: 'A user',
    handler: async (request, call) => {
      const id = pathId(request, 'user');
      const user = await store.users.findById(id);
      if (user === undefined) throw notFound(`user ${id} not found`);
      return { body: { user: legacyUserRecord(user, viewerId(call)) } };
    },
  });
  return Promise.resolve();
}

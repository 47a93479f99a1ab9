/**
 * `POST /api/v1/auth_tokens.json` (docs/integrators/api.md, Basic authentication step 1): the API key in
 * `x-service-api-key`, the user's email and password in the body → 201 with the auth token record.
 */
import type { FastifyInstance } from 'fastify';
import { perIpRateLimit } from '../../auth/rate-limit.js';
import type { PluginOptions } from '../../context.js';
import { notAuthorized } from '../../errors.js';
import { isoTime } from '../../iso-time.js';
import { ERRORS_SCHEMA, USER_SCHEMA, userRecord } from './records.js';
import { v1Route } from './route.js';

const BODY_SCHEMA = {
  type: 'object',
  required: ['user'],
  properties: {
    user: {
      type: 'object',
      required: ['email', 'password'],
      properties: {
        email: { type: 'string', minLength: 1, maxLength: 320 },
        password: { type: 'string', minLength: 1, maxLength: 1024 },
      },
    },
  },
} as const;

const AUTH_TOKEN_SCHEMA = {
  type: 'object',
  required: ['auth_token'],
  properties: {
    auth_token: {
      type: 'object',
      title: 'AuthTokenRecord',
      description: 'An auth token, the API key it goes with, and the user it signs in.',
      required: ['auth_token', 'api_key', 'created_at', 'updated_at', 'user'],
      properties: {
        auth_token: { type: 'string' },
        api_key: { type: 'string' },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
        user: USER_SCHEMA,
      },
    },
  },
} as const;

interface Body {
  user: { email: string; password: string };
}

export function authTokensRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  v1Route(app, context, {
    method: 'POST',
    url: '/auth_tokens.json',
    auth: 'client',
    // docs/contributors/decisions.md §7: requests per IP here, failed sign-ins (auth/rate-limit.ts) in the handler.
    config: { rateLimit: perIpRateLimit(context, 'auth_tokens') },
    schema: {
      summary: 'Get an auth token for a user (email and password)',
      body: BODY_SCHEMA,
      response: { 201: AUTH_TOKEN_SCHEMA, 400: ERRORS_SCHEMA, 401: ERRORS_SCHEMA, 429: ERRORS_SCHEMA },
    },
    handler: async (request, reply) => {
      const { user: credentials } = request.body as Body;
      const client = request.apiClient!;
      const throttle = request.server.signInThrottle;
      await throttle.assertAllowed(credentials.email, request.ip);
      const user = await context.store.users.authenticate(credentials.email, credentials.password);
      // One message for an unknown email and a wrong password (never reveal whether an email exists).
      if (user === undefined) {
        await throttle.recordFailure(credentials.email, request.ip);
        throw notAuthorized('invalid email or password');
      }
      await throttle.recordSuccess(credentials.email, request.ip);
      const { row, token } = await context.store.authTokens.issue(user.id, client.id);
      return reply.code(201).send({
        auth_token: {
          auth_token: token,
          api_key: client.apiKey,
          created_at: isoTime(row.created_at),
          updated_at: isoTime(row.updated_at),
          user: userRecord(user, user.id),
        },
      });
    },
  });
  return Promise.resolve();
}

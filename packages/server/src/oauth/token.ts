/**
 * `POST /oauth/token` and `/oauth/token.json` (docs/integrators/api.md, OAuth 2.0 step 3; docs/contributors/decisions.md §3):
 * the authorization code exchange, by the library's token(). JSON and form bodies; success is 200
 * `{"access_token", "token_type": "Bearer", "scope": "user", "created_at", "user_id"}` with no
 * expires_in and no refresh token. Rate-limited per IP (docs/contributors/decisions.md §7).
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { perIpRateLimit } from '../auth/rate-limit.js';
import type { ServerContext } from '../context.js';
import { OAUTH_CLIENT_SECURITY } from '../openapi.js';
import { OAUTH_ERROR_SCHEMA, sendLibraryError } from './errors.js';
import type { IssuedToken } from './model.js';
import type { OAuthServers } from './server.js';

const TOKEN_FIELDS = [
  'grant_type',
  'code',
  'redirect_uri',
  'client_id',
  'client_secret',
  'code_verifier',
] as const;

const BODY_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(TOKEN_FIELDS.map((field) => [field, { type: 'string' }])),
} as const;

const TOKEN_SCHEMA = {
  type: 'object',
  required: ['access_token', 'token_type', 'scope', 'created_at', 'user_id'],
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string', enum: ['Bearer'] },
    scope: { type: 'string' },
    created_at: { type: 'integer', description: 'Unix time in seconds' },
    user_id: { type: 'integer' },
  },
} as const;

/**
 * The request as the library reads it. The library accepts only form bodies (RFC 6749 §4.1.3) and
 * checks the content type; docs/contributors/decisions.md §3 also takes JSON. Fastify has already parsed either into
 * the same fields, so the library is shown those fields as the form they are equivalent to. Only the
 * token request's own fields go in, and the Authorization header for clients that authenticate with
 * HTTP Basic (RFC 6749 §2.3.1).
 */
function libraryRequest(request: FastifyRequest, fields: readonly string[]): OAuth2Server.Request {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const picked: Record<string, string> = {};
  for (const field of fields) {
    const value = body[field];
    if (typeof value === 'string') picked[field] = value;
  }
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': String(Buffer.byteLength(new URLSearchParams(picked).toString())),
  };
  if (request.headers.authorization !== undefined) headers.authorization = request.headers.authorization;
  return new OAuth2Server.Request({ method: 'POST', headers, query: {}, body: picked });
}

export function tokenRoutes(
  app: FastifyInstance,
  { context, servers }: { context: ServerContext; servers: OAuthServers },
): Promise<void> {
  for (const url of ['/oauth/token.json', '/oauth/token']) {
    app.post(
      url,
      {
        config: { rateLimit: perIpRateLimit(context, 'oauth_token') },
        schema: {
          tags: ['oauth'],
          security: OAUTH_CLIENT_SECURITY,
          summary: 'Exchange an authorization code for an access token',
          body: BODY_SCHEMA,
          response: {
            200: TOKEN_SCHEMA,
            400: OAUTH_ERROR_SCHEMA,
            401: OAUTH_ERROR_SCHEMA,
            429: OAUTH_ERROR_SCHEMA,
          },
        },
      },
      async (request, reply) => {
        let token: IssuedToken;
        try {
          // The library passes on what the model's saveToken returned: an IssuedToken.
          token = (await servers.token.token(
            libraryRequest(request, TOKEN_FIELDS),
            new OAuth2Server.Response(),
          )) as IssuedToken;
        } catch (error) {
          return sendLibraryError(request, reply, error);
        }
        // RFC 6749 §5.1: token answers are not cached.
        return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send({
          access_token: token.accessToken,
          token_type: 'Bearer',
          scope: token.scope?.join(' ') ?? 'user',
          created_at: Math.floor(token.createdAtMs / 1000),
          user_id: token.user.row.id,
        });
      },
    );
  }
  return Promise.resolve();
}

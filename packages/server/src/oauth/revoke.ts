/**
 * `POST /oauth/revoke` and `/oauth/revoke.json` (docs/integrators/api.md, OAuth 2.0 step 5; docs/contributors/decisions.md §3;
 * RFC 7009). The library has no revocation endpoint, so this one is written here: the client
 * authenticates as at the token endpoint (body credentials, or HTTP Basic), then the token is revoked
 * if it is a live access token of that client: 200 `{}`.
 *
 * RFC 7009 §2.1: the server "verifies whether the token was issued to the client making the
 * revocation request. If this validation fails, the request is refused and the client is informed of
 * the error", in the RFC 6749 §5.2 form (§2.2.1). So a live token of another client is refused with
 * 400 `unauthorized_client` (§5.2: "The authenticated client is not authorized to use this
 * authorization grant type", the one code for an authenticated client that may not do what it asks;
 * `invalid_client`, 401, is for failed client authentication) and stays live (issue 17; it was 200
 * before). An unknown, revoked or otherwise invalid token is still 200 `{}` (§2.2: "invalid tokens do
 * not cause an error response", the purpose of the request being achieved already). Wrong client
 * credentials are 401 `invalid_client`; a missing `token` is 400 `invalid_request`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerContext } from '../context.js';
import { OAUTH_CLIENT_SECURITY } from '../openapi.js';
import { OAUTH_ERROR_SCHEMA, sendOAuthError } from './errors.js';

const REVOKE_FIELDS = ['client_id', 'client_secret', 'token', 'token_type_hint'] as const;

const NOT_ISSUED_TO_CLIENT =
  'Unauthorized client: the token was not issued to this client, which may revoke only its own tokens';

const BODY_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(REVOKE_FIELDS.map((field) => [field, { type: 'string' }])),
} as const;

interface Body {
  client_id?: string;
  client_secret?: string;
  token?: string;
}

/** The client's id and secret from HTTP Basic (RFC 6749 §2.3.1) or else the body. */
function clientCredentials(request: FastifyRequest, body: Body): { id: string; secret: string } | undefined {
  const [scheme = '', value = ''] = (request.headers.authorization ?? '').trim().split(/\s+/, 2);
  if (scheme.toLowerCase() === 'basic' && value !== '') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return undefined;
    return {
      id: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  }
  if (body.client_id === undefined || body.client_id === '' || body.client_secret === undefined)
    return undefined;
  return { id: body.client_id, secret: body.client_secret };
}

export function revokeRoutes(app: FastifyInstance, { context }: { context: ServerContext }): Promise<void> {
  for (const url of ['/oauth/revoke.json', '/oauth/revoke']) {
    app.post(
      url,
      {
        schema: {
          tags: ['oauth'],
          security: OAUTH_CLIENT_SECURITY,
          summary: 'Revoke an access token (RFC 7009)',
          body: BODY_SCHEMA,
          response: {
            200: { type: 'object', additionalProperties: false, properties: {} },
            400: OAUTH_ERROR_SCHEMA,
            401: OAUTH_ERROR_SCHEMA,
          },
        },
      },
      async (request, reply) => {
        const body = (request.body ?? {}) as Body;
        let credentials: { id: string; secret: string } | undefined;
        try {
          credentials = clientCredentials(request, body);
        } catch {
          credentials = undefined; // a malformed percent-encoding in the Basic credentials
        }
        const client =
          credentials === undefined || credentials.secret === ''
            ? undefined
            : await context.store.apiClients.authenticate(credentials.id, credentials.secret);
        if (client === undefined) {
          return sendOAuthError(reply, 401, 'invalid_client', 'Invalid client: client is invalid');
        }
        if (body.token === undefined || body.token === '') {
          return sendOAuthError(reply, 400, 'invalid_request', 'Missing parameter: `token`');
        }
        // token_type_hint is optional to honour (RFC 7009 §2.1); only access tokens can be revoked here.
        if (!(await context.store.oauth.revokeToken(body.token, client.id))) {
          const live = await context.store.oauth.findLiveToken(body.token);
          // RFC 7009 §2.1 and §2.2.1: a token issued to another client is an error (see the top).
          if (live !== undefined && live.api_client_id !== client.id) {
            return sendOAuthError(reply, 400, 'unauthorized_client', NOT_ISSUED_TO_CLIENT);
          }
        }
        return reply.header('cache-control', 'no-store').send({});
      },
    );
  }
  return Promise.resolve();
}

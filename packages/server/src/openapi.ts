/**
 * The parts of the OpenAPI document at /api/v1/openapi.json that no single route owns (issue 20,
 * "OpenAPI"): its header, the security schemes, and which schemes each kind of route accepts. Every
 * API route (v1, legacy with its JSONP `.js` form, OAuth) describes itself in its own schema, through
 * v1Route, legacyRoute and the OAuth routes, so the document cannot drift from the code. Web pages
 * (the dashboard, sign-in, developer settings, static assets) are not API and stay hidden; the test
 * (openapi.test.ts) names their path prefixes.
 */
import type { SwaggerOptions } from '@fastify/swagger';

/**
 * The ways a request proves who it is (auth/credentials.ts for v1, legacy/credentials.ts for the
 * legacy interface, oauth/token.ts for the token endpoints).
 */
const SECURITY_SCHEMES = {
  basic: {
    type: 'http',
    scheme: 'basic',
    description:
      'v1: `Authorization: Basic base64(<api key>:<auth token>)`. Where only the API client is needed ' +
      'the auth token may be empty (`base64(<api key>:)`).',
  },
  serviceApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-service-api-key',
    description: 'The API client key; with `x-service-auth-token` it names the user too.',
  },
  serviceAuthToken: {
    type: 'apiKey',
    in: 'header',
    name: 'x-service-auth-token',
    description: 'An auth token (POST /api/v1/auth_tokens.json), sent with `x-service-api-key`.',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'An OAuth 2.0 access token (POST /oauth/token.json); it names the client and the user.',
  },
  legacyApiKey: {
    type: 'apiKey',
    in: 'query',
    name: 'apikey',
    description: 'Legacy interface: the API client key, as a query parameter or a form or JSON body field.',
  },
  legacyAuthToken: {
    type: 'apiKey',
    in: 'query',
    name: 'auth_token',
    description:
      'Legacy interface: an auth token, as a query parameter or a form or JSON body field. Older ' +
      'clients send `email` and `password` on every request instead; that signs in too.',
  },
  oauthClient: {
    type: 'http',
    scheme: 'basic',
    description:
      'OAuth token endpoints: `base64(<client_id>:<client_secret>)`, or `client_id` and ' +
      '`client_secret` in the form body (RFC 6749 §2.3.1).',
  },
} as const;

type SchemeName = keyof typeof SECURITY_SCHEMES;
type SecurityRequirement = Partial<Record<SchemeName, string[]>>;

/** v1 routes that act for a user: a Bearer access token, or an API key with an auth token. */
export const V1_USER_SECURITY: SecurityRequirement[] = [
  { bearer: [] },
  { basic: [] },
  { serviceApiKey: [], serviceAuthToken: [] },
];

/** v1 routes that need only the API client (auth: 'client'): its key, in Basic or the header. */
export const V1_CLIENT_SECURITY: SecurityRequirement[] = [{ basic: [] }, { serviceApiKey: [] }];

/** Legacy routes that need a user: the client key and an auth token, as parameters or headers. */
export const LEGACY_USER_SECURITY: SecurityRequirement[] = [
  { legacyApiKey: [], legacyAuthToken: [] },
  { serviceApiKey: [], serviceAuthToken: [] },
];

/** Legacy routes where the user is optional: the client key alone is enough. */
export const LEGACY_OPTIONAL_USER_SECURITY: SecurityRequirement[] = [
  ...LEGACY_USER_SECURITY,
  { legacyApiKey: [] },
  { serviceApiKey: [] },
];

/** The OAuth token and revocation endpoints: the client's id and secret (Basic or in the body). */
export const OAUTH_CLIENT_SECURITY: SecurityRequirement[] = [{ oauthClient: [] }, {}];

/** Routes anyone may call (the OAuth authorization endpoint, the document itself). */
export const PUBLIC_SECURITY: SecurityRequirement[] = [{}];

export function openApiOptions(origin: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Route and Ride Platform API (Rideport)',
        version: '1',
        description:
          'The v1 interface under /api/v1, the legacy interface at the site root (each path as `.json` ' +
          'and as JSONP `.js` with a `callback` parameter), and the OAuth 2.0 endpoints, as served by ' +
          'Rideport. v1 paths also answer without their `.json` extension; only the `.json` form is ' +
          'listed. Web pages (dashboard, sign-in, developer settings, static assets) are not listed.',
      },
      servers: [{ url: origin }],
      components: { securitySchemes: SECURITY_SCHEMES },
      tags: [
        { name: 'v1', description: 'The v1 interface (docs/integrators/api.md)' },
        { name: 'legacy', description: 'The legacy interface (docs/contributors/decisions.md §5)' },
        { name: 'oauth', description: 'OAuth 2.0 (docs/contributors/decisions.md §3)' },
      ],
    },
  };
}

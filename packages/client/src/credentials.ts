/**
 * How credentials travel (docs/integrators/api.md, Authentication; docs/contributors/decisions.md §1). v1: `Authorization: Bearer`
 * for OAuth, `Authorization: Basic base64(api key:auth token)` or the `x-service-api-key` +
 * `x-service-auth-token` pair for auth tokens, the key header alone where no user is needed. Legacy:
 * the `apikey` and `auth_token` parameters (the legacy interface knows no OAuth token: a client holding
 * only one sends its API key and the server answers 401).
 */

export type Credentials =
  | { kind: 'auth-token'; apiKey: string; authToken: string; scheme?: 'basic' | 'headers' }
  | { kind: 'oauth'; apiKey: string; accessToken: string }
  | { kind: 'api-key'; apiKey: string };

/** The v1 headers that prove who is calling. */
export function v1AuthHeaders(credentials: Credentials): Record<string, string> {
  switch (credentials.kind) {
    case 'oauth':
      return { authorization: `Bearer ${credentials.accessToken}` };
    case 'auth-token':
      if (credentials.scheme === 'headers') {
        return {
          'x-service-api-key': credentials.apiKey,
          'x-service-auth-token': credentials.authToken,
        };
      }
      return {
        authorization: `Basic ${Buffer.from(`${credentials.apiKey}:${credentials.authToken}`).toString('base64')}`,
      };
    case 'api-key':
      return { 'x-service-api-key': credentials.apiKey };
  }
}

/** The legacy query parameters that prove who is calling. */
export function legacyAuthParams(credentials: Credentials): Record<string, string> {
  return credentials.kind === 'auth-token'
    ? { apikey: credentials.apiKey, auth_token: credentials.authToken }
    : { apikey: credentials.apiKey };
}

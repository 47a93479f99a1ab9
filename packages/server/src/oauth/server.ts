/**
 * The two @node-oauth/oauth2-server instances (docs/contributors/decisions.md §3): one for the authorization endpoint,
 * which names clients by client_id, and one for the token endpoint, which authenticates them.
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { ServerContext } from '../context.js';
import { GRANT_LIFETIME_MS } from '../store/oauth.js';
import { RideportCodeGrant } from './grant.js';
import { oauthModel } from './model.js';

export interface OAuthServers {
  authorization: OAuth2Server;
  token: OAuth2Server;
}

export function oauthServers(context: ServerContext): OAuthServers {
  return {
    authorization: new OAuth2Server({
      model: oauthModel(context, 'identify'),
      // `state` is optional in docs/integrators/api.md's authorize request (RFC 6749 §4.1.1 RECOMMENDED, not
      // required); the library refuses requests without it unless told otherwise.
      allowEmptyState: true,
      // Informational: the store dates codes by the injected clock (store/oauth.ts, 10 minutes).
      authorizationCodeLifetime: GRANT_LIFETIME_MS / 1000,
    }),
    token: new OAuth2Server({
      model: oauthModel(context, 'authenticate'),
      // Replaces the library's own authorization_code grant with the RFC 6749 §5.2 fix of grant.ts.
      extendedGrantTypes: { authorization_code: RideportCodeGrant },
      // The library needs a lifetime to compute an expiry; saveToken ignores it (tokens live until
      // revoked, docs/contributors/decisions.md §1) and the answer carries no expires_in.
      accessTokenLifetime: 60 * 60,
    }),
  };
}

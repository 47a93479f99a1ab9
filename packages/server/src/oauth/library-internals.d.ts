/**
 * Types for the one module of @node-oauth/oauth2-server 5.3.0 that is used from inside the package
 * (it ships types only for its entry point): the authorization code grant, subclassed in grant.ts.
 */
declare module '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js' {
  import type OAuth2Server from '@node-oauth/oauth2-server';

  class AuthorizationCodeGrantType extends OAuth2Server.AbstractGrantType {
    constructor(options: OAuth2Server.TokenOptions);
    handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token>;
    /** RFC 6749 §4.1.3: the redirect_uri of the exchange must equal the authorization request's */
    validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode): void;
  }

  export = AuthorizationCodeGrantType;
}

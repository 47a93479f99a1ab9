/**
 * The library's authorization code grant with one correction (docs/contributors/decisions.md §3: "Errors follow RFC
 * 6749"). @node-oauth/oauth2-server answers a redirect_uri that differs from the authorization
 * request's with `invalid_request`; RFC 6749 §5.2 names that case `invalid_grant` ("does not match the
 * redirection URI used in the authorization request"). The subclass is installed for
 * `authorization_code` through the library's `extendedGrantTypes` option (see server.ts); everything
 * else — code lookup, single use, client binding, PKCE S256 verification, token issue — is the
 * library's. It runs after the library has already spent the code, as the library intends.
 */
// The ambient module has to reach every project that compiles this file (the package build and the
// tests' tsconfig.check.json), which an import cannot do for a declaration-only file.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./library-internals.d.ts" />
import OAuth2Server from '@node-oauth/oauth2-server';
import AuthorizationCodeGrantType from '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js';

export class RideportCodeGrant extends AuthorizationCodeGrantType {
  override validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode): void {
    const redirectUri: unknown = (request.body as Record<string, unknown> | undefined)?.redirect_uri;
    if (typeof redirectUri !== 'string' || redirectUri === '') {
      throw new OAuth2Server.InvalidRequestError('Missing parameter: `redirect_uri`');
    }
    if (redirectUri !== code.redirectUri) {
      throw new OAuth2Server.InvalidGrantError(
        'Invalid grant: `redirect_uri` does not match the one of the authorization request',
      );
    }
  }
}

/**
 * OAuth 2.0 (docs/integrators/api.md, Authentication; docs/contributors/decisions.md §3) with @node-oauth/oauth2-server: the
 * authorization endpoint with its sign-in and consent pages (HTML, CSRF-protected forms, page errors)
 * and the token and revocation endpoints (JSON, RFC 6749 error bodies), each in its own scope.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../context.js';
import { authorizeRoutes } from './authorize.js';
import { installOAuthErrorHandling } from './errors.js';
import { revokeRoutes } from './revoke.js';
import { oauthServers } from './server.js';
import { tokenRoutes } from './token.js';

export async function oauthApi(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  const servers = oauthServers(context);
  await app.register(authorizeRoutes, { context, servers });
  await app.register(async (scope: FastifyInstance) => {
    installOAuthErrorHandling(scope);
    await scope.register(tokenRoutes, { context, servers });
    await scope.register(revokeRoutes, { context });
  });
}

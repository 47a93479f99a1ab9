/**
 * The v1 interface under /api/v1 (platform-api.md; decisions.md §2): one plugin per resource, sharing
 * the credential check, the error bodies and the `.json`-or-not paths.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../../context.js';
import { authTokensRoutes } from './auth-tokens.js';
import { installV1ErrorHandling } from './errors.js';
import { decorateV1Requests } from './route.js';
import { usersRoutes } from './users.js';

export async function v1Api(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  decorateV1Requests(app);
  installV1ErrorHandling(app);
  // Only the context goes on: the options Fastify passed in also hold this scope's prefix.
  const options: PluginOptions = { context };
  await app.register(authTokensRoutes, options);
  await app.register(usersRoutes, options);
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}

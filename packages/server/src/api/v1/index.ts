/**
 * The v1 interface under /api/v1 (docs/integrators/api.md; docs/contributors/decisions.md §2): one plugin per resource, sharing
 * the credential check, the error bodies and the `.json`-or-not paths.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../../context.js';
import { PUBLIC_SECURITY } from '../../openapi.js';
import { authTokensRoutes } from './auth-tokens.js';
import { clubsRoutes } from './clubs.js';
import { installV1ErrorHandling } from './errors.js';
import { eventsRoutes } from './events.js';
import { localSyncRoutes } from './local-sync.js';
import { decorateV1Requests } from './route.js';
import { routesRoutes } from './routes.js';
import { syncRoutes } from './sync.js';
import { tripsRoutes } from './trips.js';
import { usersRoutes } from './users.js';

/** The document describes itself too (issue 20): every route the API serves is in it. */
const OPENAPI_DOCUMENTATION = {
  tags: ['v1'],
  summary: 'This OpenAPI document',
  security: PUBLIC_SECURITY,
};

export async function v1Api(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  decorateV1Requests(app);
  installV1ErrorHandling(app);
  // Only the context goes on: the options Fastify passed in also hold this scope's prefix.
  const options: PluginOptions = { context };
  await app.register(authTokensRoutes, options);
  await app.register(usersRoutes, options);
  await app.register(routesRoutes, options);
  await app.register(tripsRoutes, options);
  await app.register(eventsRoutes, options);
  await app.register(clubsRoutes, options);
  await app.register(syncRoutes, options);
  const { localSync } = context.options;
  if (localSync !== null) {
    await app.register((scope, pluginOptions: PluginOptions) => {
      localSyncRoutes(scope, pluginOptions, localSync);
      return Promise.resolve();
    }, options);
  }
  app.get('/openapi.json', { schema: OPENAPI_DOCUMENTATION }, () => app.swagger());
}

/**
 * Routes (docs/contributors/decisions.md §2): `GET /api/v1/routes.json` (the caller's routes, paginated; docs/integrators/api.md,
 * v1 endpoints), `GET /api/v1/routes/{id}.json` with `track_points`, `DELETE /api/v1/routes/{id}.json`.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../../context.js';
import { registerAssetEndpoints } from './asset-endpoints.js';

export function routesRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  registerAssetEndpoints(app, context, 'route');
  return Promise.resolve();
}

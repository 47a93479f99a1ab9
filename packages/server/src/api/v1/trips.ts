/**
 * Trips (docs/contributors/decisions.md §2): `GET /api/v1/trips.json` (the caller's trips, paginated),
 * `GET /api/v1/trips/{id}.json` with `track_points`, `DELETE /api/v1/trips/{id}.json`.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../../context.js';
import { registerAssetEndpoints } from './asset-endpoints.js';

export function tripsRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  registerAssetEndpoints(app, context, 'trip');
  return Promise.resolve();
}

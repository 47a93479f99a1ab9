/**
 * The legacy interface at the site root (docs/integrators/api.md, legacy endpoints; docs/contributors/decisions.md §5): `.json`
 * and `.js` (JSONP) paths, `apikey` on every request, `{"error"}` bodies, version 1 and 2 lists.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../context.js';
import { legacyAssets } from './assets.js';
import { legacyClubs } from './clubs.js';
import { createTripRoutes } from './create-trip.js';
import { queuedTaskRoutes } from './queued-tasks.js';
import { legacyUsers } from './users.js';

export async function legacyApi(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  // Only the context goes on: the options Fastify passed in may also hold this scope's prefix.
  const options: PluginOptions = { context };
  // File uploads (docs/contributors/decisions.md §5, §7): one file a request, refused past the upload limit as it streams.
  await app.register(multipart, {
    limits: { fileSize: context.options.limits.uploadBytes, files: 1, fields: 100, parts: 110 },
  });
  await app.register(createTripRoutes, options);
  await app.register(queuedTaskRoutes, options);
  // Users (login and profiles), routes and trips, clubs (docs/contributors/decisions.md §5).
  await app.register(legacyUsers, options);
  await app.register(legacyAssets, options);
  await app.register(legacyClubs, options);
}

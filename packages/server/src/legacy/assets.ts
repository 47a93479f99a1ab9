/**
 * Legacy routes and trips (docs/integrators/api.md, legacy endpoints; docs/contributors/decisions.md §5):
 *
 * - `GET /routes/{id}.json`, `GET /trips/{id}.json`: `{"route"|"trip": {…record…, "track_points": […]}}`
 *   (legacy/records.ts). Who sees one (docs/contributors/decisions.md §1): its owner; anyone when it is public; for a
 *   route, also the members of a club it is shared with (store/clubs.ts: a route a club lists to its
 *   members must open for them). Otherwise a caller with a user gets 403, and a caller without one 401
 *   (they may be the owner, not yet signed in); `friends_only` counts as not public, as there are no
 *   friendships here. An unknown id is 404.
 * - `GET /users/{id}/routes.json`, `GET /users/{id}/trips.json`: the owner sees all their assets,
 *   anyone else only the public ones; `offset` (default 0) and `limit` (1..200, default 20); newest
 *   change first (updated_at, then id, descending, as v1 lists, docs/contributors/decisions.md §2). Version 2 answers
 *   `{"results", "results_count"}`, where `results_count` counts every asset the caller may see, not the
 *   page; version 1 a bare array. An unknown user is 404.
 */
import type { FastifyInstance } from 'fastify';
import { LOG_IN_AGAIN } from '../auth/credentials.js';
import type { PluginOptions, ServerContext } from '../context.js';
import type { AssetType } from '../db/schema.js';
import { forbidden, notAuthorized, notFound } from '../errors.js';
import { recordWithUrl, type AssetRecordWithPoints } from '../store/index.js';
import { legacyPage, pathId } from './inputs.js';
import { legacyAssetUrl, legacyUrlPrefix, parsedRecord } from './records.js';
import { recordWithPointsJson } from '../store/record-body.js';
import { RenderedJson } from './respond.js';
import { legacyRoute } from './route.js';
import { viewerId } from './users.js';
import { legacyList } from './version.js';

export function legacyAssets(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  for (const type of ['route', 'trip'] as const) registerAssetEndpoints(app, context, type);
  return Promise.resolve();
}

function registerAssetEndpoints(app: FastifyInstance, context: ServerContext, type: AssetType): void {
  const { store } = context;
  const url = legacyAssetUrl(legacyUrlPrefix(context.options.baseUrl), type);

  legacyRoute(app, context, {
    method: 'GET',
    path: `/${type}s/:id`,
    auth: 'optional',
    summary: `A ${type} with its track points`,
    handler: async (request, call) => {
      const id = pathId(request, type);
      const found = await store.assets.findRecordWithPoints(type, id);
      if (found === undefined) throw notFound(`${type} ${id} not found`);
      await assertVisible(context, type, found, viewerId(call));
      const record = recordWithUrl(found.json, url);
      return { body: new RenderedJson(recordWithPointsJson(type, record, found.points)) };
    },
  });

  legacyRoute(app, context, {
    method: 'GET',
    path: `/users/:id/${type}s`,
    auth: 'optional',
    summary: `A user's ${type}s`,
    handler: async (request, call) => {
      const ownerId = pathId(request, 'user');
      const page = legacyPage(call.params);
      const owner = await store.users.findById(ownerId);
      if (owner === undefined) throw notFound(`user ${ownerId} not found`);
      const scope = viewerId(call) === ownerId ? 'all' : 'public';
      const { total, records } = await store.assets.listVisibleRecords(type, ownerId, page, url, scope);
      return { body: legacyList(call.version, records.map(parsedRecord), total) };
    },
  });
}

/** 401 or 403 unless the viewer may see the asset (see the rules at the top). */
async function assertVisible(
  context: ServerContext,
  type: AssetType,
  asset: AssetRecordWithPoints,
  viewer: number | null,
): Promise<void> {
  if (asset.visibility === 'public' || asset.userId === viewer) return;
  if (viewer === null) {
    throw notAuthorized(
      `${type} ${asset.id} is not public: send the auth_token, or email and password, of a user who may see it (${LOG_IN_AGAIN})`,
    );
  }
  if (type === 'route' && (await context.store.clubs.routeSharedWith(asset.id, viewer))) return;
  throw forbidden(`${type} ${asset.id} belongs to another user and is not public`);
}

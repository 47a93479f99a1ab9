/**
 * Clubs on v1 (issue 20, "Clubs": members share their routes with a club, through the API too). The
 * specification has clubs on the legacy interface only (docs/contributors/decisions.md §5, legacy/clubs.ts); these are
 * the same paths and rules in v1's conventions (docs/contributors/decisions.md §2: root keys, `page`/`page_size` with
 * `meta.pagination`, `{"errors": […]}`, 204 for a delete):
 *
 * - `GET /api/v1/clubs.json`: the clubs the caller belongs to (as administrator or member), by name,
 *   `{"clubs": […], "meta": {"pagination": …}}` (legacy's `/users/{id}/clubs.json` for oneself).
 * - `GET /api/v1/clubs/{id}.json`: `{"club": {…}}` (name, description, member count), to any user.
 * - `GET /api/v1/clubs/{id}/routes.json`: the routes shared with the club, most recently shared first.
 *   Members (and the club's own account) see every one, whatever its visibility; anyone else only the
 *   public ones (docs/contributors/decisions.md §5: "others see only public items").
 * - `POST /api/v1/clubs/{id}/routes.json` with `{"route_id": n}`: a member shares one of their own
 *   routes; 201 `{"route": {…}}`, or 200 when it was shared already.
 * - `DELETE /api/v1/clubs/{id}/routes/{routeId}.json`: the member who shared it or an administrator of
 *   the club takes it out; 204.
 *
 * Refusals are club-sharing.ts's, the same words as the legacy API and the dashboard: 403 for a
 * non-member, another's route or anyone else removing; 404 for an unknown club or route, or one not
 * shared. The id of a person is not a club: 404.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { removeRouteFromClub, shareRouteWithClub } from '../../club-sharing.js';
import type { PluginOptions } from '../../context.js';
import { notFound } from '../../errors.js';
import { ID_RANGE, wholeNumberSchema } from '../../whole-numbers.js';
import { pageOf, PAGINATION_QUERY_SCHEMA, paginationMeta, type PaginationQuery } from './pagination.js';
import {
  assetRecordUrl,
  CLUB_SCHEMA,
  clubRecord,
  errorResponses,
  ID_PARAMS_SCHEMA,
  NO_CONTENT_SCHEMA,
  listResponseSchema,
  ROUTE_SCHEMA,
} from './records.js';
import { v1UrlPrefix } from '../../v1-urls.js';
import { callerOf, v1Route } from './route.js';

const TAGS = ['clubs'];
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const SHARE_BODY_SCHEMA = {
  type: 'object',
  required: ['route_id'],
  properties: { route_id: wholeNumberSchema(ID_RANGE, { description: "one of the caller's routes" }) },
} as const;

const SHARED_ROUTE_SCHEMA = {
  type: 'object',
  required: ['route'],
  properties: { route: ROUTE_SCHEMA },
} as const;

const CLUB_ROUTE_PARAMS_SCHEMA = {
  type: 'object',
  required: ['id', 'routeId'],
  properties: { id: wholeNumberSchema(ID_RANGE), routeId: wholeNumberSchema(ID_RANGE) },
} as const;

export function clubsRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  const { store } = context;
  const prefix = v1UrlPrefix(context.options.baseUrl);
  const routeUrl = assetRecordUrl(prefix, 'route');

  v1Route(app, context, {
    method: 'GET',
    url: '/clubs.json',
    auth: 'user',
    schema: {
      summary: 'The clubs the caller belongs to, by name',
      tags: TAGS,
      querystring: PAGINATION_QUERY_SCHEMA,
      response: {
        200: listResponseSchema('clubs', CLUB_SCHEMA),
        ...errorResponses(400, 401),
      },
    },
    handler: async (request) => {
      const { user } = callerOf(request);
      const query = request.query as PaginationQuery;
      const { clubs, total } = await store.clubs.pageOfMember(user.id, pageOf(query));
      return {
        clubs: clubs.map((club) => clubRecord(club, prefix)),
        meta: { pagination: paginationMeta(query, total, `${prefix}/clubs.json`) },
      };
    },
  });

  v1Route(app, context, {
    method: 'GET',
    url: '/clubs/:id.json',
    auth: 'user',
    schema: {
      summary: 'One club: its name, description and member count',
      tags: TAGS,
      params: ID_PARAMS_SCHEMA,
      response: {
        200: { type: 'object', required: ['club'], properties: { club: CLUB_SCHEMA } },
        ...errorResponses(400, 401, 404),
      },
    },
    handler: async (request) => {
      const { id } = request.params as { id: number };
      const club = await store.clubs.find(id);
      if (club === undefined) throw notFound(`club ${id} not found`);
      return { club: clubRecord(club, prefix) };
    },
  });

  v1Route(app, context, {
    method: 'GET',
    url: '/clubs/:id/routes.json',
    auth: 'user',
    schema: {
      summary: 'The routes shared with a club, most recently shared first (the public ones for non-members)',
      tags: TAGS,
      params: ID_PARAMS_SCHEMA,
      querystring: PAGINATION_QUERY_SCHEMA,
      response: {
        200: listResponseSchema('routes', ROUTE_SCHEMA),
        ...errorResponses(400, 401, 404),
      },
    },
    handler: async (request, reply: FastifyReply) => {
      const { user } = callerOf(request);
      const { id } = request.params as { id: number };
      const query = request.query as PaginationQuery;
      const club = await store.clubs.find(id);
      if (club === undefined) throw notFound(`club ${id} not found`);
      const scope = (await store.clubs.seesAsMember(id, user.id)) ? 'members' : 'public';
      const { ids, total } = await store.clubs.listRouteIds(id, pageOf(query), scope);
      const records = await store.assets.recordsByIds('route', ids, routeUrl);
      const meta = JSON.stringify({
        pagination: paginationMeta(query, total, `${prefix}/clubs/${id}/routes.json`),
      });
      // The records as the data-access layer keeps them rendered (asset-endpoints.ts says why).
      return reply.type(JSON_CONTENT_TYPE).send(`{"routes":[${records.join(',')}],"meta":${meta}}`);
    },
  });

  v1Route(app, context, {
    method: 'POST',
    url: '/clubs/:id/routes.json',
    auth: 'user',
    schema: {
      summary: "Share one of the caller's routes with a club they belong to",
      tags: TAGS,
      params: ID_PARAMS_SCHEMA,
      body: SHARE_BODY_SCHEMA,
      response: {
        200: { description: 'shared already', ...SHARED_ROUTE_SCHEMA },
        201: { description: 'shared now', ...SHARED_ROUTE_SCHEMA },
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply: FastifyReply) => {
      const { user } = callerOf(request);
      const { id } = request.params as { id: number };
      const { route_id: routeId } = request.body as { route_id: number };
      const sharedNow = await shareRouteWithClub(store, id, routeId, user.id);
      const [record] = await store.assets.recordsByIds('route', [routeId], routeUrl);
      // deleted by its owner between the two
      if (record === undefined) throw notFound(`route ${routeId} not found`);
      return reply
        .code(sharedNow ? 201 : 200)
        .type(JSON_CONTENT_TYPE)
        .send(`{"route":${record}}`);
    },
  });

  v1Route(app, context, {
    method: 'DELETE',
    url: '/clubs/:id/routes/:routeId.json',
    auth: 'user',
    schema: {
      summary: 'Take a route out of a club (the member who shared it, or an administrator of the club)',
      tags: TAGS,
      params: CLUB_ROUTE_PARAMS_SCHEMA,
      response: {
        204: NO_CONTENT_SCHEMA,
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply: FastifyReply) => {
      const { user } = callerOf(request);
      const { id, routeId } = request.params as { id: number; routeId: number };
      await removeRouteFromClub(store, id, routeId, user.id);
      return reply.code(204).send();
    },
  });
  return Promise.resolve();
}

/**
 * Legacy clubs (docs/integrators/api.md, legacy endpoints; docs/contributors/decisions.md §5: "A club is an organization; its
 * routes are those its members share with it"). Who sees what:
 *
 * - `GET /clubs/{id}.json` (name, description, member count) and `GET /users/{id}/clubs.json` are open
 *   to every API client, with or without a user: a club is an organization account, whose public
 *   profile `/users/{id}.json` already shows to anyone, and the specification lists "clubs a user
 *   belongs to" for any user id. The membership list answers every club (a person belongs to few), by
 *   name, in the version's list shape; it takes no limit or offset.
 * - `GET /clubs/{id}/routes.json`: members (and the club's own account) see every route the club's
 *   members share with it, whatever its visibility; anyone else, signed in or not, sees only the public
 *   ones. docs/contributors/decisions.md §5 says so of every legacy list ("others see only public items"), and that rule,
 *   written for these lists, is taken over the general 403 of §1 ("a club the user is not in"): a
 *   non-member is not refused, they are shown less. Most recently shared first; `offset`/`limit` as the
 *   other lists; version 2's `results_count` counts every route the caller may see, not the page.
 * - An unknown club, or the id of a person, is 404.
 * - Sharing (issue 20, "Clubs"; the specification lists only the reading endpoints, so these follow
 *   its path for the club's routes): `POST /clubs/{id}/routes.json` with `route_id` shares one of the
 *   caller's own routes with a club they belong to: 201 `{"success": 1, "route": {...}}`, 200 when it
 *   was shared already. `DELETE /clubs/{id}/routes/{route_id}.json` takes it out again: the member
 *   who shared it or an administrator of the club, 200 `{"success": 1}`. Refusals are 403 in words
 *   (club-sharing.ts, the same as v1's and the dashboard's); an unknown club or route, or one not
 *   shared, 404.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../context.js';
import { removeRouteFromClub, shareRouteWithClub } from '../club-sharing.js';
import { notFound } from '../errors.js';
import { idParameter, wholeNumberOr400, ID_RANGE } from '../whole-numbers.js';
import { legacyPage, pathId } from './inputs.js';
import { clubRecord } from '../api/v1/records.js';
import { legacyAssetUrl, legacyUrlPrefix, parsedRecord } from './records.js';
import { legacyRoute } from './route.js';
import { viewerId } from './users.js';
import { legacyList } from './version.js';

export function legacyClubs(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  const { store } = context;
  const prefix = legacyUrlPrefix(context.options.baseUrl);
  const routeUrl = legacyAssetUrl(prefix, 'route');

  legacyRoute(app, context, {
    method: 'GET',
    path: '/users/:id/clubs',
    auth: 'optional',
    summary: "A user's clubs",
    handler: async (request, call) => {
      const userId = pathId(request, 'user');
      const user = await store.users.findById(userId);
      if (user === undefined) throw notFound(`user ${userId} not found`);
      const clubs = await store.clubs.ofMember(userId);
      return {
        body: legacyList(
          call.version,
          clubs.map((club) => clubRecord(club, prefix)),
        ),
      };
    },
  });

  legacyRoute(app, context, {
    method: 'GET',
    path: '/clubs/:id',
    auth: 'optional',
    summary: 'A club',
    handler: async (request) => {
      const clubId = pathId(request, 'club');
      const club = await store.clubs.find(clubId);
      if (club === undefined) throw notFound(`club ${clubId} not found`);
      return { body: { club: clubRecord(club, prefix) } };
    },
  });

  legacyRoute(app, context, {
    method: 'GET',
    path: '/clubs/:id/routes',
    auth: 'optional',
    summary: "A club's shared routes",
    handler: async (request, call) => {
      const clubId = pathId(request, 'club');
      const page = legacyPage(call.params);
      const club = await store.clubs.find(clubId);
      if (club === undefined) throw notFound(`club ${clubId} not found`);
      const viewer = viewerId(call);
      const member = viewer !== null && (await store.clubs.seesAsMember(clubId, viewer));
      const { ids, total } = await store.clubs.listRouteIds(clubId, page, member ? 'members' : 'public');
      const records = await store.assets.recordsByIds('route', ids, routeUrl);
      return { body: legacyList(call.version, records.map(parsedRecord), total) };
    },
  });
  legacyRoute(app, context, {
    method: 'POST',
    path: '/clubs/:id/routes',
    auth: 'user',
    summary: 'Share a route with a club',
    handler: async (request, call) => {
      const clubId = pathId(request, 'club');
      const routeId = wholeNumberOr400(call.params.raw('route_id'), 'route_id', ID_RANGE);
      const sharedNow = await shareRouteWithClub(store, clubId, routeId, call.user!.user.id);
      const [record] = await store.assets.recordsByIds('route', [routeId], routeUrl);
      return {
        status: sharedNow ? 201 : 200,
        body: { success: 1, route: record === undefined ? null : parsedRecord(record) },
      };
    },
  });

  legacyRoute(app, context, {
    method: 'DELETE',
    path: '/clubs/:id/routes/:routeId',
    auth: 'user',
    summary: 'Remove a shared route from a club',
    handler: async (request, call) => {
      const clubId = pathId(request, 'club');
      const routeId = idParameter(request.params, 'routeId', 'the route id in the path');
      await removeRouteFromClub(store, clubId, routeId, call.user!.user.id);
      return { body: { success: 1 } };
    },
  });
  return Promise.resolve();
}

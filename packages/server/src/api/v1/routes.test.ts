import type { Track } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  readCorpus,
  readFixture,
} from '../../../../../test/support/corpus.js';
import { onlyTrack, tracksOf } from '../../test-support/assets.js';
import {
  BASE_URL,
  createPerson,
  credentialsFor,
  START_TIME,
  testServer,
  type Person,
  type TestServer,
} from '../../test-support/server.js';

let server: TestServer;
let rider: Person;
let auth: { authorization: string };

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
  auth = { authorization: (await credentialsFor(server, rider)).basic };
});
afterEach(async () => {
  await server.close();
});

/** "Planned loop", the GPX rte of our tracks-and-routes.gpx fixture: a route (docs/contributors/decisions.md §5). */
function plannedLoop(): Track {
  const track = tracksOf(readFixture('gpx', 'tracks-and-routes.gpx'), 'x.gpx').find(
    (t) => t.kind === 'route' && t.name === 'Planned loop',
  );
  if (track === undefined) throw new Error('the fixture lost its route');
  return track;
}

/** `count` routes of `owner`, one second apart, named "Route 1" … (oldest first); their ids. */
async function addRoutes(owner: Person, count: number, visibility: 'public' | 'private' = 'private') {
  const ids: number[] = [];
  for (let i = 1; i <= count; i++) {
    const { row } = await server.store.assets.createFromTrack(owner.id, plannedLoop(), {
      name: `Route ${i}`,
      visibility,
    });
    ids.push(row.id);
    server.clock.advance(1000);
  }
  return ids;
}

interface RouteList {
  routes: Array<Record<string, unknown> & { id: number }>;
  meta: {
    pagination: { record_count: number; page_count: number; page_size: number; next_page_url: string | null };
  };
}

const list = async (query = '') => {
  const response = await server.app.inject({ url: `/api/v1/routes.json${query}`, headers: auth });
  return { status: response.statusCode, body: response.json<RouteList>() };
};

describe('GET /api/v1/routes.json', () => {
  it('answers an empty library with an empty list and the pagination metadata', async () => {
    const response = await server.app.inject({ url: '/api/v1/routes.json', headers: auth });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['x-service-datetime']).toBe('2026-03-01T12:00:00Z');
    expect(response.json()).toEqual({
      routes: [],
      meta: { pagination: { record_count: 0, page_count: 0, page_size: 20, next_page_url: null } },
    });
  });

  it('pages 20 at a time by default, newest change first, with absolute next_page_url', async () => {
    const ids = await addRoutes(rider, 45);
    const newestFirst = [...ids].reverse();

    const first = await list();
    expect(first.status).toBe(200);
    expect(first.body.routes.map((route) => route.id)).toEqual(newestFirst.slice(0, 20));
    expect(first.body.meta.pagination).toEqual({
      record_count: 45,
      page_count: 3,
      page_size: 20,
      next_page_url: `${BASE_URL}/api/v1/routes.json?page=2&page_size=20`,
    });
    const second = await list('?page=2');
    expect(second.body.routes.map((route) => route.id)).toEqual(newestFirst.slice(20, 40));
    const last = await list('?page=3');
    expect(last.body.routes.map((route) => route.id)).toEqual(newestFirst.slice(40));
    expect(last.body.meta.pagination.next_page_url).toBeNull();

    // A page past the end is an empty list, not an error.
    const beyond = await list('?page=4');
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual({
      routes: [],
      meta: { pagination: { record_count: 45, page_count: 3, page_size: 20, next_page_url: null } },
    });
  });

  it('keeps page_size in next_page_url, takes 20 and 200, and ignores parameters it does not know', async () => {
    await addRoutes(rider, 45);
    const sized = await list('?page_size=25&apikey=legacy&version=2');
    expect(sized.body.routes).toHaveLength(25);
    expect(sized.body.meta.pagination).toEqual({
      record_count: 45,
      page_count: 2,
      page_size: 25,
      next_page_url: `${BASE_URL}/api/v1/routes.json?page=2&page_size=25`,
    });
    expect((await list('?page_size=200')).body.meta.pagination).toMatchObject({
      page_count: 1,
      next_page_url: null,
    });
    expect((await list('?page_size=20&page=3')).body.routes).toHaveLength(5);
  });

  it.each([
    ['?page_size=19', 'page_size must be a whole number from 20 to 200'],
    ['?page_size=201', 'page_size must be a whole number from 20 to 200'],
    ['?page_size=big', 'page_size must be a whole number from 20 to 200'],
    ['?page_size=Infinity', 'page_size must be a whole number from 20 to 200'],
    ['?page_size=1e309', 'page_size must be a whole number from 20 to 200'],
    ['?page_size=20&page_size=40', 'page_size must be a whole number from 20 to 200'],
    ['?page=0', 'page must be a whole number from 1 to 1000000000'],
    ['?page=-1', 'page must be a whole number from 1 to 1000000000'],
    ['?page=1.5', 'page must be a whole number from 1 to 1000000000'],
    ['?page=first', 'page must be a whole number from 1 to 1000000000'],
    ['?page=Infinity', 'page must be a whole number from 1 to 1000000000'],
    ['?page=1000000001', 'page must be a whole number from 1 to 1000000000'],
  ])('answers %s with 400 naming the parameter', async (query, problem) => {
    const { status, body } = await list(query);
    expect(status).toBe(400);
    expect(body).toEqual({ errors: [problem], error_codes: ['SERVER_INVALID_FIELD'] });
  });

  it('orders by updated_at, then id, both descending: a route changed later moves to the top', async () => {
    // Three routes created in the same millisecond: id decides.
    const same = [];
    for (let i = 0; i < 3; i++)
      same.push((await server.store.assets.createFromTrack(rider.id, plannedLoop())).row.id);
    expect((await list()).body.routes.map((route) => route.id)).toEqual([...same].reverse());
    server.clock.advance(5000);
    await server.store.assets.update('route', same[0]!, rider.id, { name: 'Renamed' });
    const after = await list();
    expect(after.body.routes.map((route) => route.id)).toEqual([same[0], same[2], same[1]]);
    expect(after.body.routes[0]).toMatchObject({ name: 'Renamed', updated_at: '2026-03-01T12:00:05Z' });
  });

  it("lists the caller's library only, never another user's routes, public or not", async () => {
    const other = await createPerson(server, 'Bob Other');
    await addRoutes(other, 3, 'public');
    const mine = await addRoutes(rider, 2);
    const { body } = await list();
    expect(body.routes.map((route) => route.id)).toEqual([...mine].reverse());
    expect(body.meta.pagination.record_count).toBe(2);
  });

  it('reflects every change at once (the page cache is checked against the change log)', async () => {
    const [a, b] = await addRoutes(rider, 2);
    expect((await list()).body.routes.map((route) => route.name)).toEqual(['Route 2', 'Route 1']);
    // Same millisecond as the last read: only the change log can tell the page is stale.
    await server.store.assets.update('route', b!, rider.id, { name: 'Route 2, renamed' });
    expect((await list()).body.routes.map((route) => route.name)).toEqual(['Route 2, renamed', 'Route 1']);
    await server.app.inject({ method: 'DELETE', url: `/api/v1/routes/${a!}.json`, headers: auth });
    expect((await list()).body).toMatchObject({
      routes: [{ id: b }],
      meta: { pagination: { record_count: 1 } },
    });
    await server.store.assets.createFromTrack(rider.id, plannedLoop(), { name: 'Route 3' });
    expect((await list()).body.routes.map((route) => route.name)).toEqual(['Route 3', 'Route 2, renamed']);
  });

  it('answers the path without .json the same way, and 401 without credentials', async () => {
    await addRoutes(rider, 1);
    const bare = await server.app.inject({ url: '/api/v1/routes', headers: auth });
    expect(bare.statusCode).toBe(200);
    expect(bare.json<RouteList>().routes).toHaveLength(1);
    const anonymous = await server.app.inject({ url: '/api/v1/routes.json' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json<{ errors: string[] }>().errors).toHaveLength(1);
    // Credentials are checked before the query: a bad query without them is still a 401.
    expect((await server.app.inject({ url: '/api/v1/routes.json?page=0' })).statusCode).toBe(401);
  });
});

describe('GET /api/v1/routes/{id}.json', () => {
  it('answers the record with its track_points, in the order and units of the specification', async () => {
    const track = plannedLoop();
    const { row } = await server.store.assets.createFromTrack(rider.id, track, { description: 'Lakeside' });
    const response = await server.app.inject({ url: `/api/v1/routes/${row.id}.json`, headers: auth });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const { summary } = track;
    expect(response.json()).toEqual({
      route: {
        id: row.id,
        url: `${BASE_URL}/api/v1/routes/${row.id}.json`,
        name: 'Planned loop',
        description: 'Lakeside',
        user_id: rider.id,
        visibility: 'private',
        created_at: '2026-03-01T12:00:00Z',
        updated_at: '2026-03-01T12:00:00Z',
        distance: summary.distanceMeters,
        elevation_gain: summary.elevationGainMeters,
        elevation_loss: summary.elevationLossMeters,
        first_lat: 45,
        first_lng: 6,
        last_lat: 45.02,
        last_lng: 6.02,
        sw_lat: 45,
        sw_lng: 6,
        ne_lat: 45.02,
        ne_lng: 6.02,
        track_type: summary.trackType,
        terrain: summary.terrain,
        warnings: [],
        track_points: [
          { x: 6, y: 45, e: 300, t: 1717318800 },
          { x: 6.01, y: 45.01 },
          { x: 6.02, y: 45.02 },
        ],
      },
    });
    expect(response.body).toContain('"track_points":[{"x":6,"y":45,"e":300,"t":1717318800},');
  });

  it("shows another user's public route; their private and friends-only ones are 403; unknown ids 404", async () => {
    const other = await createPerson(server, 'Bob Other');
    const create = async (visibility: 'public' | 'private' | 'friends_only') =>
      (await server.store.assets.createFromTrack(other.id, plannedLoop(), { visibility })).row.id;
    const shown = await server.app.inject({
      url: `/api/v1/routes/${await create('public')}.json`,
      headers: auth,
    });
    expect(shown.statusCode).toBe(200);
    expect(shown.json<{ route: { user_id: number } }>().route.user_id).toBe(other.id);
    for (const visibility of ['private', 'friends_only'] as const) {
      const id = await create(visibility);
      const hidden = await server.app.inject({ url: `/api/v1/routes/${id}.json`, headers: auth });
      expect(hidden.statusCode, visibility).toBe(403);
      expect(hidden.json()).toEqual({
        errors: [`route ${id} belongs to another user and is not public`],
        error_codes: ['SERVER_FORBIDDEN'],
      });
    }
    const unknown = await server.app.inject({ url: '/api/v1/routes/999.json', headers: auth });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ errors: ['route 999 not found'], error_codes: ['SERVER_NOT_FOUND'] });
  });

  it('answers 400 for an id that is not a positive integer and 401 without credentials', async () => {
    const bad = await server.app.inject({ url: '/api/v1/routes/abc.json', headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      errors: ['id must be a whole number from 1 to 9007199254740991'],
      error_codes: ['SERVER_INVALID_FIELD'],
    });
    expect((await server.app.inject({ url: '/api/v1/routes/0.json', headers: auth })).statusCode).toBe(400);
    // Decimal digits only: Ajv alone would read 0x1 and +1 as route 1 (api/v1/route.ts).
    for (const spelled of ['0x1', '+1', '1e0', '0b1']) {
      const odd = await server.app.inject({ url: `/api/v1/routes/${spelled}.json`, headers: auth });
      expect(odd.json(), spelled).toEqual({
        errors: ['id must be a whole number from 1 to 9007199254740991'],
        error_codes: ['SERVER_INVALID_FIELD'],
      });
    }
    expect((await server.app.inject({ url: '/api/v1/routes/1.json' })).statusCode).toBe(401);
    const [id] = await addRoutes(rider, 1);
    expect((await server.app.inject({ url: `/api/v1/routes/${id!}`, headers: auth })).statusCode).toBe(200);
  });
});

describe('DELETE /api/v1/routes/{id}.json', () => {
  it('answers 204 with an empty body; the route, its points and its place in the list are gone', async () => {
    const [id] = await addRoutes(rider, 1);
    const response = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/routes/${id!}.json`,
      headers: auth,
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await server.app.inject({ url: `/api/v1/routes/${id!}.json`, headers: auth })).statusCode).toBe(
      404,
    );
    expect((await list()).body.routes).toEqual([]);
    const again = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/routes/${id!}.json`,
      headers: auth,
    });
    expect(again.statusCode).toBe(404);
  });

  it("refuses another user's route with 403, even a public one, and answers 401 without credentials", async () => {
    const other = await createPerson(server, 'Bob Other');
    const [theirs] = await addRoutes(other, 1, 'public');
    const response = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/routes/${theirs!}.json`,
      headers: auth,
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      errors: [`only its owner can delete route ${theirs!}`],
      error_codes: ['SERVER_FORBIDDEN'],
    });
    expect(
      (await server.app.inject({ method: 'DELETE', url: `/api/v1/routes/${theirs!}.json` })).statusCode,
    ).toBe(401);
    expect(await server.store.assets.find('route', theirs!)).toBeDefined();
  });
});

describe.skipIf(!corpusAvailable)(
  `routes from the corpus (${corpusAvailable ? 'real files' : CORPUS_SKIP_REASON})`,
  () => {
    it('a GPX route of 9,722 points without elevation or time: every field of the record', async () => {
      const bytes = readCorpus('goldencheetah__A_ride_mapped_on_11_22_2011.gpx');
      const track = onlyTrack(bytes, 'A_ride_mapped_on_11_22_2011.gpx');
      expect(track.kind).toBe('route');
      server.clock.advance(90_000);
      const { type, row } = await server.store.assets.createFromTrack(rider.id, track, {
        visibility: 'public',
      });
      expect(type).toBe('route');
      const response = await server.app.inject({ url: `/api/v1/routes/${row.id}.json`, headers: auth });
      const { route } = response.json<{ route: Record<string, unknown> & { track_points: unknown[] } }>();
      const { track_points: points, ...record } = route;
      expect(record).toEqual({
        id: row.id,
        url: `${BASE_URL}/api/v1/routes/${row.id}.json`,
        name: 'Untitled route',
        description: null,
        user_id: rider.id,
        visibility: 'public',
        created_at: '2026-03-01T12:01:30Z',
        updated_at: '2026-03-01T12:01:30Z',
        distance: track.summary.distanceMeters,
        elevation_gain: null,
        elevation_loss: null,
        first_lat: 39.962613578112,
        first_lng: -105.15878458605,
        last_lat: 39.951812261341,
        last_lng: -105.1470691606,
        sw_lat: 39.937802353033,
        sw_lng: -105.35250658779,
        ne_lat: 40.110579446818,
        ne_lng: -105.14699058141,
        track_type: 'loop',
        terrain: 'flat',
        warnings: [],
      });
      expect(record['distance']).toBeGreaterThan(96_000);
      expect(points).toHaveLength(9722);
      expect(points).toEqual(track.points);
      // The list item is the same record, without the points.
      expect((await list()).body.routes).toEqual([record]);
      expect(START_TIME).toBe(Date.parse('2026-03-01T12:00:00Z'));
    });

    it('a TCX course is a route, with the elevation its points give', async () => {
      const track = onlyTrack(readCorpus('togeojson__tcx-courses.tcx'), 'tcx-courses.tcx');
      const { type, row } = await server.store.assets.createFromTrack(rider.id, track);
      expect(type).toBe('route');
      const response = await server.app.inject({ url: `/api/v1/routes/${row.id}.json`, headers: auth });
      expect(response.json()).toMatchObject({
        route: {
          name: 'Test TCX Route',
          elevation_gain: track.summary.elevationGainMeters,
          elevation_loss: track.summary.elevationLossMeters,
          track_type: 'point_to_point',
          terrain: 'climbing',
        },
      });
    });
  },
);

describe('the OpenAPI document', () => {
  it('describes the v1 resources with their parameters and answers', async () => {
    const response = await server.app.inject({ url: '/api/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json<{
      paths: Record<
        string,
        Record<string, { parameters?: { name: string }[]; responses: Record<string, unknown> }>
      >;
    }>();
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'GET /api/v1/routes.json',
        'GET /api/v1/routes/{id}.json',
        'DELETE /api/v1/routes/{id}.json',
        'GET /api/v1/trips.json',
        'GET /api/v1/trips/{id}.json',
        'DELETE /api/v1/trips/{id}.json',
        'GET /api/v1/events.json',
        'POST /api/v1/events.json',
        'GET /api/v1/events/{id}.json',
        'PATCH /api/v1/events/{id}.json',
        'DELETE /api/v1/events/{id}.json',
        'GET /api/v1/sync.json',
        'GET /api/v1/clubs/{id}.json',
        'GET /api/v1/clubs/{id}/routes.json',
        'POST /api/v1/clubs/{id}/routes.json',
        'DELETE /api/v1/clubs/{id}/routes/{routeId}.json',
      ]),
    );
    const index = document.paths['/api/v1/routes.json']!['get']!;
    expect(index.parameters?.map((parameter) => parameter.name)).toEqual(['page', 'page_size']);
    expect(Object.keys(index.responses)).toEqual(['200', '400', '401']);
    expect(Object.keys(document.paths['/api/v1/trips/{id}.json']!['get']!.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
    ]);
    expect(Object.keys(document.paths['/api/v1/events.json']!['post']!.responses)).toContain('422');
    expect(Object.keys(document.paths['/api/v1/clubs/{id}/routes.json']!['post']!.responses)).toEqual([
      '200',
      '201',
      '400',
      '401',
      '403',
      '404',
    ]);
  });
});

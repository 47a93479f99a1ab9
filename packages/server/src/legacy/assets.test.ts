/**
 * Legacy routes and trips (docs/contributors/decisions.md §5): one record with its track points, and a user's lists with
 * offset/limit in the version 1 and version 2 shapes; the owner sees everything, others the public
 * items only. Tracks are real files parsed by @rideport/ridefile and stored through the data layer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  readCorpus,
  readFixture,
} from '../../../../test/support/corpus.js';
import type { AssetMetadata, CreatedAsset } from '../store/index.js';
import { onlyTrack, storeFile, tracksOf } from '../test-support/assets.js';
import {
  errorOf,
  jsonOf,
  legacy,
  legacySetup,
  withoutPoints,
  type LegacySetup,
  type Query,
} from '../test-support/legacy.js';
import { BASE_URL, testServer, type TestServer } from '../test-support/server.js';

let server: TestServer;
let setup: LegacySetup;

type Record = { id: number; url: string; user_id: number; visibility: string; name: string } & {
  [key: string]: unknown;
};

let privateTrip: CreatedAsset;
let publicTrip: CreatedAsset;
let friendsTrip: CreatedAsset;
let publicRoute: CreatedAsset;
/** linestrings.kml: two routes */
let privateRoutes: CreatedAsset[];

beforeAll(async () => {
  server = await testServer();
  setup = await legacySetup(server);
  const alice = setup.alice.id;
  /** The one asset a single-track file makes. */
  const only = async (file: string, format: 'gpx' | 'tcx' | 'fit', metadata: AssetMetadata = {}) => {
    const created = await storeFile(server, alice, readFixture(format, file), file, metadata);
    expect(created).toHaveLength(1);
    server.clock.advance(1000);
    return created[0]!;
  };
  privateTrip = await only('sample-ride.gpx', 'gpx');
  publicTrip = await only('activity.tcx', 'tcx', { visibility: 'public', name: 'Commute' });
  friendsTrip = await only('sample-ride.gpx', 'gpx', { visibility: 'friends_only' });
  publicRoute = await only('course.fit', 'fit', { visibility: 'public' });
  privateRoutes = await storeFile(server, alice, readFixture('kml', 'linestrings.kml'), 'linestrings.kml');
  expect(privateRoutes).toHaveLength(2);
});
afterAll(async () => {
  await server.close();
});

const as = (who: 'alice' | 'bob' | null, extra: Query = {}): Query => ({
  apikey: setup.apiKey,
  ...(who === null ? {} : { auth_token: setup[who].authToken }),
  ...extra,
});

describe('GET /trips/{id}.json and /routes/{id}.json', () => {
  it('shows the owner a private trip: the v1 record fields with the legacy url, and every track point', async () => {
    const track = onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
    const response = await legacy(server, { url: `/trips/${privateTrip.row.id}.json`, query: as('alice') });
    expect(response.status).toBe(200);
    const { trip } = jsonOf<{ trip: Record & { track_points: unknown[] } }>(response);
    const { track_points: points, ...record } = trip;
    expect(record).toMatchObject({
      id: privateTrip.row.id,
      url: `${BASE_URL}/trips/${privateTrip.row.id}.json`,
      name: 'Evening lap of the Allmend',
      description: null,
      user_id: setup.alice.id,
      visibility: 'private',
      distance: track.summary.distanceMeters,
      departed_at: new Date(track.startTime! * 1000).toISOString().replace('.000Z', 'Z'),
      time_zone: 'Europe/Zurich',
    });
    // Exactly the v1 record's fields, but for its url.
    const v1 = await server.app.inject({
      url: `/api/v1/trips/${privateTrip.row.id}.json`,
      headers: { 'x-service-api-key': setup.apiKey, 'x-service-auth-token': setup.alice.authToken },
    });
    const { track_points: v1Points, ...v1Record } = v1.json<{ trip: Record & { track_points: unknown[] } }>()
      .trip;
    expect({ ...record, url: null }).toEqual({ ...v1Record, url: null });
    expect(points).toEqual(track.points);
    expect(v1Points).toEqual(points);
  });

  it('shows a public trip and route to another user and to a caller without a user, in JSON and JSONP', async () => {
    for (const who of ['bob', null] as const) {
      const trip = await legacy(server, { url: `/trips/${publicTrip.row.id}.js`, query: as(who) });
      expect(trip.status).toBe(200);
      expect(trip.callback).toBe('callback');
      expect(jsonOf<{ trip: Record }>(trip).trip).toMatchObject({ id: publicTrip.row.id, name: 'Commute' });
      const route = await legacy(server, { url: `/routes/${publicRoute.row.id}.json`, query: as(who) });
      expect(route.status).toBe(200);
      const { route: record } = jsonOf<{ route: Record & { track_points: unknown[] } }>(route);
      expect(record).toMatchObject({
        id: publicRoute.row.id,
        url: `${BASE_URL}/routes/${publicRoute.row.id}.json`,
        name: 'Sunday Loop',
        visibility: 'public',
      });
      expect(record.track_points).toEqual(onlyTrack(readFixture('fit', 'course.fit'), 'course.fit').points);
      // Routes have no trip fields.
      expect(record).not.toHaveProperty('departed_at');
    }
  });

  it('answers 403 to another user for a private or friends-only asset, 401 to a caller without a user', async () => {
    for (const [type, asset] of [
      ['trips', privateTrip],
      ['trips', friendsTrip],
      ['routes', privateRoutes[0]!],
    ] as const) {
      const forbidden = await legacy(server, { url: `/${type}/${asset.row.id}.json`, query: as('bob') });
      expect(forbidden.status).toBe(403);
      expect(errorOf(forbidden)).toMatch(/belongs to another user and is not public/);
      const anonymous = await legacy(server, { url: `/${type}/${asset.row.id}.js`, query: as(null) });
      expect(anonymous.status).toBe(401);
      expect(anonymous.callback).toBe('callback');
      expect(errorOf(anonymous)).toMatch(/is not public: send the auth_token/);
    }
  });

  it('answers 404 for an unknown id, and for a route id asked as a trip', async () => {
    const unknown = await legacy(server, { url: '/trips/9999.json', query: as('alice') });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'trip 9999 not found' });
    const unknownRoute = await legacy(server, { url: '/routes/9999.json', query: as('alice') });
    expect(unknownRoute.json).toEqual({ error: 'route 9999 not found' });
    const bad = await legacy(server, { url: '/routes/x1.json', query: as('alice') });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toBe('the route id in the path must be a whole number from 1 to 9007199254740991');
  });
});

describe('GET /users/{id}/trips.json and /users/{id}/routes.json', () => {
  it('lists every trip to the owner, newest change first; version 2 counts them all', async () => {
    const response = await legacy(server, { url: `/users/${setup.alice.id}/trips.json`, query: as('alice') });
    expect(response.status).toBe(200);
    const { results, results_count } = jsonOf<{ results: Record[]; results_count: number }>(response);
    expect(results.map((trip) => trip.id)).toEqual([
      friendsTrip.row.id,
      publicTrip.row.id,
      privateTrip.row.id,
    ]);
    expect(results_count).toBe(3);
    // List items are the single record without its points.
    const single = await legacy(server, { url: `/trips/${privateTrip.row.id}.json`, query: as('alice') });
    expect(results[2]).toEqual(withoutPoints(jsonOf<{ trip: Record }>(single).trip));
  });

  it('lists only public items to anyone else; version 1 is a bare array', async () => {
    for (const who of ['bob', null] as const) {
      const v2 = await legacy(server, { url: `/users/${setup.alice.id}/trips.json`, query: as(who) });
      expect(jsonOf<{ results: Record[]; results_count: number }>(v2)).toEqual({
        results: [expect.objectContaining({ id: publicTrip.row.id })],
        results_count: 1,
      });
      const v1 = await legacy(server, {
        url: `/users/${setup.alice.id}/routes.js`,
        query: as(who, { version: 1, callback: 'routes' }),
      });
      expect(v1.status).toBe(200);
      expect(v1.callback).toBe('routes');
      expect(jsonOf<Record[]>(v1).map((route) => route.id)).toEqual([publicRoute.row.id]);
    }
    const own = await legacy(server, {
      url: `/users/${setup.alice.id}/routes.json`,
      query: as('alice', { version: 1 }),
    });
    expect(jsonOf<Record[]>(own).map((route) => route.id)).toEqual([
      privateRoutes[1]!.row.id,
      privateRoutes[0]!.row.id,
      publicRoute.row.id,
    ]);
  });

  it('pages with offset and limit; results_count is the total, not the page', async () => {
    const page = async (extra: Query) =>
      jsonOf<{ results: Record[]; results_count: number }>(
        await legacy(server, { url: `/users/${setup.alice.id}/trips.json`, query: as('alice', extra) }),
      );
    expect(await page({ limit: 2 })).toEqual({
      results: [
        expect.objectContaining({ id: friendsTrip.row.id }),
        expect.objectContaining({ id: publicTrip.row.id }),
      ],
      results_count: 3,
    });
    expect(await page({ limit: 2, offset: 2 })).toEqual({
      results: [expect.objectContaining({ id: privateTrip.row.id })],
      results_count: 3,
    });
    expect(await page({ offset: 3 })).toEqual({ results: [], results_count: 3 });
    expect(await page({ offset: 1000, limit: 200 })).toEqual({ results: [], results_count: 3 });
    expect((await page({ limit: 1, offset: 1 })).results.map((trip) => trip.id)).toEqual([publicTrip.row.id]);
  });

  it('answers 400 for a limit outside 1..200 or an offset that is not a whole number', async () => {
    const cases: [Query, RegExp][] = [
      [{ limit: 0 }, /^limit must be a whole number from 1 to 200/],
      [{ limit: 201 }, /^limit must be/],
      [{ limit: -1 }, /^limit must be/],
      [{ limit: 'ten' }, /^limit must be/],
      [{ limit: 2.5 }, /^limit must be/],
      [{ offset: -1 }, /^offset must be a whole number/],
      [{ offset: 'x' }, /^offset must be/],
      [{ limit: 0, offset: -1 }, /^limit must be .*; offset must be/],
    ];
    for (const [extra, message] of cases) {
      const response = await legacy(server, {
        url: `/users/${setup.alice.id}/routes.json`,
        query: as('bob', extra),
      });
      expect(response.status, JSON.stringify(extra)).toBe(400);
      expect(errorOf(response)).toMatch(message);
    }
    const largest = await legacy(server, {
      url: `/users/${setup.alice.id}/routes.json`,
      query: as('bob', { limit: 200 }),
    });
    expect(largest.status).toBe(200);
  });

  it('answers 404 for an unknown user, an empty list for a user with nothing, 401 for a bad token', async () => {
    const unknown = await legacy(server, { url: '/users/999/trips.json', query: as('alice') });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'user 999 not found' });
    const empty = await legacy(server, { url: `/users/${setup.bob.id}/routes.json`, query: as('alice') });
    expect(empty.json).toEqual({ results: [], results_count: 0 });
    const badToken = await legacy(server, {
      url: `/users/${setup.alice.id}/trips.json`,
      query: { apikey: setup.apiKey, auth_token: 'nope' },
    });
    expect(badToken.status).toBe(401);
  });
});

describe.skipIf(!corpusAvailable)('legacy records of corpus files', () => {
  it('a Garmin Edge 500 ride: 10,686 points, identical to v1 and to the parser', async () => {
    const bytes = readCorpus('fitparse__garmin-edge-500-activity.fit');
    const [track] = tracksOf(bytes, 'fitparse__garmin-edge-500-activity.fit');
    const [created] = await storeFile(server, setup.bob.id, bytes, 'fitparse__garmin-edge-500-activity.fit', {
      visibility: 'public',
    });
    const response = await legacy(server, { url: `/trips/${created!.row.id}.json`, query: as('alice') });
    expect(response.status).toBe(200);
    const { trip } = jsonOf<{ trip: Record & { track_points: unknown[] } }>(response);
    expect(trip.track_points).toHaveLength(10_686);
    expect(trip.track_points).toEqual(track!.points);
    expect(trip.user_id).toBe(setup.bob.id);
    expect(trip['device']).toMatch(/Edge 500/);
    const list = await legacy(server, {
      url: `/users/${setup.bob.id}/trips.json`,
      query: as(null, { version: 1 }),
    });
    expect(jsonOf<Record[]>(list)).toEqual([withoutPoints(trip)]);
  });
});
if (!corpusAvailable) console.warn(`legacy/assets.test.ts: ${CORPUS_SKIP_REASON}`);

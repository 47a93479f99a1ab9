import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  readCorpus,
  readFixture,
} from '../../../../../test/support/corpus.js';
import { onlyTrack, storeFile } from '../../test-support/assets.js';
import {
  BASE_URL,
  createPerson,
  credentialsFor,
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

type Trip = Record<string, unknown> & { id: number };

const show = async (id: number) => {
  const response = await server.app.inject({ url: `/api/v1/trips/${id}.json`, headers: auth });
  return {
    status: response.statusCode,
    body: response.body,
    json: response.json<{ trip: Trip & { track_points: unknown[] } }>(),
  };
};

const index = async (query = '') => {
  const response = await server.app.inject({ url: `/api/v1/trips.json${query}`, headers: auth });
  return response.json<{ trips: Trip[]; meta: { pagination: Record<string, unknown> } }>();
};

describe('trips from our own fixtures', () => {
  it('a GPX ride: the record, its points in order, and the index item without points', async () => {
    const bytes = readFixture('gpx', 'sample-ride.gpx');
    const track = onlyTrack(bytes, 'sample-ride.gpx');
    const [created] = await storeFile(server, rider.id, bytes, 'sample-ride.gpx');
    const { summary } = track;
    const { status, json, body } = await show(created!.row.id);
    expect(status).toBe(200);
    const { track_points: points, ...record } = json.trip;
    expect(record).toEqual({
      id: created!.row.id,
      url: `${BASE_URL}/api/v1/trips/${created!.row.id}.json`,
      name: track.name,
      description: null,
      user_id: rider.id,
      visibility: 'private',
      created_at: '2026-03-01T12:00:00Z',
      updated_at: '2026-03-01T12:00:00Z',
      distance: summary.distanceMeters,
      elevation_gain: summary.elevationGainMeters,
      elevation_loss: summary.elevationLossMeters,
      first_lat: summary.firstPosition!.lat,
      first_lng: summary.firstPosition!.lng,
      last_lat: summary.lastPosition!.lat,
      last_lng: summary.lastPosition!.lng,
      sw_lat: summary.bounds!.swLat,
      sw_lng: summary.bounds!.swLng,
      ne_lat: summary.bounds!.neLat,
      ne_lng: summary.bounds!.neLng,
      track_type: summary.trackType,
      terrain: summary.terrain,
      departed_at: new Date(track.startTime! * 1000).toISOString().replace('.000Z', 'Z'),
      time_zone: 'Europe/Zurich',
      // Strava's <type>cycling</type>, without a sub-sport.
      activity_type: 'cycling:generic',
      is_stationary: false,
      duration: summary.elapsedSeconds,
      moving_time: summary.movingSeconds,
      avg_speed: summary.speedMetersPerSecond!.avg * 3.6,
      max_speed: summary.speedMetersPerSecond!.max * 3.6,
      avg_cad: summary.cadenceRpm!.avg,
      min_cad: summary.cadenceRpm!.min,
      max_cad: summary.cadenceRpm!.max,
      avg_hr: summary.heartRateBpm!.avg,
      min_hr: summary.heartRateBpm!.min,
      max_hr: summary.heartRateBpm!.max,
      avg_watts: summary.powerWatts!.avg,
      min_watts: summary.powerWatts!.min,
      max_watts: summary.powerWatts!.max,
      calories: null,
      device: null,
      external_id: null,
      warnings: [],
    });
    expect(points).toEqual(track.points);
    // Unix seconds, keys in the specification's order.
    expect(body).toMatch(/"track_points":\[\{"x":[-\d.]+,"y":[-\d.]+,"e":[-\d.]+,"t":\d{10},/);
    const { trips, meta } = await index();
    expect(trips).toEqual([record]);
    expect(meta.pagination).toEqual({ record_count: 1, page_count: 1, page_size: 20, next_page_url: null });
  });

  it('a FIT ride without positions (a smart trainer) is stationary with null positions and time zone', async () => {
    const [created] = await storeFile(
      server,
      rider.id,
      readFixture('fit', 'smart-trainer.fit'),
      'smart-trainer.fit',
    );
    const { json } = await show(created!.row.id);
    expect(json.trip).toMatchObject({
      is_stationary: true,
      time_zone: null,
      first_lat: null,
      first_lng: null,
      last_lat: null,
      last_lng: null,
      sw_lat: null,
      sw_lng: null,
      ne_lat: null,
      ne_lng: null,
      track_type: 'unknown',
    });
  });

  it('pages and orders like every v1 list; rejects bad paging with 400', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 22; i++) {
      const [created] = await storeFile(server, rider.id, readFixture('gpx', 'sample-ride.gpx'), 'x.gpx', {
        name: `Ride ${i}`,
      });
      ids.push(created!.row.id);
      server.clock.advance(1000);
    }
    const first = await index();
    expect(first.trips.map((trip) => trip.id)).toEqual([...ids].reverse().slice(0, 20));
    expect(first.meta.pagination['next_page_url']).toBe(`${BASE_URL}/api/v1/trips.json?page=2&page_size=20`);
    expect((await index('?page=2')).trips.map((trip) => trip.id)).toEqual([ids[1], ids[0]]);
    const bad = await server.app.inject({ url: '/api/v1/trips.json?page_size=500', headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      errors: ['page_size must be a whole number from 20 to 200'],
      error_codes: ['SERVER_INVALID_FIELD'],
    });
  });

  it("visibility: another user's public trip 200, private 403; only the owner deletes; unknown 404", async () => {
    const other = await createPerson(server, 'Bob Other');
    const bytes = readFixture('gpx', 'sample-ride.gpx');
    const [open] = await storeFile(server, other.id, bytes, 'x.gpx', { visibility: 'public' });
    const [closed] = await storeFile(server, other.id, bytes, 'x.gpx', { visibility: 'private' });
    expect((await show(open!.row.id)).status).toBe(200);
    expect((await show(closed!.row.id)).status).toBe(403);
    expect((await show(12345)).status).toBe(404);
    expect((await index()).trips).toEqual([]);

    const deleteOther = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/trips/${open!.row.id}.json`,
      headers: auth,
    });
    expect(deleteOther.statusCode).toBe(403);
    const unknown = await server.app.inject({
      method: 'DELETE',
      url: '/api/v1/trips/12345.json',
      headers: auth,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ errors: ['trip 12345 not found'], error_codes: ['SERVER_NOT_FOUND'] });
    expect((await server.app.inject({ url: `/api/v1/trips/${open!.row.id}.json` })).statusCode).toBe(401);
    expect((await server.app.inject({ url: '/api/v1/trips/x.json', headers: auth })).statusCode).toBe(400);
  });

  it('DELETE answers 204 with an empty body and logs the deletion for sync.json', async () => {
    const [created] = await storeFile(server, rider.id, readFixture('gpx', 'sample-ride.gpx'), 'x.gpx');
    server.clock.advance(2000);
    const response = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/trips/${created!.row.id}`,
      headers: auth,
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await show(created!.row.id)).status).toBe(404);
    expect(await server.store.changes.since(rider.id, Date.parse('2026-03-01T12:00:01Z'), ['trip'])).toEqual([
      {
        itemType: 'trip',
        itemId: created!.row.id,
        itemUserId: rider.id,
        action: 'deleted',
        at: Date.parse('2026-03-01T12:00:02Z'),
      },
    ]);
  });
});

describe.skipIf(!corpusAvailable)(
  `trips from the corpus (${corpusAvailable ? 'real files' : CORPUS_SKIP_REASON})`,
  () => {
    it('a Garmin FIT road ride with power, heart rate and cadence: every field of the record', async () => {
      const bytes = readCorpus('fit-parser__road-with-power.fit');
      const track = onlyTrack(bytes, 'road-with-power.fit');
      const { summary } = track;
      const [created] = await storeFile(server, rider.id, bytes, 'road-with-power.fit', {
        visibility: 'public',
      });
      const id = created!.row.id;
      const { json, body } = await show(id);
      const { track_points: points, ...record } = json.trip;
      expect(record).toEqual({
        id,
        url: `${BASE_URL}/api/v1/trips/${id}.json`,
        name: 'ROAD',
        description: null,
        user_id: rider.id,
        visibility: 'public',
        created_at: '2026-03-01T12:00:00Z',
        updated_at: '2026-03-01T12:00:00Z',
        // The FIT session's own totals (metres).
        distance: 31217.81,
        elevation_gain: 198,
        elevation_loss: 195,
        first_lat: summary.firstPosition!.lat,
        first_lng: summary.firstPosition!.lng,
        last_lat: summary.lastPosition!.lat,
        last_lng: summary.lastPosition!.lng,
        sw_lat: summary.bounds!.swLat,
        sw_lng: summary.bounds!.swLng,
        ne_lat: summary.bounds!.neLat,
        ne_lng: summary.bounds!.neLng,
        track_type: 'out_and_back',
        terrain: 'rolling',
        departed_at: '2026-01-19T12:57:15Z',
        // The ride starts in north-western Greece.
        time_zone: 'Europe/Athens',
        activity_type: 'cycling:road',
        is_stationary: false,
        duration: 5304,
        moving_time: 4722,
        avg_speed: summary.speedMetersPerSecond!.avg * 3.6,
        max_speed: 10.628 * 3.6,
        avg_cad: summary.cadenceRpm!.avg,
        min_cad: 0,
        max_cad: 177,
        avg_hr: summary.heartRateBpm!.avg,
        min_hr: 65,
        max_hr: 137,
        avg_watts: summary.powerWatts!.avg,
        min_watts: 0,
        max_watts: 1336,
        calories: 741,
        device: 'Garmin Edge MTB',
        external_id: null,
        warnings: [],
      });
      // Distance ÷ moving time; heart rate and power averaged over time, as the Edge does (113 and 134
      // in its session; scripts/device-comparison.ts).
      expect(record['avg_speed']).toBeCloseTo(23.8, 2);
      expect(record['avg_hr']).toBeCloseTo(112.6, 2);
      expect(record['avg_watts']).toBeCloseTo(132.24, 2);
      expect(points).toHaveLength(4746);
      expect(points).toEqual(track.points);
      expect(body).toContain(
        '"track_points":[{"x":20.849784398451447,"y":39.66499130241573,"e":497,"t":1768827435,"h":66,"p":0,"T":20},',
      );

      // Another user sees the public ride, as it is.
      const other = await createPerson(server, 'Bob Other');
      const theirAuth = { authorization: (await credentialsFor(server, other)).basic };
      const seen = await server.app.inject({ url: `/api/v1/trips/${id}.json`, headers: theirAuth });
      expect(seen.statusCode).toBe(200);
      expect(seen.body).toBe(body);
    });

    it('virtual and indoor rides: cycling:virtual and cycling:indoor, stationary', async () => {
      const [zwift] = await storeFile(server, rider.id, readCorpus('FITfileR__zwift-turbo.fit'), 'zwift.fit');
      const [turbo] = await storeFile(
        server,
        rider.id,
        readCorpus('FITfileR__garmin-fenix6-turbo.fit'),
        'turbo.fit',
      );
      expect((await show(zwift!.row.id)).json.trip).toMatchObject({
        activity_type: 'cycling:virtual',
        is_stationary: true,
        time_zone: 'America/New_York',
        device: 'Zwift',
        min_watts: 0,
        max_watts: 450,
      });
      expect((await show(turbo!.row.id)).json.trip).toMatchObject({
        name: 'Bike Indoor',
        activity_type: 'cycling:indoor',
        is_stationary: true,
        time_zone: null,
        first_lat: null,
        device: 'Garmin Fenix 6',
      });
    });

    it('a TCX file with four activities becomes four trips, running and cycling (docs/contributors/decisions.md §5)', async () => {
      const created = await storeFile(
        server,
        rider.id,
        readCorpus('goldencheetah__activity_165850259_multi-session.tcx'),
        'multi-session.tcx',
      );
      expect(created.map((asset) => asset.type)).toEqual(['trip', 'trip', 'trip', 'trip']);
      const types = [];
      for (const asset of created) types.push((await show(asset.row.id)).json.trip['activity_type']);
      expect(types).toEqual(['running:generic', 'cycling:generic', 'running:generic', 'cycling:generic']);
      expect((await index()).meta.pagination['record_count']).toBe(4);
    });
  },
);

/**
 * "Create a ride from raw points" (docs/contributors/decisions.md §5): `POST /trips.json` or `.js` with `track_points`
 * at the top level or in `trip`, as an array or a JSON string; processed at once; every bad point named
 * in one 422. The points are those of real files, read by @rideport/ridefile.
 */
import { trackFromPoints, type TrackPoint } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  readCorpus,
  readFixture,
} from '../../../../test/support/corpus.js';
import type { ServerOptions } from '../options.js';
import { onlyTrack, tracksOf } from '../test-support/assets.js';
import {
  errorOf,
  jsonOf,
  legacy,
  legacySetup,
  type LegacySetup,
  type Query,
} from '../test-support/legacy.js';
import { BASE_URL, testServer, type TestServer } from '../test-support/server.js';

let server: TestServer;
let setup: LegacySetup;

async function start(options: Partial<ServerOptions> = {}): Promise<void> {
  server = await testServer(options);
  setup = await legacySetup(server);
}
beforeEach(async () => {
  await start();
});
afterEach(async () => {
  await server.close();
});

const sample = onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
const tcx = onlyTrack(readFixture('tcx', 'activity.tcx'), 'activity.tcx');

const alice = (): Query => ({ apikey: setup.apiKey, auth_token: setup.alice.authToken });

type TripRecord = Record<string, unknown> & { id: number };
type Created = { success: number; trip: TripRecord };

const post = (
  body: { json?: unknown; form?: Record<string, string> },
  query: Query = alice(),
  url = '/trips.json',
) => legacy(server, { method: 'POST', url, query, ...body });

async function tripsOfAlice(): Promise<number> {
  const response = await legacy(server, { url: `/users/${setup.alice.id}/trips.json`, query: alice() });
  return jsonOf<{ results_count: number }>(response).results_count;
}

describe('POST /trips.json with track points', () => {
  it('creates a trip at once from a JSON array: the summary the parser gives, the points as sent', async () => {
    const response = await post({ json: { track_points: sample.points } });
    expect(response.status, response.body).toBe(200);
    const { success, trip } = jsonOf<Created>(response);
    expect(success).toBe(1);
    expect(trip).toMatchObject({
      url: `${BASE_URL}/trips/${trip.id}.json`,
      user_id: setup.alice.id,
      visibility: 'private',
      description: null,
      distance: sample.summary.distanceMeters,
      elevation_gain: sample.summary.elevationGainMeters,
      duration: sample.summary.elapsedSeconds,
      moving_time: sample.summary.movingSeconds,
      departed_at: new Date(sample.startTime! * 1000).toISOString().replace('.000Z', 'Z'),
      time_zone: 'Europe/Zurich',
      // The points do not say which sport they are.
      activity_type: null,
      first_lat: sample.summary.firstPosition!.lat,
    });
    expect(trip['name']).toMatch(/^(Night|Morning|Lunch|Afternoon|Evening) Activity$/);
    expect(trip).not.toHaveProperty('track_points');
    // The record is the one GET /trips/{id}.json shows, and the points are those sent.
    const shown = await legacy(server, { url: `/trips/${trip.id}.json`, query: alice() });
    const { track_points: points, ...record } = jsonOf<{ trip: TripRecord & { track_points: TrackPoint[] } }>(
      shown,
    ).trip;
    expect(record).toEqual(trip);
    expect(points).toEqual(sample.points);
  });

  it('takes track_points inside trip as a JSON string in a form body, with name, description and visibility', async () => {
    const response = await post({
      form: {
        ...(alice() as Record<string, string>),
        'trip[track_points]': JSON.stringify(tcx.points),
        'trip[name]': '  Lunch loop ',
        'trip[description]': 'Windy\nbut dry',
        'trip[visibility]': '0',
      },
    });
    expect(response.status, response.body).toBe(200);
    expect(jsonOf<Created>(response).trip).toMatchObject({
      name: 'Lunch loop',
      description: 'Windy\nbut dry',
      visibility: 'public',
    });
    // Public: Bob sees it.
    const id = jsonOf<Created>(response).trip.id;
    const asBob = await legacy(server, {
      url: `/trips/${id}.json`,
      query: { apikey: setup.apiKey, auth_token: setup.bob.authToken },
    });
    expect(asBob.status).toBe(200);
  });

  it('takes a nested JSON trip, and a JSON string at the top level; answers JSONP with .js', async () => {
    const nested = await post(
      { json: { trip: { track_points: tcx.points, name: 'Nested', visibility: 2 } } },
      { ...alice(), callback: 'rides.created' },
      '/trips.js',
    );
    expect(nested.status, nested.body).toBe(200);
    expect(nested.callback).toBe('rides.created');
    expect(nested.headers['x-content-type-options']).toBe('nosniff');
    expect(jsonOf<Created>(nested).trip).toMatchObject({ name: 'Nested', visibility: 'friends_only' });

    const text = await post({
      json: { track_points: JSON.stringify(tcx.points), trip: { visibility: '1' } },
    });
    expect(text.status, text.body).toBe(200);
    expect(jsonOf<Created>(text).trip).toMatchObject({ visibility: 'private' });
    expect(await tripsOfAlice()).toBe(2);
  });

  it('maps trip[visibility] 0, 1, 2 and the v1 words; refuses anything else with 422', async () => {
    const cases: [unknown, string][] = [
      [0, 'public'],
      ['1', 'private'],
      [2, 'friends_only'],
      ['public', 'public'],
      ['friends_only', 'friends_only'],
    ];
    for (const [given, expected] of cases) {
      const response = await post({ json: { track_points: tcx.points, trip: { visibility: given } } });
      expect(jsonOf<Created>(response).trip['visibility'], String(given)).toBe(expected);
    }
    for (const given of [3, 'friends', 'toString', [0], -1]) {
      const response = await post({ json: { track_points: tcx.points, trip: { visibility: given } } });
      expect(response.status, String(given)).toBe(422);
      expect(errorOf(response)).toBe('trip[visibility] must be 0 (public), 1 (private) or 2 (friends)');
    }
  });

  it('names every bad point in one 422, calling out milliseconds, and stores nothing', async () => {
    const good = sample.points;
    const t0 = good[0]!.t!;
    const points: unknown[] = good.map((point) => ({ ...point }));
    points[1] = { ...good[1], t: good[1]!.t! * 1000 };
    points[2] = { ...good[2], t: good[2]!.t! * 1000 };
    points[3] = { ...good[3], x: 200 };
    points[5] = { ...good[5], y: -91 };
    points[6] = { ...good[6], e: '510' };
    points[7] = 'x=8,y=47';
    points[8] = { ...good[8], t: t0 + 0.5 };
    points[9] = { x: 8.5 };
    points[10] = { ...good[10], h: -3 };
    points[11] = { ...good[11], t: 1000 };
    points[12] = { lat: 47, lng: 8 };
    points[13] = { ...good[13], t: good[13]!.t! * 1000 };
    const response = await post({ json: { track_points: points } });
    expect(response.status).toBe(422);
    const problems = errorOf(response).split('; ');
    expect(problems).toEqual([
      `track_points[1..2, 13] (3 points, the values shown are those of [1]): t ${good[1]!.t! * 1000} is in milliseconds: t must be whole seconds since the Unix epoch (${good[1]!.t!}), never milliseconds`,
      'track_points[3]: x (longitude) 200 is outside -180..180',
      'track_points[5]: y (latitude) -91 is outside -90..90',
      'track_points[6]: e "510" is not a number',
      'track_points[7]: is not a track point object such as {"x": 8.5, "y": 47.4, "t": 1717232400}',
      `track_points[8]: t ${t0 + 0.5} is not whole seconds since the Unix epoch`,
      'track_points[9]: has only one of x (longitude) and y (latitude): a position needs both',
      'track_points[10]: h -3 is negative',
      expect.stringMatching(
        /^track_points\[11\]: t 1000 is not a plausible time: whole seconds since the Unix epoch, from 315964800 \(1980-01-06\) to \d+ /,
      ),
      'track_points[12]: has none of the track point keys x, y, e, t, c, h, p, s, d, T',
    ]);
    expect(await tripsOfAlice()).toBe(0);
  });

  it('answers 422 for missing, doubled, unreadable, empty or untimed track_points, with other field problems', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /^track_points is required: an array of track points, or a JSON string of one/],
      [
        { track_points: tcx.points, trip: { track_points: tcx.points } },
        /sent both at the top level and inside trip/,
      ],
      [{ track_points: '[{"x": 8,' }, /^track_points is text but not JSON/],
      [{ track_points: { x: 8, y: 47 } }, /^track_points must be an array of track points/],
      [{ track_points: '{"x": 8}' }, /^track_points must be an array/],
      [{ track_points: [] }, /^track_points holds no points$/],
      [
        {
          track_points: [
            { x: 8, y: 47 },
            { x: 8.1, y: 47.1 },
          ],
        },
        /^no track point has a time t: a ride needs times .* untimed points make a route/,
      ],
      [
        { track_points: [], trip: { name: 'x'.repeat(256), description: { text: 'no' } } },
        /^track_points holds no points; trip\[name\] must be at most 255 characters; trip\[description\] must be text$/,
      ],
    ];
    for (const [body, message] of cases) {
      const response = await post({ json: body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(errorOf(response)).toMatch(message);
    }
    expect(await tripsOfAlice()).toBe(0);
  });

  it('takes at most pointsPerRequest points (docs/contributors/decisions.md §7: 200,000 by default)', async () => {
    const timed = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ x: 8.5, y: 47.4 + i * 1e-5, t: 1_700_000_000 + i }));
    const tooMany = await post({ json: { track_points: timed(200_001) } });
    expect(tooMany.status).toBe(422);
    expect(errorOf(tooMany)).toBe(
      'track_points holds 200001 points, but at most 200000 are taken in one request',
    );
    const most = await post({ json: { track_points: timed(200_000) } });
    expect(most.status, most.body.slice(0, 200)).toBe(200);

    await server.close();
    await start({ limits: { pointsPerRequest: 10 } });
    const limited = await post({ json: { track_points: timed(11) } });
    expect(limited.status).toBe(422);
    expect(errorOf(limited)).toBe('track_points holds 11 points, but at most 10 are taken in one request');
    expect((await post({ json: { track_points: timed(10) } })).status).toBe(200);
  });

  it('answers 413 {"error"} for a body past the upload limit', async () => {
    await server.close();
    await start({ limits: { uploadBytes: 2000 } });
    const response = await post({ json: { track_points: sample.points } });
    expect(response.status).toBe(413);
    expect(errorOf(response)).toEqual(expect.any(String));
  });

  it('answers 401 without user credentials, and for a wrong password, saying to log in again', async () => {
    const anonymous = await post({ json: { track_points: tcx.points } }, { apikey: setup.apiKey });
    expect(anonymous.status).toBe(401);
    expect(errorOf(anonymous)).toMatch(/log in again/);
    const wrong = await post(
      {
        json: { apikey: setup.apiKey, email: setup.alice.email, password: 'nope', track_points: tcx.points },
      },
      {},
    );
    expect(wrong.status).toBe(401);
    expect(errorOf(wrong)).toBe('invalid email or password: log in again');
    // 401 comes before the points are looked at.
    const badPoints = await post({ json: { track_points: 'nonsense' } }, { apikey: setup.apiKey });
    expect(badPoints.status).toBe(401);
    expect(await tripsOfAlice()).toBe(0);
  });
});

describe.skipIf(!corpusAvailable)('rides from the points of corpus files', () => {
  it('a 99,998-point FIT ride, posted as JSON, stored whole (far past the 1 MiB default body limit)', async () => {
    const [track] = tracksOf(
      readCorpus('muktihari-fit__big_activity.fit'),
      'muktihari-fit__big_activity.fit',
    );
    const response = await post({ json: { track_points: track!.points } });
    expect(response.status, response.body.slice(0, 300)).toBe(200);
    const { trip } = jsonOf<Created>(response);
    // The summary of the points themselves: this file's own totals (its session message) are not sent.
    const fromPoints = trackFromPoints(track!.points).summary;
    expect(trip).toMatchObject({
      distance: fromPoints.distanceMeters,
      duration: track!.summary.elapsedSeconds,
      avg_hr: track!.summary.heartRateBpm!.avg,
    });
    const shown = await legacy(server, { url: `/trips/${trip.id}.json`, query: alice() });
    expect(jsonOf<{ trip: { track_points: TrackPoint[] } }>(shown).trip.track_points).toEqual(track!.points);
  });

  it('every timed track of the GPX corpus files makes a trip with the parser’s distance', async () => {
    const bytes = readCorpus('gpxpy__korita-zbevnica.gpx');
    const rides = tracksOf(bytes, 'gpxpy__korita-zbevnica.gpx').filter((track) => track.kind === 'ride');
    expect(rides.length).toBeGreaterThan(0);
    for (const ride of rides) {
      const response = await post({ json: { track_points: ride.points, trip: { name: ride.name } } });
      expect(response.status, response.body.slice(0, 300)).toBe(200);
      expect(jsonOf<Created>(response).trip).toMatchObject({
        name: ride.name,
        distance: ride.summary.distanceMeters,
      });
    }
  });
});
if (!corpusAvailable) console.warn(`legacy/points.test.ts: ${CORPUS_SKIP_REASON}`);

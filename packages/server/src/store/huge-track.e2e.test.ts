/**
 * A track of days is sent as its JSON is rendered, a slice at a time (issue 36): over a real socket,
 * the v1 and legacy answers (JSON and JSONP) hold every point, as the codec renders them whole, and
 * the track stays packed in the database; a client that stops reading half way leaves the server
 * answering.
 */
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedPointsJson, packTrackPoints } from '../codec/track-points.js';
import { onlyTrack, storeFile } from '../test-support/assets.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Credentials,
  type TestServer,
} from '../test-support/server.js';
import { KEEP_JSON_BELOW_POINTS } from './assets.js';

/** A GPX ride of `count` points, a second apart, with positions and elevation. */
function longGpx(count: number): Uint8Array {
  const start = Date.UTC(2024, 5, 1) / 1000;
  const points = Array.from({ length: count }, (_, i) => {
    const time = new Date((start + i) * 1000).toISOString().replace('.000', '');
    return `<trkpt lat="${(47.37 + Math.sin(i / 5000) * 0.01).toFixed(6)}" lon="${(8.54 + i * 1e-6).toFixed(6)}"><ele>${(400 + (i % 300) / 10).toFixed(1)}</ele><time>${time}</time></trkpt>`;
  });
  return new TextEncoder().encode(
    `<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${points.join('\n')}</trkseg></trk></gpx>`,
  );
}

let server: TestServer;
let origin: string;
let tripId: number;
let credentials: Credentials;
/** the points' JSON as the codec renders it whole */
let expectedPoints: string;

beforeAll(async () => {
  server = await testServer();
  origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
  const rider = await createPerson(server, 'Days Long');
  credentials = await credentialsFor(server, rider);
  const gpx = longGpx(400_000);
  const [created] = await storeFile(server, rider.id, gpx, 'days.gpx');
  tripId = created!.row.id;
  const { points } = onlyTrack(gpx, 'days.gpx');
  expect(points.length).toBeGreaterThanOrEqual(KEEP_JSON_BELOW_POINTS);
  expectedPoints = packedPointsJson(packTrackPoints(points));
}, 120_000);
afterAll(async () => {
  await server.close();
});

/** Whether the store gives the points as pieces rendered from the packed form (not JSON it kept). */
async function stillPacked(): Promise<boolean> {
  const found = await server.store.assets.findRecordWithPoints('trip', tripId);
  return !Buffer.isBuffer(found!.points);
}

async function get(
  path: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const response = await request(`${origin}${path}`, {
    headers: { authorization: credentials.basic },
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

const legacyQuery = (): string => `apikey=${credentials.apiKey}&auth_token=${credentials.authToken}`;

describe('a track of days', () => {
  it('is sent whole by v1, rendered as it is sent, and stays packed', async () => {
    const answer = await get(`/api/v1/trips/${tripId}.json`);
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    // Sent as it is rendered: no length known beforehand.
    expect(answer.headers['content-length']).toBeUndefined();
    const trip = (JSON.parse(answer.text) as { trip: { id: number; track_points: unknown[] } }).trip;
    expect(trip.id).toBe(tripId);
    expect(trip.track_points).toHaveLength(400_000);
    expect(JSON.stringify(trip.track_points)).toBe(expectedPoints);
    expect(await stillPacked()).toBe(true);
  }, 60_000);

  it('is sent whole by the legacy API, as JSON and as JSONP', async () => {
    const json = await get(`/trips/${tripId}.json?${legacyQuery()}`);
    expect(json.status).toBe(200);
    const trip = (JSON.parse(json.text) as { trip: { track_points: unknown[] } }).trip;
    expect(JSON.stringify(trip.track_points)).toBe(expectedPoints);

    const jsonp = await get(`/trips/${tripId}.json?${legacyQuery()}&callback=showTrip`);
    expect(jsonp.status).toBe(200);
    expect(jsonp.text.startsWith('/**/showTrip(')).toBe(true);
    expect(jsonp.text.endsWith(');')).toBe(true);
    const wrapped = JSON.parse(jsonp.text.slice('/**/showTrip('.length, -2)) as {
      trip: { track_points: unknown[] };
    };
    expect(JSON.stringify(wrapped.trip.track_points)).toBe(expectedPoints);
  }, 60_000);

  it('leaves the server answering when a client stops reading half way and goes', async () => {
    const { hostname: host, port } = new URL(origin);
    const socket = connect(Number(port), host.replace(/^\[|\]$/g, ''));
    socket.write(
      `GET /api/v1/trips/${tripId}.json HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${credentials.basic}\r\n\r\n`,
    );
    // Read a little, then stop reading (the server must not render the rest ahead), then go.
    const first = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
    expect(first.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
    socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    const after = await get(`/api/v1/trips/${tripId}.json`);
    expect(after.status).toBe(200);
    expect((JSON.parse(after.text) as { trip: { track_points: unknown[] } }).trip.track_points).toHaveLength(
      400_000,
    );
  }, 60_000);
});

/**
 * Original files, external_id and duplicates that carry new details (issue 20), through the legacy
 * upload and the v1 download over a real socket: the file comes back byte for byte (SHA-256) as it was
 * uploaded, plain or gzip; only its owner gets it; it goes with the ride. A repeated external_id from
 * the same user and client is a duplicate whatever the bytes; a duplicate's new name is not applied
 * and the task says so.
 */
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { LARGE_VALUE_PART_BYTES } from '../store/index.js';
import { legacySetup, type LegacySetup } from '../test-support/legacy.js';
import { testServer, type TestServer } from '../test-support/server.js';
import { taskIdOf, tasksEndedOverSocket, uploadOverSocket } from '../test-support/uploads.js';

let server: TestServer;
let origin: string;
let setup: LegacySetup;

beforeAll(async () => {
  server = await testServer();
  origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
  setup = await legacySetup(server);
});
afterAll(async () => {
  await server.close();
});

type Who = 'alice' | 'bob';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const basic = (who: Who) =>
  `Basic ${Buffer.from(`${setup.apiKey}:${setup[who].authToken}`).toString('base64')}`;

interface Task {
  id: number;
  status: number;
  response_code: string;
  message: string;
  external_id: string | null;
  associated_objects: Array<{ type: string; trip?: { id: number; name: string } }>;
}

/** Uploads `bytes` as `who` through POST /trips.json and waits for its task to end. */
async function uploaded(who: Who, name: string, bytes: Uint8Array, fields: [string, string][] = []) {
  const credentials = { apiKey: setup.apiKey, authToken: setup[who].authToken };
  const answer = await uploadOverSocket(origin, credentials, { name, bytes }, fields);
  expect(answer.statusCode, JSON.stringify(answer.body)).toBe(200);
  const [task] = await tasksEndedOverSocket(origin, credentials, [taskIdOf(answer)]);
  return task as unknown as Task;
}

async function original(who: Who, tripId: number, path = 'original') {
  const response = await request(`${origin}/api/v1/trips/${tripId}/${path}`, {
    headers: { authorization: basic(who) },
  });
  const bytes = new Uint8Array(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, bytes };
}

const originalRows = () =>
  server.store.transaction((trx) => trx.selectFrom('original_files').select('id').execute());

const tripOf = (task: Task): number =>
  task.associated_objects.find((object) => object.type === 'trip')!.trip!.id;

describe('original files', () => {
  it('gives the owner the file back byte for byte, with its name and type; others get 403', async () => {
    const fit = readFixture('fit', 'hr-messages.fit');
    const task = await uploaded('alice', 'Morning ride.fit', fit);
    expect(task.response_code).toBe('success');
    const tripId = tripOf(task);
    const mine = await original('alice', tripId);
    expect(mine.status).toBe(200);
    expect(sha256(mine.bytes)).toBe(sha256(fit));
    expect(mine.headers['content-type']).toBe('application/vnd.ant.fit');
    expect(mine.headers['content-disposition']).toContain('filename="Morning-ride.fit"');
    expect(mine.headers['content-disposition']).toContain("filename*=UTF-8''Morning%20ride.fit");
    // Stored compressed.
    const stored = await server.store.originalFiles.ofAsset('trip', tripId);
    expect(stored?.uploadedGzip).toBe(false);
    const theirs = await original('bob', tripId);
    expect(theirs.status).toBe(403);
    expect(JSON.parse(Buffer.from(theirs.bytes).toString())).toEqual({
      errors: [`only its owner can download the original of trip ${tripId}`],
      error_codes: ['SERVER_FORBIDDEN'],
    });
    expect((await original('alice', 999_999)).status).toBe(404);
    // A file, not JSON: there is no .json form of this path, and the API's description says so.
    expect((await original('alice', tripId, 'original.json')).status).toBe(404);
    const openapi = await request(`${origin}/api/v1/openapi.json`);
    const paths = ((await openapi.body.json()) as { paths: Record<string, Record<string, unknown>> }).paths;
    expect(
      Object.keys(paths)
        .filter((path) => path.includes('original'))
        .sort(),
    ).toEqual(['/api/v1/routes/{id}/original', '/api/v1/trips/{id}/original']);
  });

  it('keeps a .gz upload as it came, and sends it as gzip', async () => {
    const gpx = gzipSync(readFixture('gpx', 'sample-ride.gpx'));
    const task = await uploaded('alice', 'sample-ride.gpx.gz', gpx);
    const back = await original('alice', tripOf(task));
    expect(back.status).toBe(200);
    expect(sha256(back.bytes)).toBe(sha256(gpx));
    expect(back.headers['content-type']).toBe('application/gzip');
    expect(back.headers['content-disposition']).toContain('filename="sample-ride.gpx.gz"');
  });

  it('keeps a large upload byte for byte, though its bytes were moved to the parser, not copied', async () => {
    // A large upload owns its memory, which goes to the parse worker without a copy; the original
    // then comes back from the worker (a .gz) or compressed by it. Both with their own lengths.
    // Two rides, a day apart (one recording twice would be a duplicate: issue 16).
    const ride = (day: number): Buffer => {
      const points = Array.from({ length: 20_000 }, (_, i) => {
        const at = new Date(Date.UTC(2024, 4, 4 + day, 8) + i * 1000).toISOString();
        const lat = (47 + Math.sin(i / 97) * 0.01 + i * 1e-6).toFixed(7);
        const lon = (8 + Math.cos(i / 89) * 0.01 + i * 1e-6).toFixed(7);
        return `<trkpt lat="${lat}" lon="${lon}"><ele>${(400 + (i % 37)).toFixed(1)}</ele><time>${at}</time></trkpt>`;
      });
      return Buffer.from(
        `<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${points.join('')}</trkseg></trk></gpx>`,
      );
    };
    for (const [name, bytes] of [
      ['long.gpx.gz', gzipSync(ride(0))],
      ['long.gpx', ride(1)],
    ] as const) {
      expect(bytes.length).toBeGreaterThan(64 * 1024);
      const task = await uploaded('alice', name, bytes);
      expect(task.response_code, name).toBe('success');
      const back = await original('alice', tripOf(task));
      expect(back.status).toBe(200);
      expect(sha256(back.bytes), name).toBe(sha256(bytes));
      const stored = await server.store.transaction((trx) =>
        trx
          .selectFrom('original_files')
          .select('byte_length')
          .orderBy('id', 'desc')
          .executeTakeFirstOrThrow(),
      );
      expect(stored.byte_length, name).toBe(bytes.length);
    }
  });

  it('keeps a file larger than a part as one value, written once, and deletes it with the ride', async () => {
    // Issue 36: bytes above a part are a large value (store/large-values.ts). A .gz upload and a ride
    // of a ZIP are their own original: one value, named by the task and then by the original file.
    // A plain upload's original is compressed by the server: a value of its own.
    const largeValues = () =>
      server.store.transaction(async (trx) => ({
        values: await trx.selectFrom('large_values').select(['id', 'byte_length']).execute(),
        parts: await trx.selectFrom('large_value_parts').select(['value_id', 'part']).execute(),
      }));
    const before = await largeValues();
    // Random text in each point's description, so that the gzip stays larger than a part.
    const ride = (day: number): Buffer => {
      const points = Array.from({ length: 40_000 }, (_, i) => {
        const at = new Date(Date.UTC(2024, 5, 4 + day, 8) + i * 1000).toISOString();
        const lat = (47 + i * 1e-5).toFixed(6);
        return `<trkpt lat="${lat}" lon="8.5"><time>${at}</time><desc>${randomBytes(24).toString('hex')}</desc></trkpt>`;
      });
      return Buffer.from(
        `<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${points.join('')}</trkseg></trk></gpx>`,
      );
    };
    const plain = ride(0);
    const gzipped = gzipSync(ride(1));
    const inZip = ride(2);
    const zipped = zipSync({ 'rides/ride.gpx': inZip });
    expect(gzipped.length).toBeGreaterThan(LARGE_VALUE_PART_BYTES);
    const trips: number[] = [];
    for (const [name, bytes, sentBack] of [
      ['plain.gpx', plain, plain],
      ['gzipped.gpx.gz', gzipped, gzipped],
      ['zipped.zip', zipped, inZip],
    ] as const) {
      const task = await uploaded('alice', name, bytes);
      expect(task.response_code, name).toBe('success');
      trips.push(tripOf(task));
      const back = await original('alice', tripOf(task));
      expect(back.status, name).toBe(200);
      expect(sha256(back.bytes), name).toBe(sha256(sentBack));
    }
    const during = await largeValues();
    // One value per original, none left of the tasks' uploads, every part there.
    expect(during.values.length).toBe(before.values.length + 3);
    for (const value of during.values) {
      const parts = during.parts.filter((part) => part.value_id === value.id);
      expect(parts.length).toBe(Math.ceil(value.byte_length / LARGE_VALUE_PART_BYTES));
    }
    const originals = await server.store.transaction((trx) =>
      trx
        .selectFrom('original_files')
        .select(['large_value_id', 'bytes'])
        .orderBy('id', 'desc')
        .limit(3)
        .execute(),
    );
    for (const file of originals) {
      expect(file.large_value_id).not.toBeNull();
      expect(file.bytes.length).toBe(0);
    }
    for (const tripId of trips) {
      const deleted = await request(`${origin}/api/v1/trips/${tripId}.json`, {
        method: 'DELETE',
        headers: { authorization: basic('alice') },
      });
      expect(deleted.statusCode).toBe(204);
      await deleted.body.dump();
    }
    expect(await largeValues()).toEqual(before);
  });

  it('deletes the original with the ride (the last ride made from it)', async () => {
    const tcx = readFixture('tcx', 'activity.tcx');
    const task = await uploaded('bob', 'ride.tcx', tcx);
    const tripId = tripOf(task);
    expect((await original('bob', tripId)).status).toBe(200);
    const before = await originalRows();
    const deleted = await request(`${origin}/api/v1/trips/${tripId}.json`, {
      method: 'DELETE',
      headers: { authorization: basic('bob') },
    });
    expect(deleted.statusCode).toBe(204);
    await deleted.body.dump();
    expect((await original('bob', tripId)).status).toBe(404);
    const after = await originalRows();
    expect(after.length).toBe(before.length - 1);
  });
});

describe('external_id', () => {
  it('echoes it, and makes a repeat from the same user and client a duplicate whatever the bytes', async () => {
    const first = await uploaded('bob', 'a.gpx', readFixture('gpx', 'positions.gpx'), [
      ['external_id', 'device-1/rides/a.fit#1'],
    ]);
    expect(first).toMatchObject({ response_code: 'success', external_id: 'device-1/rides/a.fit#1' });
    // The v1 trip record echoes it too, alone and in the list; a trip uploaded without one has null.
    const v1 = async (path: string) => {
      const response = await request(`${origin}/api/v1/${path}`, {
        headers: { authorization: basic('bob') },
      });
      expect(response.statusCode).toBe(200);
      return (await response.body.json()) as Record<string, unknown>;
    };
    expect((await v1(`trips/${tripOf(first)}.json`))['trip']).toMatchObject({
      id: tripOf(first),
      external_id: 'device-1/rides/a.fit#1',
    });
    const plain = await uploaded('bob', 'p.tcx', readFixture('tcx', 'activity.tcx'));
    const listed = (await v1('trips.json'))['trips'] as { id: number; external_id: string | null }[];
    expect(listed.find((trip) => trip.id === tripOf(first))?.external_id).toBe('device-1/rides/a.fit#1');
    expect(listed.find((trip) => trip.id === tripOf(plain))?.external_id).toBeNull();
    const repeat = await uploaded('bob', 'b.fit', readFixture('fit', 'hr-messages.fit'), [
      ['external_id', 'device-1/rides/a.fit#1'],
    ]);
    expect(repeat.response_code).toBe('duplicate');
    expect(repeat.message).toBe('Duplicate upload: 1 ride with the same external_id exists already');
    expect(tripOf(repeat)).toBe(tripOf(first));
    // Another user's same external_id is theirs.
    const alices = await uploaded('alice', 'c.tcx', readFixture('tcx', 'activity.tcx'), [
      ['external_id', 'device-1/rides/a.fit#1'],
    ]);
    expect(alices.response_code).not.toBe('failed');
    expect(alices.message).not.toContain('external_id');
  });

  it('refuses one longer than 255 characters in words', async () => {
    const answer = await uploadOverSocket(
      origin,
      { apiKey: setup.apiKey, authToken: setup.bob.authToken },
      { name: 'a.gpx', bytes: readFixture('gpx', 'sample-ride.gpx') },
      [['external_id', 'x'.repeat(256)]],
    );
    expect(answer.statusCode).toBe(400);
    expect(answer.body['error']).toMatch(/external_id.*255 characters/);
  });
});

describe('a duplicate with new details', () => {
  it('changes nothing and says the details were not applied', async () => {
    const kml = readFixture('kml', 'tracks.kml');
    const first = await uploaded('alice', 'ride.kml', kml, [['trip[name]', 'Lake loop']]);
    const again = await uploaded('alice', 'ride.kml', kml, [
      ['trip[name]', 'A new name'],
      ['trip[visibility]', '0'],
    ]);
    expect(again.response_code).toBe('duplicate');
    expect(again.message).toBe(
      'Duplicate upload: 3 rides and 1 route from the same file exist already; the name and visibility ' +
        'sent with this upload were not applied: edit the ride to change them',
    );
    const trip = await server.store.assets.find('trip', tripOf(first));
    expect(trip).toMatchObject({ name: 'Lake loop', visibility: 'private' });
  });
});

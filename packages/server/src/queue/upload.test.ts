import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  readCorpus,
  readFixture,
} from '../../../../test/support/corpus.js';
import { gpxGzipBomb } from '../../../../test/support/gzip-bomb.js';
import { storedAsset, tracksOf } from '../test-support/assets.js';
import {
  BASE_URL,
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from '../test-support/server.js';
import {
  multipartBody,
  taskEnded,
  taskIdOf,
  taskStatuses,
  upload,
  type LegacyCredentials,
} from '../test-support/uploads.js';

let server: TestServer;
let rider: Person;
let credentials: LegacyCredentials;

// One server (and one pool of worker threads) for the file; each test has riders of its own.
beforeAll(async () => {
  server = await testServer({ queue: { workers: 2 } });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  rider = await createPerson(server, 'Anna Rider');
  credentials = await credentialsFor(server, rider);
});

const tracksAndRoutes = (): { name: string; bytes: Uint8Array } => ({
  name: 'tracks-and-routes.gpx',
  bytes: readFixture('gpx', 'tracks-and-routes.gpx'),
});

async function tripCount(userId: number): Promise<number> {
  return (await server.store.assets.listByOwner('trip', userId, { offset: 0, limit: 1 })).total;
}

describe('POST /trips.json with a file', () => {
  it('answers with the task id once the task and bytes are stored; the worker makes every ride and route', async () => {
    const file = tracksAndRoutes();
    const answer = await upload(server, credentials, file, [
      ['trip[name]', 'Club ride'],
      ['trip[description]', 'with the Tuesday group'],
      ['trip[visibility]', '0'],
    ]);
    expect(answer.statusCode).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['success', 'task_id']);
    const taskId = taskIdOf(answer);
    const stored = await server.store.tasks.find(taskId);
    expect(stored).toMatchObject({ user_id: rider.id, filename: 'tracks-and-routes.gpx' });
    expect(stored!.byte_length).toBe(file.bytes.length);

    const task = await taskEnded(server, credentials, taskId);
    expect(task).toMatchObject({
      id: taskId,
      status: 1,
      response_code: 'success',
      message: 'Created 1 ride and 2 routes from upload',
      progress: 100,
      user_id: rider.id,
    });
    expect(task.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(task.associated_objects.map((object) => object.type)).toEqual(['trip', 'route', 'route']);
    const [trip, ...routes] = task.associated_objects;
    expect(trip!.trip).toMatchObject({
      name: 'Club ride',
      description: 'with the Tuesday group',
      visibility: 'public',
      user_id: rider.id,
      url: `${BASE_URL}/trips/${trip!.trip!['id'] as number}.json`,
    });
    for (const route of routes) expect(route.route).toMatchObject({ name: 'Club ride', user_id: rider.id });
    // The bytes are dropped when the task ends.
    expect(await server.store.tasks.uploadBytes(taskId)).toBeUndefined();

    // The stored points are the ones the file holds, as the store renders them.
    const [expected] = tracksOf(file.bytes, file.name);
    const found = await storedAsset(server, 'trip', trip!.trip!['id'] as number);
    expect(JSON.parse(found!.points)).toEqual(expected!.points);
    expect(found!.row.point_count).toBe(expected!.points.length);
  });

  // Issue 18, "memory bounded per upload": the file is received into one buffer of its own, which the
  // queue hands to its parse worker by moving it (queue/pool.ts), never by copying it.
  it('keeps the received file in memory of its own, exactly its size, with every byte', async () => {
    const file = tracksAndRoutes();
    const queue = server.app.uploadQueue;
    const accept = queue.accepted.bind(queue);
    // Read as the queue is handed the bytes: the parse worker may take (detach) them right after.
    const seen: { offset: number; memory: number; same: boolean }[] = [];
    const accepted = vi.spyOn(queue, 'accepted').mockImplementation((taskId, bytes) => {
      seen.push({
        offset: bytes.byteOffset,
        memory: bytes.buffer.byteLength,
        same: Buffer.from(file.bytes).equals(bytes),
      });
      accept(taskId, bytes);
    });
    try {
      const answer = await upload(server, credentials, file);
      expect(answer.statusCode).toBe(200);
      expect(seen).toEqual([{ offset: 0, memory: file.bytes.length, same: true }]);
    } finally {
      accepted.mockRestore();
    }
  });

  it('takes the file as data_file too, and answers JSONP on .js', async () => {
    const { body, contentType } = await multipartBody([], {
      field: 'data_file',
      name: 'ride.gpx',
      bytes: readFixture('gpx', 'sample-ride.gpx'),
    });
    const query = new URLSearchParams({
      apikey: credentials.apiKey,
      auth_token: credentials.authToken,
      callback: 'app.uploaded',
    });
    const response = await server.app.inject({
      method: 'POST',
      url: `/trips.js?${query}`,
      headers: { 'content-type': contentType },
      payload: body,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/javascript/);
    const match = /^\/\*\*\/app\.uploaded\(\{"success":1,"task_id":(\d+)\}\);$/.exec(response.body);
    expect(match).not.toBeNull();
    const task = await taskEnded(server, credentials, Number(match![1]));
    expect(task).toMatchObject({
      status: 1,
      response_code: 'success',
      message: 'Created 1 ride from upload',
    });
  });

  it('identical bytes from the same user are a duplicate, with the existing objects; another user gets their own', async () => {
    const file = tracksAndRoutes();
    const first = await taskEnded(server, credentials, taskIdOf(await upload(server, credentials, file)));
    const trips = await tripCount(rider.id);
    const again = await taskEnded(
      server,
      credentials,
      taskIdOf(await upload(server, credentials, { ...file, name: 'renamed.gpx' })),
    );
    expect(again).toMatchObject({ status: 1, response_code: 'duplicate', progress: 100 });
    expect(again.message).toBe('Duplicate upload: 1 ride and 2 routes from the same file exist already');
    const ids = (task: typeof first) =>
      task.associated_objects.map((object) => [object.type, (object.trip ?? object.route)!['id']]);
    expect(ids(again)).toEqual(ids(first));
    expect(await tripCount(rider.id)).toBe(trips);

    const other = await createPerson(server, 'Ben');
    const otherCredentials = await credentialsFor(server, other);
    const theirs = await taskEnded(
      server,
      otherCredentials,
      taskIdOf(await upload(server, otherCredentials, file)),
    );
    expect(theirs).toMatchObject({ status: 1, response_code: 'success' });
    expect(await tripCount(other.id)).toBe(1);
  });

  it('the same bytes uploaded twice at once still make one set of rides', async () => {
    const file = { name: 'ride.gpx', bytes: readFixture('gpx', 'sample-ride.gpx') };
    const answers = await Promise.all([1, 2, 3].map(() => upload(server, credentials, file)));
    const tasks = await Promise.all(
      answers.map((answer) => taskEnded(server, credentials, taskIdOf(answer))),
    );
    expect(tasks.map((task) => task.response_code).sort()).toEqual(['duplicate', 'duplicate', 'success']);
    expect(await tripCount(rider.id)).toBe(1);
  });

  it('an unreadable file fails with the parser message in words and its code apart, and its bytes are dropped', async () => {
    const taskId = taskIdOf(
      await upload(server, credentials, {
        name: 'notes.gpx',
        bytes: new TextEncoder().encode('just some notes'),
      }),
    );
    const task = await taskEnded(server, credentials, taskId);
    expect(task).toMatchObject({
      status: -1,
      response_code: 'failed',
      progress: 100,
      error_code: 'RIDEFILE_UNKNOWN_FORMAT',
      associated_objects: [],
    });
    // Words for people, the code for programs (issue 16): the message never carries the code.
    expect(task.message).toBe(
      'Could not read the file: the content is not a FIT, TCX, GPX, KML or KMZ file (nor a gzip of one)',
    );
    expect(await server.store.tasks.uploadBytes(taskId)).toBeUndefined();
  });

  it('a gzip bomb fails as too large, and the server answers while a worker inflates it', async () => {
    const bomb = gpxGzipBomb();
    const taskId = taskIdOf(await upload(server, credentials, { name: 'bomb.gpx.gz', bytes: bomb }));
    // The status endpoint answers while the task is still being read: the main thread is not inflating.
    let answeredWhilePending = false;
    for (let task = (await taskStatuses(server, credentials, [taskId]))[0]!; task.status === 0;) {
      answeredWhilePending = true;
      await new Promise((resolve) => setTimeout(resolve, 5));
      task = (await taskStatuses(server, credentials, [taskId]))[0]!;
    }
    expect(answeredWhilePending).toBe(true);
    const task = await taskEnded(server, credentials, taskId);
    expect(task).toMatchObject({ status: -1, response_code: 'failed', error_code: 'RIDEFILE_TOO_LARGE' });
    expect(task.message).toMatch(
      /^Could not read the file: the file is larger than \d+ bytes once decompressed$/,
    );
  });

  it('billion laughs: entities are never expanded; a file that is nothing but the bomb fails', async () => {
    const entities = Array.from(
      { length: 9 },
      (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
    ).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY lol "lol">${entities}]><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>&lol9;</name><trkseg></trkseg></trk></gpx>`;
    const failed = await taskEnded(
      server,
      credentials,
      taskIdOf(await upload(server, credentials, { name: 'lol.gpx', bytes: new TextEncoder().encode(bomb) })),
    );
    expect(failed).toMatchObject({ status: -1, response_code: 'failed', error_code: 'RIDEFILE_MALFORMED' });
    expect(failed.message).toMatch(/^Could not read the file: the GPX file holds no track points/);

    // The fixture also holds a real point: that point is kept (ridefile's contract for damaged files),
    // and the name is the unexpanded reference.
    const kept = await taskEnded(
      server,
      credentials,
      taskIdOf(
        await upload(server, credentials, {
          name: 'lol.gpx',
          bytes: readFixture('gpx', 'billion-laughs.gpx'),
        }),
      ),
    );
    expect(kept.status).toBe(1);
    expect(kept.associated_objects[0]!.trip!['name']).toBe('&lol9;');
  });

  it('a gzip-compressed file is read, and the gunzip limit of the options is the one applied', async () => {
    const small = await testServer({ queue: { workers: 1 }, limits: { gunzipBytes: 1024 } });
    try {
      const person = await createPerson(small);
      const smallCredentials = await credentialsFor(small, person);
      const gzipped = gzipSync(readFixture('gpx', 'sample-ride.gpx'));
      const task = await taskEnded(
        small,
        smallCredentials,
        taskIdOf(await upload(small, smallCredentials, { name: 'ride.gpx.gz', bytes: gzipped })),
      );
      expect(task).toMatchObject({ error_code: 'RIDEFILE_TOO_LARGE' });
      expect(task.message).toMatch(/^Could not read the file: the file is larger than 1024 bytes/);
    } finally {
      await small.close();
    }
    const task = await taskEnded(
      server,
      credentials,
      taskIdOf(
        await upload(server, credentials, {
          name: 'ride.gpx.gz',
          bytes: gzipSync(readFixture('gpx', 'sample-ride.gpx')),
        }),
      ),
    );
    expect(task).toMatchObject({ status: 1, message: 'Created 1 ride from upload' });
  });
});

describe('damaged and partial files, said out loud (issue 16)', () => {
  /** The trip's record on each interface that shows one: v1 and legacy, single and list. */
  async function recordsOf(tripId: number): Promise<Record<string, unknown>[]> {
    const headers = {
      'x-service-api-key': credentials.apiKey,
      'x-service-auth-token': credentials.authToken,
    };
    const legacy = `apikey=${credentials.apiKey}&auth_token=${credentials.authToken}`;
    const get = async (url: string, v1: boolean): Promise<Record<string, unknown>> => {
      const response = await server.app.inject({ url, ...(v1 ? { headers } : {}) });
      expect(response.statusCode, url).toBe(200);
      return response.json<Record<string, unknown>>();
    };
    const listed = (body: Record<string, unknown>, key: string): Record<string, unknown> => {
      const items = body[key] as Record<string, unknown>[];
      const item = items.find((record) => record['id'] === tripId);
      expect(item, key).toBeDefined();
      return item!;
    };
    return [
      (await get(`/api/v1/trips/${tripId}.json`, true))['trip'] as Record<string, unknown>,
      listed(await get('/api/v1/trips.json', true), 'trips'),
      (await get(`/trips/${tripId}.json?${legacy}`, false))['trip'] as Record<string, unknown>,
      listed(await get(`/users/${rider.id}/trips.json?${legacy}&version=2`, false), 'results'),
    ];
  }

  async function uploaded(name: string, bytes: Uint8Array) {
    const task = await taskEnded(
      server,
      credentials,
      taskIdOf(await upload(server, credentials, { name, bytes })),
    );
    const tripId = task.associated_objects[0]!.trip!['id'] as number;
    return { task, tripId };
  }

  it('a cut-off FIT file: the task says where the ride stops, and every record carries the warning', async () => {
    const bytes = readFixture('fit', 'truncated.fit');
    const { task, tripId } = await uploaded('truncated.fit', bytes);
    // The ride is in Zurich; its last point is 08:00:24 UTC, 10:00 there.
    expect(task).toMatchObject({
      status: 1,
      response_code: 'success',
      error_code: null,
      message: 'Created 1 ride from a file that ends early: the ride was read up to 10:00',
    });
    const warnings = [
      { code: 'RIDEFILE_TRUNCATED', message: 'This file ends early: the ride was read up to 10:00.' },
    ];
    expect(task.associated_objects[0]!.trip!['warnings']).toEqual(warnings);
    for (const record of await recordsOf(tripId)) expect(record['warnings']).toEqual(warnings);
    // Stored as the library gave them, with the time of the last point.
    const [track] = tracksOf(bytes, 'truncated.fit');
    const row = await server.store.assets.find('trip', tripId);
    expect(JSON.parse(row!.warnings!)).toEqual(track!.warnings);
    expect(row!.last_point_at).toBe(Date.parse('2024-05-04T08:00:24Z'));
  });

  it('a sound file: no warnings anywhere, and the plain message', async () => {
    const { task, tripId } = await uploaded('sample-ride.gpx', readFixture('gpx', 'sample-ride.gpx'));
    expect(task).toMatchObject({ message: 'Created 1 ride from upload', error_code: null });
    for (const record of await recordsOf(tripId)) expect(record['warnings']).toEqual([]);
  });

  it('a cut-off GPX file and a bad-CRC FIT file are said in words, with the codes apart', async () => {
    const gpx = await uploaded('truncated.gpx', readFixture('gpx', 'truncated.gpx'));
    expect(gpx.task.message).toMatch(
      /^Created 1 ride from a file that ends early: the ride was read up to \d\d:\d\d$/,
    );
    const crc = await uploaded('bad-crc.fit', readFixture('fit', 'bad-crc.fit'));
    expect(crc.task.message).toBe('Created 1 ride from a damaged file: the ride shows what could be read');
    expect(crc.task.associated_objects[0]!.trip!['warnings']).toEqual([
      {
        code: 'RIDEFILE_BAD_CRC',
        message:
          'This file is damaged (its checksum does not match its content): the ride shows what could be read.',
      },
    ]);
  });

  it.skipIf(!corpusAvailable)(
    'a real ride cut off mid-ride: the words give the local time of its last point',
    async () => {
      const whole = readCorpus('fitparse__garmin-edge-500-activity.fit');
      const cut = whole.subarray(0, Math.floor(whole.length / 2));
      const [track] = tracksOf(cut, 'cut.fit');
      const lastTime = track!.points.findLast((point) => point.t !== undefined)!.t!;
      const { task, tripId } = await uploaded('cut.fit', cut);
      const row = await server.store.assets.find('trip', tripId);
      expect(row!.time_zone).not.toBeNull();
      const local = new Intl.DateTimeFormat('en-GB', {
        timeZone: row!.time_zone!,
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(lastTime * 1000));
      expect(task.message).toBe(
        `Created 1 ride from a file that ends early: the ride was read up to ${local}`,
      );
      for (const record of await recordsOf(tripId)) {
        expect(record['warnings']).toEqual([
          { code: 'RIDEFILE_TRUNCATED', message: `This file ends early: the ride was read up to ${local}.` },
        ]);
      }
    },
  );
});

describe('who may upload, and what is refused', () => {
  /** the rider's tasks among the first thousand */
  const countTasks = async (): Promise<number> =>
    (
      await server.store.tasks.statuses(
        rider.id,
        Array.from({ length: 1000 }, (_, i) => i + 1),
      )
    ).length;

  it('credentials in form fields before the file are accepted', async () => {
    const { body, contentType } = await multipartBody(
      [
        ['apikey', credentials.apiKey],
        ['auth_token', credentials.authToken],
      ],
      { name: 'ride.gpx', bytes: readFixture('gpx', 'sample-ride.gpx') },
    );
    const response = await server.app.inject({
      method: 'POST',
      url: '/trips.json',
      headers: { 'content-type': contentType },
      payload: body,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: 1 });
  });

  // With them only after the file, the refusal names them (issue 35; legacy/upload-order.e2e.test.ts).
  it('without credentials (401), or with them only after the file (400), nothing is stored', async () => {
    const file = { name: 'ride.gpx', bytes: readFixture('gpx', 'sample-ride.gpx') };
    const cases = [
      await multipartBody([], file),
      await multipartBody([['apikey', credentials.apiKey]], file),
      await multipartBody([], file, [
        ['apikey', credentials.apiKey],
        ['auth_token', credentials.authToken],
      ]),
    ];
    const statuses = [];
    for (const { body, contentType } of cases) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/trips.json',
        headers: { 'content-type': contentType },
        payload: body,
      });
      statuses.push(response.statusCode);
      expect(response.json()).toHaveProperty('error');
    }
    expect(statuses).toEqual([401, 401, 400]);
    expect(await countTasks()).toBe(0);
  });

  it('a form without the file is a 400; a bad trip[visibility] is a 400; neither is stored', async () => {
    const query = new URLSearchParams({ apikey: credentials.apiKey, auth_token: credentials.authToken });
    const noFile = await multipartBody([['trip[name]', 'x']], null);
    const response = await server.app.inject({
      method: 'POST',
      url: `/trips.json?${query}`,
      headers: { 'content-type': noFile.contentType },
      payload: noFile.body,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ error: string }>().error).toMatch(/"file"/);
    const badVisibility = await upload(server, credentials, tracksAndRoutes(), [['trip[visibility]', '7']]);
    expect(badVisibility.statusCode).toBe(400);
    expect(badVisibility.body['error']).toMatch(/trip\[visibility\]/);
    // A number sent twice is refused, not read as its first value (issue 36).
    const twice = await upload(server, credentials, tracksAndRoutes(), [
      ['trip[visibility]', '1'],
      ['trip[visibility]', '0'],
    ]);
    expect(twice.statusCode).toBe(400);
    expect(twice.body['error']).toMatch(/trip\[visibility\] was sent more than once/);
    expect(await countTasks()).toBe(0);
  });

  it('a form of two files is refused in words, and neither is stored (issue 40)', async () => {
    const query = new URLSearchParams({ apikey: credentials.apiKey, auth_token: credentials.authToken });
    const file = tracksAndRoutes();
    const two = await multipartBody([], [file, { ...file, name: 'again.gpx' }]);
    const response = await server.app.inject({
      method: 'POST',
      url: `/trips.json?${query}`,
      headers: { 'content-type': two.contentType },
      payload: two.body,
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      error: 'one file per upload: send the others in uploads of their own, or together in one ZIP archive',
    });
    expect(await countTasks()).toBe(0);
  });

  it('413 at once when Content-Length says the body is past the limit', async () => {
    const small = await testServer({ queue: { workers: 1 }, limits: { uploadBytes: 1000 } });
    try {
      const person = await createPerson(small);
      const smallCredentials = await credentialsFor(small, person);
      const answer = await upload(small, smallCredentials, {
        name: 'big.gpx',
        bytes: new Uint8Array(2 * 1024 * 1024).fill(32),
      });
      expect(answer.statusCode).toBe(413);
      expect(answer.body['error']).toMatch(/upload limit/);
      // Past the limit by less than the room left for the form: refused as the file streams.
      const streamed = await upload(small, smallCredentials, {
        name: 'big.gpx',
        bytes: new Uint8Array(5000).fill(32),
      });
      expect(streamed.statusCode).toBe(413);
      expect(await small.store.tasks.find(1)).toBeUndefined();
    } finally {
      await small.close();
    }
  });
});

describe('GET /queued_tasks/status.json', () => {
  it("shows only the caller's own tasks, in the order asked, leaving out unknown ids", async () => {
    const mine = taskIdOf(await upload(server, credentials, tracksAndRoutes()));
    const other = await createPerson(server, 'Ben');
    const otherCredentials = await credentialsFor(server, other);
    const theirs = taskIdOf(await upload(server, otherCredentials, tracksAndRoutes()));
    await taskEnded(server, credentials, mine);
    await taskEnded(server, otherCredentials, theirs);
    const tasks = await taskStatuses(server, credentials, [9999, theirs, mine], false);
    expect(tasks.map((task) => task.id)).toEqual([mine]);
    expect(Object.keys(tasks[0]!)).toEqual([
      'id',
      'status',
      'message',
      'error_code',
      'response_code',
      'progress',
      'created_at',
      'updated_at',
      'user_id',
      'external_id',
      'associated_objects',
    ]);
    // Without include_objects the list is there, but empty.
    expect(tasks[0]!.associated_objects).toEqual([]);
    expect(await taskStatuses(server, credentials, [9999])).toEqual([]);
  });

  it('refuses missing or malformed ids (400) and callers without a user (401)', async () => {
    const base = { apikey: credentials.apiKey, auth_token: credentials.authToken };
    for (const ids of [undefined, 'abc', '1,,x', '0']) {
      const query = new URLSearchParams({ ...base, ...(ids === undefined ? {} : { ids }) });
      const response = await server.app.inject({ url: `/queued_tasks/status.json?${query}` });
      expect(response.statusCode, `ids=${ids}`).toBe(400);
    }
    const response = await server.app.inject({
      url: `/queued_tasks/status.json?apikey=${credentials.apiKey}&ids=1`,
    });
    expect(response.statusCode).toBe(401);
  });
});

describe.skipIf(!corpusAvailable)('corpus uploads', () => {
  it('a multisport FIT activity is one trip', async () => {
    const bytes = readCorpus('fitparse__activity-large-fenxi2-multisport.fit');
    const task = await taskEnded(
      server,
      credentials,
      taskIdOf(await upload(server, credentials, { name: 'fenix.fit', bytes })),
    );
    expect(task).toMatchObject({ status: 1, message: 'Created 1 ride from upload' });
    const trip = task.associated_objects[0]!.trip!;
    const found = await storedAsset(server, 'trip', trip['id'] as number);
    const [track] = tracksOf(bytes, 'fenix.fit');
    expect(found!.row.point_count).toBe(track!.points.length);
    expect(found!.points.length).toBeGreaterThan(1_000_000);
  });
});

if (!corpusAvailable) console.warn(`[upload.test] ${CORPUS_SKIP_REASON}`);

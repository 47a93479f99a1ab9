/**
 * One ride per ride through the upload queue (issue 16): the same recording in other bytes ends as a
 * duplicate of the stored trip, a longer file completes a stored cut-off copy, another device's
 * recording of the same ride is a ride of its own that overlaps. Real parser, real database, real
 * worker threads; uploads through POST /trips.json.
 */
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { parseRideFile, parseRideFileColumns, writeGpx, writeTcx } from '@rideport/ridefile';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chainedFixtureParts } from '../../../../fixtures/fit/generate.js';
import { readFixture } from '../../../../test/support/corpus.js';
import { lastColumnTime, packTrackColumns } from '../codec/track-points.js';
import { newMasterKey } from '../security/secrets.js';
import { columnTimeRange } from '../store/track-columns.js';
import { onPostgres, reopenableDatabase } from '../test-support/test-database.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from '../test-support/server.js';
import {
  taskEnded,
  taskIdOf,
  upload,
  type LegacyCredentials,
  type QueuedTask,
} from '../test-support/uploads.js';
import { findSameRide, PointComparisons } from './one-ride.js';
import type { ParsedTrack } from './parse-worker.js';
import { createParsePool } from './pool.js';

let server: TestServer;
let rider: Person;
let credentials: LegacyCredentials;

beforeAll(async () => {
  server = await testServer({ queue: { workers: 2 } });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  rider = await createPerson(server, 'Ride Once');
  credentials = await credentialsFor(server, rider);
});

const WHOLE = readFixture('fit', 'wheel-antplus-bike-speed.fit');
/** The same ride cut inside record #25 (fixtures/fit/generate.ts, truncated()). */
const CUT_OFF = readFixture('fit', 'truncated.fit');
const text = (value: string): Uint8Array => new TextEncoder().encode(value);

async function send(name: string, bytes: Uint8Array, as = credentials): Promise<QueuedTask> {
  return taskEnded(server, as, taskIdOf(await upload(server, as, { name, bytes })));
}

const tripIdsOf = (task: QueuedTask): number[] =>
  task.associated_objects.map((object) => object.trip!['id'] as number);

async function trips(userId = rider.id) {
  return (await server.store.assets.listByOwner('trip', userId, { offset: 0, limit: 100 })).rows;
}

describe('the same recording in other bytes is a duplicate of the stored trip', () => {
  it('a .fit and its .fit.gz: one trip; the second upload names it', async () => {
    const first = await send('ride.fit', WHOLE);
    expect(first).toMatchObject({ status: 1, response_code: 'success' });
    const [id] = tripIdsOf(first);
    const second = await send('ride.fit.gz', gzipSync(WHOLE));
    expect(second).toMatchObject({
      status: 1,
      response_code: 'duplicate',
      message: `Already on the platform as ${(await trips())[0]!.name}`,
    });
    expect(tripIdsOf(second)).toEqual([id]);
    expect(await trips()).toHaveLength(1);
  });

  it('a FIT, then the TCX and GPX our writers export from it (and the same file with a bad CRC)', async () => {
    const [id] = tripIdsOf(await send('ride.fit', WHOLE));
    const parsed = parseRideFile(WHOLE);
    for (const [name, bytes] of [
      ['ride.tcx', text(writeTcx(parsed))],
      ['ride.gpx', text(writeGpx(parsed))],
      ['bad-crc.fit', readFixture('fit', 'bad-crc.fit')],
    ] as const) {
      const task = await send(name, bytes);
      expect(task, name).toMatchObject({ status: 1, response_code: 'duplicate' });
      expect(tripIdsOf(task), name).toEqual([id]);
    }
    expect(await trips()).toHaveLength(1);
  });

  it('compares the points once, in a worker thread, however often the same trip is looked at (issue 36)', async () => {
    const [id] = tripIdsOf(await send('ride.fit', WHOLE));
    // The GPX names no device: the points decide (rule (c)).
    const gpx = parseRideFileColumns(text(writeGpx(parseRideFile(WHOLE))));
    const { columns, ...details } = gpx.tracks[0]!;
    const parsed: ParsedTrack = {
      track: { ...details, points: [] },
      pointCount: columns.length,
      packedPoints: packTrackColumns(columns),
      lastTime: lastColumnTime(columns),
      timeRange: columnTimeRange(columns),
    };
    const pool = createParsePool(1);
    const threads: number[] = [];
    const comparisons = new PointComparisons(async (request) => {
      threads.push(1);
      return pool.compare(request);
    });
    try {
      // Before the transaction, then inside it, then under the rider's lock: as the queue asks.
      for (let look = 0; look < 3; look++) {
        expect((await findSameRide(server.store, rider.id, parsed, comparisons))?.trip.id).toBe(id);
      }
      expect(threads).toHaveLength(1);
    } finally {
      await pool.destroy();
    }
  });

  it('another rider’s copy of the same file is that rider’s own ride', async () => {
    await send('ride.fit', WHOLE);
    const friend = await createPerson(server, 'Friend');
    const task = await send('ride.fit.gz', gzipSync(WHOLE), await credentialsFor(server, friend));
    expect(task.response_code).toBe('success');
    expect(await trips(friend.id)).toHaveLength(1);
  });

  it('two uploads of one recording at once make one trip (the check runs in the storing transaction)', async () => {
    const ids = await Promise.all(
      [
        { name: 'ride.fit', bytes: WHOLE },
        { name: 'ride.fit.gz', bytes: gzipSync(WHOLE) },
      ].map(async (file) => taskIdOf(await upload(server, credentials, file))),
    );
    const tasks = await Promise.all(ids.map((id) => taskEnded(server, credentials, id)));
    expect(tasks.map((task) => task.response_code).sort()).toEqual(['duplicate', 'success']);
    expect(await trips()).toHaveLength(1);
    expect(new Set(tasks.flatMap(tripIdsOf)).size).toBe(1);
  });

  // queue.ts takes the rider's lock at the end of the storing transaction (issue 18): a ride another
  // upload stored while this one wrote is found under the lock, and the file is stored again.
  it.runIf(onPostgres)(
    'the same recording stored by another transaction while the upload waits for the lock: one trip',
    async () => {
      const database = await reopenableDatabase();
      const node = await testServer({
        queue: { workers: 1 },
        databaseUrl: database.location,
        masterKey: newMasterKey(),
      });
      const watcher = new pg.Client({ connectionString: database.location });
      await watcher.connect();
      try {
        const person = await createPerson(node, 'Two At Once');
        const as = await credentialsFor(node, person);
        let commit!: () => void;
        const committing = new Promise<void>((resolve) => (commit = resolve));
        // Another upload's transaction: it holds the rider's lock and has written the same ride.
        const other = node.store.transaction(async (trx) => {
          await node.store.tasks.serializeRidesOf(person.id, trx);
          await node.store.assets.createFromTrack(person.id, parseRideFile(WHOLE).tracks[0]!, {}, trx);
          await committing;
        });
        const id = taskIdOf(await upload(node, as, { name: 'ride.fit', bytes: WHOLE }));
        // The upload's transaction has written its trip and now waits for the lock.
        for (;;) {
          const { rows } = await watcher.query<{ waiting: number }>(
            `SELECT count(*)::int AS waiting FROM pg_locks
             WHERE locktype = 'advisory' AND NOT granted AND database = (
               SELECT oid FROM pg_database WHERE datname = current_database())`,
          );
          if (rows[0]!.waiting > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        commit();
        await other;
        const task = await taskEnded(node, as, id);
        const stored = (await node.store.assets.listByOwner('trip', person.id, { offset: 0, limit: 10 }))
          .rows;
        expect(stored).toHaveLength(1);
        expect(task.response_code).toBe('duplicate');
        expect(tripIdsOf(task)).toEqual([stored[0]!.id]);
      } finally {
        await watcher.end();
        await node.close();
        database.remove();
      }
    },
  );

  it('a file that holds one recording twice (chained copies) makes one trip', async () => {
    const twice = new Uint8Array(WHOLE.length * 2);
    twice.set(WHOLE, 0);
    twice.set(WHOLE, WHOLE.length);
    expect(parseRideFile(twice).tracks).toHaveLength(2);
    const task = await send('twice.fit', twice);
    expect(task).toMatchObject({ response_code: 'success', message: 'Created 1 ride from upload' });
    expect(await trips()).toHaveLength(1);
  });

  it('a file with a new ride and a stored one: success, both as its objects, and words for each', async () => {
    const [ridePart] = chainedFixtureParts();
    const [stored] = tripIdsOf(await send('ride.fit', ridePart));
    const task = await send('chained.fit', readFixture('fit', 'chained.fit'));
    const name = (await server.store.assets.find('trip', stored!))!.name;
    expect(task).toMatchObject({
      response_code: 'success',
      message: `Created 1 ride from upload. Already on the platform as ${name}`,
    });
    expect(tripIdsOf(task)).toHaveLength(2);
    expect(tripIdsOf(task)).toContain(stored);
    expect(await trips()).toHaveLength(2);
  });
});

describe('a longer file of a stored cut-off copy completes it', () => {
  it('replaces the points and summary, keeps what the rider edited, and says "updated"', async () => {
    // An app the rider uses with a webhook: it is told of the completed ride.
    const app = await server.store.apiClients.create(rider.id, {
      name: 'Training log',
      redirectUris: [],
      webhookUrl: 'https://hooks.example.com/rideport',
    });
    await server.store.authTokens.issue(rider.id, app.id);
    const first = await send('ride.fit', CUT_OFF);
    const [id] = tripIdsOf(first);
    const before = (await server.store.assets.find('trip', id!))!;
    expect(before.point_count).toBeLessThan(30);
    await server.store.assets.update('trip', id!, rider.id, {
      name: 'Dawn patrol',
      description: 'the cold one',
      visibility: 'public',
    });
    server.clock.advance(60_000);
    const since = server.clock.now;

    const task = await send('ride.fit', WHOLE);
    expect(task).toMatchObject({
      status: 1,
      response_code: 'duplicate',
      message:
        'Already on the platform as Dawn patrol; it was completed from this file, which goes on where the stored copy was cut off',
    });
    expect(tripIdsOf(task)).toEqual([id]);
    const after = (await server.store.assets.find('trip', id!))!;
    const whole = parseRideFile(WHOLE).tracks[0]!;
    expect(after).toMatchObject({
      id,
      name: 'Dawn patrol',
      description: 'the cold one',
      visibility: 'public',
      created_at: before.created_at,
      point_count: whole.points.length,
      distance: whole.summary.distanceMeters,
      ended_at: whole.points.at(-1)!.t! * 1000,
    });
    expect((await server.store.assets.points('trip', id!))!).toEqual(whole.points);
    // The v1 record carries the new numbers; the change log and the webhooks say "updated".
    expect(JSON.parse(after.record_json!)).toMatchObject({
      name: 'Dawn patrol',
      distance: whole.summary.distanceMeters,
    });
    expect(await server.store.changes.since(rider.id, since, ['trip'])).toEqual([
      { itemType: 'trip', itemId: id, itemUserId: rider.id, action: 'updated', at: since },
    ]);
    const notified = await server.store.webhooks.pendingOf(app.id, 0, 100);
    expect(notified.map((row) => [row.item_id, row.action])).toEqual([
      [id, 'created'],
      [id, 'updated'],
      [id, 'updated'],
    ]);
    expect(await trips()).toHaveLength(1);

    // The same whole file again: a duplicate before parsing (its SHA-256 is the trip's now), nothing changes.
    const again = await send('ride.fit', WHOLE);
    expect(again.response_code).toBe('duplicate');
    expect((await server.store.assets.find('trip', id!))!.updated_at).toBe(after.updated_at);
  });

  it('a whole stored ride is never replaced by a shorter copy', async () => {
    const [id] = tripIdsOf(await send('ride.fit', WHOLE));
    const before = (await server.store.assets.find('trip', id!))!;
    server.clock.advance(60_000);
    const since = server.clock.now;
    const task = await send('cut.fit', CUT_OFF);
    expect(task).toMatchObject({
      response_code: 'duplicate',
      message: `Already on the platform as ${before.name}`,
    });
    expect(await server.store.assets.find('trip', id!)).toEqual(before);
    expect(await server.store.changes.since(rider.id, since, ['trip'])).toEqual([]);
  });
});

describe('two devices recording one ride', () => {
  // The ride pages that say each overlaps the other are the dashboard's (packages/dashboard,
  // overlaps.test.ts).
  it('are two rides', async () => {
    const [edge] = tripIdsOf(await send('edge.fit', readFixture('fit', 'two-devices-edge.fit')));
    const watchTask = await send('watch.fit', readFixture('fit', 'two-devices-watch.fit'));
    expect(watchTask.response_code).toBe('success');
    const [watch] = tripIdsOf(watchTask);
    expect(watch).not.toBe(edge);
  });
});

import { createHash } from 'node:crypto';
import { RideFileErrorCode, RideFileWarningCode, warningWords, type WarnedTrack } from '@rideport/ridefile';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { gpxGzipBomb } from '../../../../test/support/gzip-bomb.js';
import { buildServer } from '../app.js';
import { openPlatform } from '../platform.js';
import type { TaskObject } from '../store/index.js';

import { succeeded, unreadable } from './queue.js';
import { databaseOptions } from '../test-support/database-options.js';
import { createPerson, credentialsFor, testServer, type TestServer } from '../test-support/server.js';
import { onPostgres, reopenableDatabase } from '../test-support/test-database.js';
import {
  taskEnded,
  taskIdOf,
  taskStatuses,
  upload,
  type LegacyCredentials,
} from '../test-support/uploads.js';

const LEASE_MS = 200;

let servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.reverse()) await server.close();
  servers = [];
});

async function queueServer(queue: Parameters<typeof testServer>[0] = {}): Promise<{
  server: TestServer;
  userId: number;
  credentials: LegacyCredentials;
}> {
  const server = await testServer(queue);
  servers.push(server);
  const person = await createPerson(server);
  return { server, userId: person.id, credentials: await credentialsFor(server, person) };
}

/** A task stored as an upload stores it, before the server is ready (so its queue has not started). */
async function storedTask(
  server: TestServer,
  userId: number,
  bytes: Uint8Array,
  filename: string,
): Promise<number> {
  return server.store.tasks.create({
    userId,
    apiClientId: null,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    filename,
    bytes: Buffer.from(bytes),
    metadata: {},
  });
}

describe('leases and attempts', () => {
  it("a crashed server's lease runs out and the task is claimed again", async () => {
    const { server, userId, credentials } = await queueServer({ queue: { workers: 1, leaseMs: LEASE_MS } });
    const taskId = await storedTask(server, userId, readFixture('gpx', 'sample-ride.gpx'), 'ride.gpx');
    // A server that died while reading it: its lease is held, and still running.
    expect(await server.store.tasks.claim('dead server', LEASE_MS)).toMatchObject({
      id: taskId,
      attempts: 1,
    });
    await server.app.ready();
    expect((await taskStatuses(server, credentials, [taskId]))[0]).toMatchObject({ status: 0 });
    server.clock.advance(LEASE_MS);
    const task = await taskEnded(server, credentials, taskId);
    expect(task).toMatchObject({ status: 1, response_code: 'success' });
    expect(await server.store.tasks.find(taskId)).toMatchObject({ attempts: 2, lease_owner: null });
  });

  it('a file whose reading stopped the server twice fails instead of being read a third time', async () => {
    const { server, userId, credentials } = await queueServer({ queue: { workers: 1, leaseMs: LEASE_MS } });
    const taskId = await storedTask(server, userId, readFixture('gpx', 'sample-ride.gpx'), 'ride.gpx');
    for (const owner of ['dead server', 'dead again']) {
      expect(await server.store.tasks.claim(owner, LEASE_MS)).toMatchObject({ id: taskId });
      server.clock.advance(LEASE_MS);
    }
    const task = await taskEnded(server, credentials, taskId);
    expect(task).toMatchObject({
      status: -1,
      response_code: 'failed',
      message: 'Could not read the file: the server stopped while reading it 2 times',
      error_code: 'UPLOAD_INTERRUPTED',
    });
    expect(await server.store.tasks.find(taskId)).toMatchObject({ attempts: 3 });
  });

  it('a parser that runs out of time is stopped; the second time the task fails with a message', async () => {
    const { server, credentials } = await queueServer({ queue: { workers: 1, parseTimeoutMs: 1 } });
    const taskId = taskIdOf(
      await upload(server, credentials, { name: 'ride.gpx', bytes: readFixture('gpx', 'sample-ride.gpx') }),
    );
    const task = await taskEnded(server, credentials, taskId);
    expect(task).toMatchObject({
      status: -1,
      response_code: 'failed',
      message: 'Could not read the file: the parser took longer than 1 ms on it 2 times',
      error_code: 'UPLOAD_PARSER_TIMEOUT',
    });
    expect(await server.store.tasks.find(taskId)).toMatchObject({ attempts: 2 });
  });

  // Issue 20: an error nobody foresaw while storing the rides left the task "Reading the file".
  it('an unexpected error while storing the rides: read again once, then failed in words', async () => {
    const { server, credentials } = await queueServer({ queue: { workers: 1 } });
    const failing = vi.spyOn(server.store.assets, 'createFromTrack');
    failing.mockRejectedValueOnce(new Error('a bug while storing'));
    const once = taskIdOf(
      await upload(server, credentials, { name: 'ride.gpx', bytes: readFixture('gpx', 'sample-ride.gpx') }),
    );
    expect(await taskEnded(server, credentials, once)).toMatchObject({ status: 1, response_code: 'success' });
    expect(await server.store.tasks.find(once)).toMatchObject({ attempts: 2 });

    failing.mockRejectedValue(new Error('a bug while storing'));
    const always = taskIdOf(
      await upload(server, credentials, {
        name: 'trainer.fit',
        bytes: readFixture('fit', 'smart-trainer.fit'),
      }),
    );
    expect(await taskEnded(server, credentials, always)).toMatchObject({
      status: -1,
      response_code: 'failed',
      message:
        "Could not store the rides: the server failed to save them 2 times; upload the file again later, and tell the server's operator if it fails again",
      error_code: 'UPLOAD_STORE_FAILED',
      associated_objects: [],
    });
  });

  it('a worker that lost its lease stores nothing', async () => {
    const { server, userId } = await queueServer();
    const taskId = await storedTask(server, userId, readFixture('gpx', 'sample-ride.gpx'), 'ride.gpx');
    await server.store.tasks.claim('first', LEASE_MS);
    server.clock.advance(LEASE_MS);
    await server.store.tasks.claim('second', LEASE_MS);
    await expect(
      server.store.tasks.finish(taskId, 'first', {
        status: 1,
        responseCode: 'success',
        message: 'x',
        errorCode: null,
        objects: [],
      }),
    ).rejects.toThrow(/no longer leased/);
    expect(await server.store.tasks.release(taskId, 'first', true)).toBe(false);
    expect(await server.store.tasks.find(taskId)).toMatchObject({ status: 0, lease_owner: 'second' });
  });
});

describe('stopping', () => {
  it('gives a running task back, attempt not counted, and the next start finishes it', async () => {
    const database = await reopenableDatabase();
    try {
      const options = {
        ...databaseOptions(database.location),
        baseUrl: 'http://127.0.0.1',
        queue: { workers: 1, stopGraceMs: 0 },
      };
      const first = await buildServer(options);
      const person = await first.rideport.store.users.createPerson({
        email: 'stop@example.com',
        password: 'long enough',
        name: 'Stop',
      });
      const client = await first.rideport.store.apiClients.create(person.id, { name: 'c', redirectUris: [] });
      const { token } = await first.rideport.store.authTokens.issue(person.id, client.id);
      const credentials = { apiKey: client.apiKey, authToken: token };
      const asTestServer = (app: typeof first): TestServer => ({
        app,
        store: app.rideport.store,
        clock: { now: 0, advance: () => undefined },
        close: () => app.close(),
      });
      // A gzip bomb keeps a worker busy long enough to stop the server under it.
      const bomb = gpxGzipBomb();
      const taskId = taskIdOf(
        await upload(asTestServer(first), credentials, { name: 'bomb.gpx.gz', bytes: bomb }),
      );
      for (;;) {
        const row = await first.rideport.store.tasks.find(taskId);
        if (row!.lease_owner !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await first.close();

      const platform = await openPlatform(options);
      expect(await platform.store.tasks.find(taskId)).toMatchObject({
        status: 0,
        attempts: 0,
        lease_owner: null,
        lease_expires_at: null,
        progress: 0,
      });
      expect(await platform.store.tasks.uploadBytes(taskId)).toHaveLength(bomb.length);
      await platform.close();

      const second = await buildServer(options);
      servers.push(second);
      const task = await taskEnded(asTestServer(second), credentials, taskId);
      expect(task).toMatchObject({ status: -1, response_code: 'failed', error_code: 'RIDEFILE_TOO_LARGE' });
      expect(task.message).toMatch(/^Could not read the file: the file is larger than/);
    } finally {
      database.remove();
    }
  });
});

describe('purging finished tasks', () => {
  /** A task ended as `status` at the server clock's now. */
  async function endedTask(
    server: TestServer,
    userId: number,
    status: 1 | -1,
    name: string,
  ): Promise<number> {
    const taskId = await storedTask(server, userId, new TextEncoder().encode(name), name);
    const claimed = await server.store.tasks.claim(`owner of ${name}`, LEASE_MS);
    expect(claimed?.id).toBe(taskId);
    await server.store.tasks.finish(taskId, `owner of ${name}`, {
      status,
      responseCode: status === 1 ? 'success' : 'failed',
      message: name,
      errorCode: status === 1 ? null : 'UPLOAD_LOST',
      objects: [],
    });
    return taskId;
  }

  it('purges every successful task and the failed ones older than 30 days', async () => {
    const { server, userId } = await queueServer({ queue: { purgeAt: null } });
    const oldFailure = await endedTask(server, userId, -1, 'old failure');
    const oldSuccess = await endedTask(server, userId, 1, 'old success');
    server.clock.advance(31 * 24 * 60 * 60 * 1000);
    const failure = await endedTask(server, userId, -1, 'failure');
    const success = await endedTask(server, userId, 1, 'success');
    const pending = await storedTask(server, userId, new TextEncoder().encode('pending'), 'pending');
    expect(await server.store.tasks.purge()).toEqual({ successful: 2, failed: 1, unnamedValues: 0 });
    const credentials = await credentialsFor(server, { id: userId, email: '', password: '' });
    const left = await taskStatuses(server, credentials, [oldFailure, oldSuccess, failure, success, pending]);
    expect(left.map((task) => task.id)).toEqual([failure, pending]);
  });

  it('purges nightly at the configured local time', async () => {
    const { server, userId } = await queueServer();
    const nearlyThree = new Date(2026, 2, 2, 2, 59, 59, 950).getTime();
    server.clock.advance(nearlyThree - server.clock.now);
    const success = await endedTask(server, userId, 1, 'success');
    const failure = await endedTask(server, userId, -1, 'failure');
    await server.app.ready();
    for (let waited = 0; (await server.store.tasks.find(success)) !== undefined; waited += 10) {
      if (waited > 20_000) throw new Error('the nightly purge did not run');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await server.store.tasks.find(failure)).toBeDefined();
  });

  // Issue 18: with several servers on one database, one purges (on SQLite one server runs on a file).
  it.runIf(onPostgres)('purges on one server of a database, not on each', async () => {
    const database = await reopenableDatabase();
    const nodes = [
      await testServer(databaseOptions(database.location)),
      await testServer(databaseOptions(database.location)),
    ];
    servers.push(...nodes);
    const userId = (await createPerson(nodes[0]!)).id;
    const nearlyThree = new Date(2026, 2, 2, 2, 59, 59, 950).getTime();
    for (const node of nodes) node.clock.advance(nearlyThree - node.clock.now);
    const success = await endedTask(nodes[0]!, userId, 1, 'success');
    const purges = nodes.map((node) => vi.spyOn(node.store.tasks, 'purge'));
    await Promise.all(nodes.map((node) => node.app.ready()));
    for (let waited = 0; (await nodes[0]!.store.tasks.find(success)) !== undefined; waited += 10) {
      if (waited > 20_000) throw new Error('the nightly purge did not run');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Both timers have fired well before now; only the server holding the role purged.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(purges.map((purge) => purge.mock.calls.length).sort()).toEqual([0, 1]);
  });
});

/** An internal code at the start of a text: `RIDEFILE_MALFORMED: …` (issue 16: never shown to people). */
const CODE_AT_START = /^\W*[A-Z][A-Z0-9]*_[A-Z0-9_]*/;

describe('task messages (issue 16: words for people, codes for programs)', () => {
  const ride: WarnedTrack = {
    kind: 'ride',
    departedAtMs: Date.parse('2024-05-04T12:00:00Z'),
    lastPointAtMs: Date.parse('2024-05-04T12:32:00Z'),
    timeZone: 'Europe/Zurich',
  };
  const oneRide: TaskObject[] = [{ type: 'trip', id: 7 }];

  it('say what the upload made from a damaged file in words', () => {
    const cut = warningWords({ code: RideFileWarningCode.TRUNCATED, message: 'cut at byte 849' }, ride);
    expect(succeeded(oneRide, [cut]).message).toBe(
      'Created 1 ride from a file that ends early: the ride was read up to 14:32',
    );
    const crc = warningWords({ code: RideFileWarningCode.BAD_CRC, message: 'CRC 0x1234' }, ride);
    const skipped = warningWords({ code: RideFileWarningCode.SKIPPED_DATA, message: '12 bytes' }, ride);
    expect(succeeded(oneRide, [crc, skipped]).message).toBe(
      'Created 1 ride from a file with 2 problems. This file is damaged (its checksum does not match its ' +
        'content): the ride shows what could be read. Parts of this file could not be read and were ' +
        'skipped: the ride shows the rest',
    );
    expect(succeeded(oneRide).message).toBe('Created 1 ride from upload');
  });

  it('property: a failed upload says why in words, never led by its code, which programs get apart', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.values(RideFileErrorCode)), fc.string(), (code, message) => {
        fc.pre(!message.includes(code));
        const outcome = unreadable(code, message);
        expect(outcome.errorCode).toBe(code);
        expect(outcome.message).not.toMatch(CODE_AT_START);
        expect(outcome.message).not.toContain(code);
        expect(outcome.message.startsWith('Could not read the file: ')).toBe(true);
      }),
    );
  });

  it('property: a damaged upload names no code, whatever the warnings and their messages', () => {
    const codes = Object.values(RideFileWarningCode);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...codes), { minLength: 1, maxLength: codes.length }),
        fc.string(),
        fc.array(fc.constantFrom<TaskObject>({ type: 'trip', id: 1 }, { type: 'route', id: 2 }), {
          minLength: 1,
          maxLength: 4,
        }),
        (warned, message, objects) => {
          const said = warned.map((code) => warningWords({ code, message }, ride));
          const outcome = succeeded(objects, said);
          expect(outcome.errorCode).toBeNull();
          expect(outcome.message).toMatch(/^Created \d+ (rides?|routes?)( and \d+ routes?)? from a /);
          expect(outcome.message).not.toContain('RIDEFILE_');
          expect(outcome.message).not.toMatch(/\.$/);
        },
      ),
    );
  });
});

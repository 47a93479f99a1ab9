/**
 * A full disk (issue 17, "Faults said in words") against a real server on a real socket, its data
 * directory on a small tmpfs mounted for the test: writes answer 507 with words on every interface,
 * reads keep working, a task whose rides cannot be written waits for space instead of failing, and
 * when space is freed everything goes on by itself with the database intact. Mounting needs root
 * (CI runs as root); elsewhere the tests say that they skipped.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gpxRide } from '../../sync/src/test-support/rides.js';
import { buildServer } from './app.js';
import { DISK_FULL_PROBLEM } from './disk-full.js';
import { TASK_MESSAGES } from './store/index.js';
import {
  databaseChecks,
  mountSmallDisk,
  smallDiskUnavailable,
  truncateLog,
  type SmallDisk,
} from './test-support/small-disk.js';

const skipReason = smallDiskUnavailable();
if (skipReason !== null) console.warn(`[disk full] SKIPPED, ${skipReason}`);

const DISK_BYTES = 32 * 1024 * 1024;

interface Account {
  apiKey: string;
  authToken: string;
  clientSecret: string;
  oauthToken: string;
}

interface TaskStatus {
  id: number;
  status: -1 | 0 | 1;
  message: string;
  associated_objects: { type: string; trip?: { id: number } }[];
}

let disk: SmallDisk;
let databasePath: string;
let app: FastifyInstance | undefined;
let url: string;
/** the server's clock runs ahead of the real one by this much (to pass the last-use touch interval) */
let clockAheadMs = 0;
const warnings: string[] = [];
const onWarning = (warning: Error): void => {
  warnings.push(warning.message);
};

beforeEach(() => {
  if (skipReason !== null) return;
  disk = mountSmallDisk(DISK_BYTES);
  databasePath = join(disk.path, 'rideport.sqlite');
  clockAheadMs = 0;
  warnings.length = 0;
  process.on('warning', onWarning);
});

afterEach(async () => {
  if (skipReason !== null) return;
  process.off('warning', onWarning);
  await app?.close();
  app = undefined;
  disk.remove();
});

/** The server on the small disk, built (and its account made) but not yet listening. */
async function buildOnSmallDisk(): Promise<{ server: FastifyInstance; account: Account; userId: number }> {
  const server = await buildServer({
    databasePath,
    baseUrl: 'http://rideport.test',
    clock: () => Date.now() + clockAheadMs,
    // A short lease: a task that the queue forgot (as before issue 17) would be claimed again soon.
    queue: { workers: 1, leaseMs: 2000 },
  });
  app = server;
  const { store } = server.rideport;
  const user = await store.users.createPerson({ email: 'anna@example.com', password: 'correct horse 1' });
  const client = await store.apiClients.create(user.id, { name: 'Ride Planner', redirectUris: [] });
  const { token } = await store.authTokens.issue(user.id, client.id);
  const oauth = await store.oauth.issueToken(client.id, user.id, null, 'user');
  return {
    server,
    userId: user.id,
    account: {
      apiKey: client.apiKey,
      authToken: token,
      clientSecret: store.apiClients.secretOf(client),
      oauthToken: oauth.token,
    },
  };
}

async function listen(server: FastifyInstance): Promise<void> {
  url = await server.listen({ host: '127.0.0.1', port: 0 });
}

function userHeaders(account: Account): Record<string, string> {
  return { 'x-service-api-key': account.apiKey, 'x-service-auth-token': account.authToken };
}

async function upload(account: Account, seed: number, points: number): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([gpxRide(seed, points)]), `ride-${seed}.gpx`);
  const query = new URLSearchParams({ apikey: account.apiKey, auth_token: account.authToken });
  return fetch(`${url}/trips.json?${query}`, { method: 'POST', body: form });
}

async function taskStatus(account: Account, taskId: number): Promise<TaskStatus> {
  const query = new URLSearchParams({
    apikey: account.apiKey,
    auth_token: account.authToken,
    ids: String(taskId),
    include_objects: 'true',
  });
  const response = await fetch(`${url}/queued_tasks/status.json?${query}`);
  expect(response.status).toBe(200);
  const { queued_tasks: tasks } = (await response.json()) as { queued_tasks: TaskStatus[] };
  return tasks[0]!;
}

/** Polls the task until `done` says so; every status seen on the way is kept in `seen`. */
async function pollTask(
  account: Account,
  taskId: number,
  done: (task: TaskStatus) => boolean,
  seen: TaskStatus[] = [],
): Promise<TaskStatus> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    const task = await taskStatus(account, taskId);
    seen.push(task);
    if (done(task)) return task;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} did not get there: ${JSON.stringify(seen.at(-1))}`);
}

function expectIntactDatabase(): void {
  expect(databaseChecks(databasePath)).toEqual({ integrity: ['ok'], foreignKeyProblems: 0 });
  // Background checkpoints waited for space instead of stopping for good (db/checkpointer.ts).
  expect(warnings.filter((warning) => warning.includes('background checkpoints'))).toEqual([]);
}

describe.skipIf(skipReason !== null)('a full disk, on a real server over a real socket', () => {
  it('answers every write 507 in words, keeps answering reads, and takes writes again once space is freed', async () => {
    const { server, account } = await buildOnSmallDisk();
    await listen(server);
    const first = await upload(account, 1, 200);
    expect(first.status).toBe(200);
    const { task_id: firstTask } = (await first.json()) as { task_id: number };
    const stored = await pollTask(account, firstTask, (task) => task.status !== 0);
    expect(stored).toMatchObject({ status: 1 });
    const tripId = stored.associated_objects[0]!.trip!.id;

    truncateLog(databasePath);
    disk.fill();

    // Legacy: the upload is refused in words, not with "internal server error".
    const refused = await upload(account, 2, 2000);
    expect(refused.status).toBe(507);
    expect(await refused.json()).toEqual({ error: DISK_FULL_PROBLEM });
    // v1: deleting a trip and signing in are writes too.
    const deleting = await fetch(`${url}/api/v1/trips/${tripId}.json`, {
      method: 'DELETE',
      headers: userHeaders(account),
    });
    expect(deleting.status).toBe(507);
    expect(await deleting.json()).toEqual({
      errors: [DISK_FULL_PROBLEM],
      error_codes: ['SERVER_INSUFFICIENT_STORAGE'],
    });
    const signIn = await fetch(`${url}/api/v1/auth_tokens.json`, {
      method: 'POST',
      headers: { 'x-service-api-key': account.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ user: { email: 'anna@example.com', password: 'correct horse 1' } }),
    });
    expect(signIn.status).toBe(507);
    expect(await signIn.json()).toEqual({
      errors: [DISK_FULL_PROBLEM],
      error_codes: ['SERVER_INSUFFICIENT_STORAGE'],
    });
    // OAuth: revoking a token.
    const revoking = await fetch(`${url}/oauth/revoke.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: account.apiKey,
        client_secret: account.clientSecret,
        token: account.oauthToken,
      }),
    });
    expect(revoking.status).toBe(507);
    expect(await revoking.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: DISK_FULL_PROBLEM,
      errors: [DISK_FULL_PROBLEM],
    });

    // Reads go on, even when they would move the auth token's last use (a write that waits).
    clockAheadMs = 5 * 60 * 1000;
    const list = await fetch(`${url}/api/v1/trips.json`, { headers: userHeaders(account) });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { trips: { id: number }[] }).trips.map((trip) => trip.id)).toEqual([
      tripId,
    ]);
    expect(await taskStatus(account, firstTask)).toMatchObject({ status: 1 });

    disk.free();
    const again = await upload(account, 2, 2000);
    expect(again.status).toBe(200);
    const { task_id: secondTask } = (await again.json()) as { task_id: number };
    expect(await pollTask(account, secondTask, (task) => task.status !== 0)).toMatchObject({
      status: 1,
      message: 'Created 1 ride from upload',
    });
    const deleted = await fetch(`${url}/api/v1/trips/${tripId}.json`, {
      method: 'DELETE',
      headers: userHeaders(account),
    });
    expect(deleted.status).toBe(204);

    await server.close();
    app = undefined;
    expectIntactDatabase();
  });

  it('keeps a task whose rides cannot be written waiting for space, never failing it, and stores them once there is space', async () => {
    const { server, account, userId } = await buildOnSmallDisk();
    // The upload was accepted while there was space (legacy/upload-intake.ts stores it so), before the
    // queue, which starts when the server listens, got to it.
    const bytes = Buffer.from(gpxRide(3, 20_000));
    const taskId = await server.rideport.store.tasks.create({
      userId,
      apiClientId: null,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      filename: 'ride-3.gpx',
      bytes,
      metadata: {},
    });
    truncateLog(databasePath);
    // Room for the queue to claim the task and give it back, not for the ride's thousands of points.
    disk.fill(128 * 1024);
    await listen(server);

    const seen: TaskStatus[] = [];
    await pollTask(account, taskId, (task) => task.message === TASK_MESSAGES.waitingForSpace, seen);
    // A few more tries of the queue while the disk stays full (it waits 1 s, then 2 s, …).
    const fullUntil = Date.now() + 3500;
    await pollTask(account, taskId, () => Date.now() > fullUntil, seen);
    expect(seen.filter((task) => task.status !== 0)).toEqual([]);

    disk.free();
    const done = await pollTask(account, taskId, (task) => task.status !== 0, seen);
    expect(done).toMatchObject({ status: 1, message: 'Created 1 ride from upload' });
    const trip = await fetch(`${url}/api/v1/trips/${done.associated_objects[0]!.trip!.id}.json`, {
      headers: userHeaders(account),
    });
    expect(trip.status).toBe(200);
    const record = (await trip.json()) as { trip: { track_points: unknown[] } };
    expect(record.trip.track_points).toHaveLength(20_000);

    await server.close();
    app = undefined;
    expectIntactDatabase();
  });
});

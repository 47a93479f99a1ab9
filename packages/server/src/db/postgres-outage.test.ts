/**
 * A server on PostgreSQL when its database goes away and comes back (issue 18; issue 17, "Faults said
 * in words"), on a real server over a real socket and a throwaway cluster of its own: connections the
 * database ends do not end the server; while the database is down every interface answers 503 in words
 * with Retry-After, nothing about the inside; once it is back, requests and uploads go on by themselves.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpxRide } from '../../../sync/src/test-support/rides.js';
import { buildServer } from '../app.js';
import { newMasterKey } from '../security/secrets.js';
import { DATABASE_UNREACHABLE_PROBLEM, DATABASE_UNREACHABLE_RETRY_SECONDS } from '../storage-fault.js';
import { ownPostgresCluster, type PostgresCluster } from '../test-support/postgres-cluster.js';

const ownCluster = ownPostgresCluster('PostgreSQL outage tests');

let cluster: PostgresCluster | undefined;
let server: FastifyInstance | undefined;
let url: string;
let headers: Record<string, string>;
let legacyQuery: string;
/** the server's log, one JSON line each */
const logLines: string[] = [];

/** What the server's log said, message by message. */
const logged = (): string[] => logLines.map((line) => (JSON.parse(line) as { msg: string }).msg);
/** What the upload queue says when the database goes away and comes back. */
const QUEUE_SAID = {
  began: 'upload queue: the database cannot be reached; uploads wait until it can',
  passed: 'upload queue: the database can be reached again; waiting uploads go on',
};

/** Errors that reached the process's top: a connection's 'error' event that nobody heard ends up here. */
const uncaught: unknown[] = [];
const onUncaught = (error: unknown): void => {
  uncaught.push(error);
};

describe.skipIf(ownCluster.skipped !== null)('a server on PostgreSQL whose database goes away', () => {
  beforeAll(async () => {
    cluster = await ownCluster.start();
    const admin = new pg.Client({ connectionString: cluster.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE rideport');
    await admin.end();
    server = await buildServer({
      databasePath: ':memory:',
      databaseUrl: cluster.url('rideport'),
      masterKey: newMasterKey(),
      baseUrl: 'http://rideport.test',
      queue: { workers: 1 },
      logger: { level: 'info', stream: { write: (line: string) => void logLines.push(line) } },
    });
    const { store } = server.rideport;
    const user = await store.users.createPerson({ email: 'anna@example.com', password: 'correct horse 1' });
    const client = await store.apiClients.create(user.id, { name: 'Ride Planner', redirectUris: [] });
    const { token } = await store.authTokens.issue(user.id, client.id);
    headers = { 'x-service-api-key': client.apiKey, 'x-service-auth-token': token };
    legacyQuery = new URLSearchParams({ apikey: client.apiKey, auth_token: token }).toString();
    url = await server.listen({ host: '127.0.0.1', port: 0 });
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
  }, 60_000);
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    await server?.close();
    cluster?.stop();
  });

  const trips = (): Promise<Response> => fetch(`${url}/api/v1/trips.json`, { headers });

  async function upload(seed: number, points = 300): Promise<Response> {
    const form = new FormData();
    form.append('file', new Blob([gpxRide(seed, points)]), `ride-${seed}.gpx`);
    return fetch(`${url}/trips.json?${legacyQuery}`, { method: 'POST', body: form });
  }

  /** The task's status once it has ended, asked again while the server reconnects. */
  async function endedTask(taskId: number, withinMs = 30_000): Promise<{ status: number; message: string }> {
    for (let waited = 0; waited < withinMs; waited += 100) {
      const response = await fetch(`${url}/queued_tasks/status.json?${legacyQuery}&ids=${taskId}`);
      if (response.status === 200) {
        const { queued_tasks: tasks } = (await response.json()) as {
          queued_tasks: { status: number; message: string }[];
        };
        if (tasks[0]!.status !== 0) return tasks[0]!;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`task ${taskId} did not end`);
  }

  it("survives the database ending the server's connections, idle or in use, and opens others", async () => {
    expect((await trips()).status).toBe(200);
    // A connection in use when it is ended: its transaction fails, and nothing else.
    const inUse = server!.rideport.store.transaction((trx) => sql`SELECT pg_sleep(10)`.execute(trx));
    const settled = inUse.then(
      () => 'finished',
      (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const admin = new pg.Client({ connectionString: cluster!.url('postgres') });
    await admin.connect();
    const { rows } = await admin.query<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
       WHERE datname = 'rideport' AND pid <> pg_backend_pid()`,
    );
    await admin.end();
    expect(rows.length).toBeGreaterThan(1);
    // PostgreSQL's own words ("terminating connection due to administrator command") or pg's ("Connection
    // terminated unexpectedly"), whichever comes first.
    expect(await settled).toMatch(/^DatabaseUnreachableError: lost the connection to the database: /);
    // The pool hears its idle connections die (an 'error' event each), which must not end the process.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(uncaught).toEqual([]);
    expect((await trips()).status).toBe(200);
  });

  it('answers 503 in words while the database is down, on every interface, and goes on when it is back', async () => {
    const before = await upload(1);
    expect(before.status).toBe(200);
    expect(await endedTask(((await before.json()) as { task_id: number }).task_id)).toMatchObject({
      status: 1,
    });

    logLines.length = 0;
    cluster!.pause();
    try {
      const v1 = await trips();
      expect(v1.status).toBe(503);
      expect(v1.headers.get('retry-after')).toBe(String(DATABASE_UNREACHABLE_RETRY_SECONDS));
      expect(await v1.json()).toMatchObject({ errors: [DATABASE_UNREACHABLE_PROBLEM] });

      const legacy = await upload(2);
      expect(legacy.status).toBe(503);
      expect(legacy.headers.get('retry-after')).toBe(String(DATABASE_UNREACHABLE_RETRY_SECONDS));
      expect(await legacy.json()).toEqual({ error: DATABASE_UNREACHABLE_PROBLEM });

      const token = await fetch(`${url}/oauth/token.json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'authorization_code',
          code: 'x',
          client_id: headers['x-service-api-key'],
          client_secret: 'y',
        }),
      });
      expect(token.status).toBe(503);
      expect(await token.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: DATABASE_UNREACHABLE_PROBLEM,
        errors: [DATABASE_UNREACHABLE_PROBLEM],
      });

      const page = await fetch(`${url}/sign-in/link?token=unknown`);
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain(DATABASE_UNREACHABLE_PROBLEM);
      // The queue's polling claims find the outage, said once, and not as an error per request.
      await expect.poll(logged, { timeout: 10_000 }).toContain(QUEUE_SAID.began);
      expect(logLines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
    } finally {
      cluster!.resume();
    }
    // ...and its end, with no upload waiting: the queue is back to its full width before the next one.
    await expect.poll(logged, { timeout: 10_000 }).toContain(QUEUE_SAID.passed);

    // Back: the same upload is taken and read, and the first ride is still there once.
    const after = await upload(2);
    expect(after.status).toBe(200);
    expect(await endedTask(((await after.json()) as { task_id: number }).task_id)).toMatchObject({
      status: 1,
    });
    const list = await trips();
    expect(list.status).toBe(200);
    const { trips: stored } = (await list.json()) as { trips: { id: number }[] };
    expect(stored).toHaveLength(2);
    expect(uncaught).toEqual([]);
  }, 60_000);

  it('keeps a file being read when the database goes away, and stores it once the database is back', async () => {
    logLines.length = 0;
    // Large enough that it is still being read when the database stops.
    const response = await upload(3, 100_000);
    expect(response.status).toBe(200);
    const { task_id: taskId } = (await response.json()) as { task_id: number };
    cluster!.pause();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      cluster!.resume();
    }
    // Given back without counting an attempt, and claimed again within seconds of the database's
    // return: not after its lease (30 s), nor failed as "the server stopped while reading it".
    expect(await endedTask(taskId, 15_000)).toMatchObject({ status: 1 });
    const said = logged();
    expect(said).toContain(QUEUE_SAID.began);
    expect(said).toContain(QUEUE_SAID.passed);
    expect(said.filter((msg) => /task failed/.test(msg))).toEqual([]);
    expect(uncaught).toEqual([]);
  }, 60_000);
});

/**
 * Three server processes on one PostgreSQL database (issue 18, "A multi-process test"): 60 distinct
 * uploads spread over them, with a short lease, and one node SIGKILLed while it holds a lease and
 * while it is the webhook dispatcher, in the middle of a slow delivery. Then: every task ends exactly
 * once, every file's ride is stored once, each ride has one task object, one "created" change and one
 * outbox row; the receiver gets every ride's notification in exactly one delivery, and a delivery sent
 * again (by the node that took over) has its id and body unchanged. Last, the same bytes sent to two
 * nodes at once make one ride and one duplicate.
 *
 * On SQLite one server runs on a database (issue 17), so this runs in the PostgreSQL run only.
 */
import { afterEach, expect, it } from 'vitest';
import type { WebhookOptions } from './options.js';
import { openPlatform, type Platform } from './platform.js';
import { startServerProcess, type ChildServer } from './test-support/child-server.js';
import { databaseOptions } from './test-support/database-options.js';
import { onPostgres, reopenableDatabase } from './test-support/test-database.js';
import { notificationsOf, waitUntil, WebhookReceiver } from './test-support/webhook-receiver.js';

const BASE_URL = 'http://rideport.test';
const UPLOADS = 60;

const WEBHOOKS: Partial<WebhookOptions> = {
  allowPrivateTargets: true,
  pollIntervalMs: 20,
  batchWindowMs: 50,
  backoffBaseMs: 100,
  backoffCapMs: 300,
};
/** A short lease, so that the killed node's task is claimed again soon; renewed every third of it. */
const QUEUE = { workers: 1, leaseMs: 1500 };

const children: ChildServer[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) await child.kill();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startNode(database: string): Promise<ChildServer> {
  const child = await startServerProcess(database, { baseUrl: BASE_URL, webhooks: WEBHOOKS, queue: QUEUE });
  children.push(child);
  return child;
}

/**
 * A GPX ride of its own (`index` moves its day and place, so no two are one recording), long enough
 * (2,000 points) that reading it keeps a worker busy for a while.
 */
function gpxRide(index: number): string {
  const start = Date.parse('2025-04-01T07:00:00Z') + index * 86_400_000;
  const points: string[] = [];
  for (let second = 0; second < 2000; second++) {
    const time = new Date(start + second * 1000).toISOString();
    const lat = (46 + index * 0.01 + second * 0.00003).toFixed(6);
    points.push(
      `<trkpt lat="${lat}" lon="7.5"><ele>${500 + (second % 50)}</ele><time>${time}</time></trkpt>`,
    );
  }
  return `<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Ride ${index}</name><trkseg>${points.join('')}</trkseg></trk></gpx>`;
}

async function upload(base: string, query: string, name: string, text: string): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([text]), name);
  const response = await fetch(`${base}/trips.json?${query}`, { method: 'POST', body: form });
  const answer = (await response.json()) as { task_id?: unknown };
  if (typeof answer.task_id !== 'number') throw new Error(`not accepted: ${JSON.stringify(answer)}`);
  return answer.task_id;
}

it.runIf(onPostgres)(
  'three servers, one killed while it holds a lease and delivers: every upload and notification once',
  { timeout: 180_000 },
  async () => {
    const database = await reopenableDatabase();
    cleanups.push(() => {
      database.remove();
    });
    const receiver = await WebhookReceiver.start();
    cleanups.push(() => receiver.down());
    // Slow answers: a node killed while it delivers is mid-request.
    let lastReceivedAt = 0;
    receiver.respond = () => {
      lastReceivedAt = Date.now();
      return { status: 200, delayMs: 300 };
    };
    const platform: Platform = await openPlatform({
      ...databaseOptions(database.location),
      baseUrl: BASE_URL,
    });
    cleanups.push(() => platform.close());
    const { store } = platform;
    const rider = await store.users.createPerson({
      email: 'team@example.com',
      password: 'correct horse',
      name: 'Team',
    });
    const client = await store.apiClients.create(rider.id, {
      name: 'Team app',
      webhookUrl: receiver.url(),
      webhookAssets: ['trip'],
    });
    const { token } = await store.authTokens.issue(rider.id, client.id);
    const query = new URLSearchParams({ apikey: client.apiKey, auth_token: token }).toString();
    const db = store.transaction.bind(store);
    const unfinishedOwners = (): Promise<string[]> =>
      db(async (trx) =>
        (
          await trx
            .selectFrom('queued_tasks')
            .select('lease_owner')
            .where('status', '=', 0)
            .where('lease_owner', 'is not', null)
            .execute()
        ).map((row) => row.lease_owner!),
      );

    // Node A alone first: the leases it takes name its queue (owner "<queue>/<claim>").
    const nodeA = await startNode(database.location);
    const tasks: number[] = [];
    for (let index = 0; index < UPLOADS / 3; index++) {
      tasks.push(await upload(nodeA.url, query, `a-${index}.gpx`, gpxRide(index)));
    }
    let queueOfA = '';
    await waitUntil(async () => {
      const [owner] = await unfinishedOwners();
      queueOfA = owner?.split('/')[0] ?? '';
      return queueOfA !== '';
    }, 'node A to claim a task');

    // Nodes B and C join; the other 40 uploads go to them, at once.
    const [nodeB, nodeC] = await Promise.all([startNode(database.location), startNode(database.location)]);
    tasks.push(
      ...(await Promise.all(
        Array.from({ length: (UPLOADS * 2) / 3 }, (_, offset) => {
          const index = UPLOADS / 3 + offset;
          const node = offset % 2 === 0 ? nodeB : nodeC;
          return upload(node.url, query, `bc-${index}.gpx`, gpxRide(index));
        }),
      )),
    );

    // Node A is stopped (SIGSTOP) and looked at: once it holds a lease and a delivery is under way,
    // it is killed; otherwise it goes on and is looked at again.
    let killedHolding: string[] = [];
    await waitUntil(
      async () => {
        nodeA.process.kill('SIGSTOP');
        const held = (await unfinishedOwners()).filter((owner) => owner.startsWith(`${queueOfA}/`));
        // Only the dispatcher delivers, and A took that role first: a request still unanswered is A's.
        const delivering = Date.now() - lastReceivedAt < 200;
        if (held.length > 0 && delivering) {
          nodeA.process.kill('SIGKILL');
          killedHolding = held;
          return true;
        }
        nodeA.process.kill('SIGCONT');
        await new Promise((resolve) => setTimeout(resolve, 10));
        return false;
      },
      'node A to hold a lease while it delivers',
      60_000,
    );
    expect(killedHolding.length).toBeGreaterThan(0);

    // Every task ends; its ride is stored once.
    await waitUntil(
      async () =>
        (await db((trx) => trx.selectFrom('queued_tasks').select('id').where('status', '=', 0).execute()))
          .length === 0,
      'every task to end',
      120_000,
    );
    const ended = await db((trx) =>
      trx
        .selectFrom('queued_tasks')
        .select(['id', 'status', 'response_code', 'attempts'])
        .orderBy('id')
        .execute(),
    );
    expect(ended.map((task) => task.id)).toEqual([...tasks].sort((a, b) => a - b));
    expect(ended.every((task) => task.status === 1 && task.response_code === 'success')).toBe(true);
    // The task A held was claimed again after its lease ran out: its second attempt.
    expect(ended.some((task) => task.attempts === 2)).toBe(true);

    const trips = await db((trx) => trx.selectFrom('trips').select(['id', 'name']).execute());
    expect(trips).toHaveLength(UPLOADS);
    expect(new Set(trips.map((trip) => trip.name)).size).toBe(UPLOADS);
    const objects = await db((trx) =>
      trx.selectFrom('task_objects').select(['task_id', 'asset_id']).execute(),
    );
    expect(objects).toHaveLength(UPLOADS);
    expect(new Set(objects.map((object) => object.task_id)).size).toBe(UPLOADS);
    expect(new Set(objects.map((object) => object.asset_id))).toEqual(new Set(trips.map((trip) => trip.id)));
    const created = await db((trx) =>
      trx.selectFrom('asset_changes').select('item_id').where('action', '=', 'created').execute(),
    );
    expect(created.map((row) => row.item_id).sort((a, b) => a - b)).toEqual(
      trips.map((trip) => trip.id).sort((a, b) => a - b),
    );
    const outbox = await db((trx) =>
      trx
        .selectFrom('webhook_outbox')
        .select(['item_id', 'delivery_id'])
        .where('action', '=', 'created')
        .execute(),
    );
    expect(outbox.map((row) => row.item_id).sort((a, b) => a - b)).toEqual(
      trips.map((trip) => trip.id).sort((a, b) => a - b),
    );

    // Every ride's notification arrives, in one delivery; the one A was sending when it was killed is
    // sent again by the node that took over, with the same id and the same bytes.
    await receiver.waitFor(
      () => {
        const delivered = new Set(
          receiver.requests.flatMap((request) => notificationsOf(request).map((n) => n.item_id)),
        );
        return trips.every((trip) => delivered.has(trip.id));
      },
      "every ride's notification",
      60_000,
    );
    const bodies = new Map<string, string>();
    const deliveryOf = new Map<number, string>();
    for (const request of receiver.requests) {
      const id = String(request.headers['x-service-delivery']);
      const body = request.body.toString('utf8');
      expect(bodies.get(id) ?? body).toBe(body);
      bodies.set(id, body);
      for (const notification of notificationsOf(request)) {
        expect(deliveryOf.get(notification.item_id) ?? id).toBe(id);
        deliveryOf.set(notification.item_id, id);
      }
    }

    const ids = receiver.requests.map((request) => String(request.headers['x-service-delivery']));
    expect(ids.length).toBeGreaterThan(new Set(ids).size);

    // The same bytes to two nodes at once: one ride, one duplicate.
    const twin = gpxRide(UPLOADS + 1);
    const pair = await Promise.all([
      upload(nodeB.url, query, 'twin.gpx', twin),
      upload(nodeC.url, query, 'twin.gpx', twin),
    ]);
    await waitUntil(
      async () =>
        (
          await db((trx) =>
            trx
              .selectFrom('queued_tasks')
              .select('id')
              .where('id', 'in', pair)
              .where('status', '=', 0)
              .execute(),
          )
        ).length === 0,
      'both uploads of the same bytes to end',
    );
    const outcomes = await db((trx) =>
      trx.selectFrom('queued_tasks').select('response_code').where('id', 'in', pair).execute(),
    );
    expect(outcomes.map((task) => task.response_code).sort()).toEqual(['duplicate', 'success']);
    expect(await db((trx) => trx.selectFrom('trips').select('id').execute())).toHaveLength(UPLOADS + 1);
  },
);

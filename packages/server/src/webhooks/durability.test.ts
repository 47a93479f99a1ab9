/**
 * Durability for real (issue 5: "server killed with undelivered outbox rows → delivered after
 * restart"): a server in a child process on a database file, its receiver down, is SIGKILLed with
 * notifications undelivered; a new server on the same file, with the receiver up, delivers them all,
 * in order, in the same deliveries (the same x-service-delivery) the first one had begun.
 */
import type { Track } from '@rideport/ridefile';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import type { WebhookOptions } from '../options.js';
import { openPlatform, type Platform } from '../platform.js';
import { onlyTrack } from '../test-support/assets.js';
import { startServerProcess, type ChildServer } from '../test-support/child-server.js';
import { databaseOptions } from '../test-support/database-options.js';
import { reopenableDatabase } from '../test-support/test-database.js';
import {
  notificationsOf,
  waitUntil,
  WebhookReceiver,
  type ReceivedRequest,
} from '../test-support/webhook-receiver.js';

const BASE_URL = 'http://rideport.test';

const WEBHOOKS: Partial<WebhookOptions> = {
  allowPrivateTargets: true,
  pollIntervalMs: 20,
  batchWindowMs: 100,
  backoffBaseMs: 100,
  backoffCapMs: 300,
};

let database: { location: string; remove(): void };
let receiver: WebhookReceiver;
const children: ChildServer[] = [];

beforeEach(async () => {
  database = await reopenableDatabase();
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  for (const child of children.splice(0)) await child.kill();
  await receiver.down();
  database.remove();
});

async function startServer(databasePath: string): Promise<ChildServer> {
  const child = await startServerProcess(databasePath, { baseUrl: BASE_URL, webhooks: WEBHOOKS });
  children.push(child);
  return child;
}

// Two servers start from TypeScript sources (tsx): allow for a slow machine.
it(
  'delivers after a restart what a killed server left undelivered, in order, in the same deliveries',
  { timeout: 120_000 },
  async () => {
    const databasePath = database.location;
    const ride = (): Track => onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
    // Arranged through the data-access layer on the same file (WAL: the servers run beside it).
    const platform: Platform = await openPlatform({ ...databaseOptions(databasePath), baseUrl: BASE_URL });
    try {
      const { store } = platform;
      const rider = await store.users.createPerson({
        email: 'anna@example.com',
        password: 'correct horse',
        name: 'Anna',
      });
      const client = await store.apiClients.create(rider.id, { name: 'Hooked', webhookUrl: receiver.url() });
      const { token } = await store.authTokens.issue(rider.id, client.id);
      const trips: number[] = [];
      for (let i = 0; i < 3; i++) trips.push((await store.assets.createFromTrack(rider.id, ride())).row.id);
      await receiver.down();

      // The first server: the receiver is down, so nothing can be delivered.
      const first = await startServer(databasePath);
      // A change through the first server's own API: its outbox row is written by that process.
      const deleted = await fetch(`${first.url}/api/v1/trips/${trips[0]}.json`, {
        method: 'DELETE',
        headers: { 'x-service-api-key': client.apiKey, 'x-service-auth-token': token },
      });
      expect(deleted.status).toBe(204);
      await waitUntil(
        async () => (await store.webhooks.recentAttempts(client.id, 10)).length >= 2,
        'failed attempts by the first server',
      );
      await first.kill();
      expect(first.process.signalCode).toBe('SIGKILL');

      const outbox = await store.webhooks.outboxOf(client.id);
      expect(outbox).toHaveLength(4);
      expect(outbox.every((row) => row.delivered_at === null && row.failed_at === null)).toBe(true);
      const begun = outbox[0]!.delivery_id;
      expect(begun).not.toBeNull();
      const failedAttempts = await store.webhooks.recentAttempts(client.id, 100);
      expect(failedAttempts.every((attempt) => attempt.error?.includes('ECONNREFUSED'))).toBe(true);

      // The second server, on the same file, with the receiver up.
      await receiver.up();
      const second = await startServer(databasePath);
      await waitUntil(
        async () => (await store.webhooks.pendingCount(client.id)) === 0,
        'everything delivered',
      );
      await second.stop();

      const deliveries = new Map<string, ReceivedRequest>();
      for (const request of receiver.requests) {
        const id = request.headers['x-service-delivery'] as string;
        // A delivery id always stands for the same notifications: repeats can be dropped by it.
        expect(request.body.equals(deliveries.get(id)?.body ?? request.body)).toBe(true);
        if (!deliveries.has(id)) deliveries.set(id, request);
      }
      // The batch the killed server had begun went out under its id.
      expect(receiver.requests[0]!.headers['x-service-delivery']).toBe(begun);
      const received = [...deliveries.values()]
        .flatMap(notificationsOf)
        .map((each) => `${each.item_type} ${each.item_id} ${each.action}`);
      expect(received).toEqual([
        `trip ${trips[0]} created`,
        `trip ${trips[1]} created`,
        `trip ${trips[2]} created`,
        `trip ${trips[0]} deleted`,
      ]);
      expect((await store.webhooks.outboxOf(client.id)).every((row) => row.delivered_at !== null)).toBe(true);
    } finally {
      await platform.close();
    }
  },
);

/**
 * The webhook dispatcher against a real receiver on loopback (issue 5, "Webhooks"): what is sent and
 * how it is signed, batching, order and completeness across outages, timeouts, redirects, refused
 * targets and giving up. Waits poll generously; nothing asserts how long anything took.
 */
import { createHmac } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import type { Track } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import type { WebhookOptions } from '../options.js';
import type { ApiClient, DeliveryLogRow } from '../store/index.js';
import { onlyTrack } from '../test-support/assets.js';
import { databaseOptions } from '../test-support/database-options.js';
import { BASE_URL, createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';
import { onPostgres, reopenableDatabase } from '../test-support/test-database.js';
import {
  notificationsOf,
  waitUntil,
  WebhookReceiver,
  type ReceivedRequest,
} from '../test-support/webhook-receiver.js';
import type { Notification } from './index.js';

/** Short timings so that retries happen within a test; the real defaults are in options.ts. */
const FAST: Partial<WebhookOptions> = {
  allowPrivateTargets: true,
  pollIntervalMs: 20,
  batchWindowMs: 100,
  backoffBaseMs: 50,
  backoffCapMs: 200,
};

const ride = (): Track => onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');

let receiver: WebhookReceiver;
let servers: TestServer[];

beforeEach(async () => {
  receiver = await WebhookReceiver.start();
  servers = [];
});
afterEach(async () => {
  for (const server of servers) await server.close();
  await receiver.down();
});

/**
 * A ready (so dispatching) server. On the wall clock unless `manualClock`: then on the test clock,
 * which stands still until the test moves it (the dispatcher compares stored times with that clock).
 */
async function startServer(
  webhooks: Partial<WebhookOptions> = {},
  { manualClock = false, database }: { manualClock?: boolean; database?: string } = {},
): Promise<TestServer> {
  const server = await testServer({
    ...(database === undefined ? {} : databaseOptions(database)),
    webhooks: { ...FAST, ...webhooks },
    ...(manualClock ? {} : { clock: Date.now }),
  });
  servers.push(server);
  await server.app.ready();
  return server;
}

/** An API client of `owner` with a webhook, authorized by `rider` through an auth token. */
async function hookedClient(
  server: TestServer,
  rider: Person,
  webhookUrl: string,
  webhookAssets: Array<'route' | 'trip'> = ['route', 'trip'],
): Promise<ApiClient> {
  const client = await server.store.apiClients.create(rider.id, {
    name: 'Hooked',
    webhookUrl,
    webhookAssets,
  });
  await server.store.authTokens.issue(rider.id, client.id);
  return client;
}

const attemptsOf = (server: TestServer, client: ApiClient): Promise<DeliveryLogRow[]> =>
  server.store.webhooks.recentAttempts(client.id, 1000).then((rows) => rows.reverse());

async function outboxSettled(server: TestServer, client: ApiClient): Promise<boolean> {
  return (await server.store.webhooks.pendingCount(client.id)) === 0;
}

/** Two requests: one delivery sent again, with its id and body unchanged. */
function expectOneDeliveryTwice(requests: readonly ReceivedRequest[]): void {
  expect(requests).toHaveLength(2);
  expect(requests[1]!.headers['x-service-delivery']).toBe(requests[0]!.headers['x-service-delivery']);
  expect(requests[1]!.body.equals(requests[0]!.body)).toBe(true);
}

const key = (notification: Notification): string => `${notification.item_type} ${notification.item_id}`;

/** Each request once, by x-service-delivery (what a receiver that drops repeats keeps). */
function withoutRepeats(requests: readonly ReceivedRequest[]): ReceivedRequest[] {
  const seen = new Map<string, ReceivedRequest>();
  for (const request of requests) {
    const id = request.headers['x-service-delivery'] as string;
    const earlier = seen.get(id);
    if (earlier === undefined) seen.set(id, request);
    // A repeat is the same delivery: the same notifications, byte for byte.
    else expect(request.body.equals(earlier.body)).toBe(true);
  }
  return [...seen.values()];
}

describe('what is sent', () => {
  it('posts the notifications with the documented headers, signed over the raw body', async () => {
    const server = await startServer();
    const rider = await createPerson(server, 'Anna Rider');
    const editor = await createPerson(server, 'Eddie Editor');
    const client = await hookedClient(server, rider, receiver.url());

    const trip = await server.store.assets.createFromTrack(rider.id, ride());
    await server.store.assets.update('trip', trip.row.id, editor.id, { name: 'Morning ride' });
    await server.store.assets.delete('trip', trip.row.id, rider.id);
    await receiver.waitFor(() => receiver.notifications().length >= 3, 'three notifications');

    const request = receiver.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('Rideport-Webhooks/1');
    expect(request.headers['x-service-api-key']).toBe(client.apiKey);
    expect(request.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    const expected = createHmac('sha256', server.store.apiClients.secretOf(client))
      .update(request.body)
      .digest('hex');
    expect(request.headers['x-service-signature']).toBe(expected);
    expect(request.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);

    const url = `${BASE_URL}/api/v1/trips/${trip.row.id}.json`;
    expect(receiver.notifications()).toEqual([
      {
        user_id: rider.id,
        item_type: 'trip',
        item_id: trip.row.id,
        item_user_id: rider.id,
        item_url: url,
        action: 'created',
        collection: null,
      },
      {
        user_id: editor.id,
        item_type: 'trip',
        item_id: trip.row.id,
        item_user_id: rider.id,
        item_url: url,
        action: 'updated',
        collection: null,
      },
      {
        user_id: rider.id,
        item_type: 'trip',
        item_id: trip.row.id,
        item_user_id: rider.id,
        item_url: url,
        action: 'deleted',
        collection: null,
      },
    ]);
    // Every request is signed; the signature is over the bytes as sent (a re-serialisation may differ).
    for (const each of receiver.requests) {
      const signature = createHmac('sha256', server.store.apiClients.secretOf(client)).update(each.body);
      expect(each.headers['x-service-signature']).toBe(signature.digest('hex'));
    }
    await waitUntil(() => outboxSettled(server, client), 'the outbox to settle');
    const attempts = await attemptsOf(server, client);
    expect(attempts.length).toBe(receiver.requests.length);
    expect(attempts.every((attempt) => attempt.status_code === 200 && attempt.error === null)).toBe(true);
    expect(attempts.map((attempt) => attempt.delivery_id)).toEqual(
      receiver.requests.map((each) => each.headers['x-service-delivery']),
    );
  });
});

describe('batching', () => {
  it('sends 150 changes as two requests, of 100 and 50, in order', async () => {
    const server = await startServer();
    const rider = await createPerson(server);
    const client = await hookedClient(server, rider, receiver.url());
    const track = ride();
    // One transaction, as an upload of a file with many rides makes them: all 150 appear at once.
    const created = await server.store.transaction(async (trx) => {
      const ids: number[] = [];
      for (let i = 0; i < 150; i++) {
        ids.push((await server.store.assets.createFromTrack(rider.id, track, {}, trx)).row.id);
      }
      return ids;
    });
    await waitUntil(() => outboxSettled(server, client), 'the outbox to settle');
    expect(receiver.requests.map((request) => notificationsOf(request).length)).toEqual([100, 50]);
    expect(receiver.notifications().map((notification) => notification.item_id)).toEqual(created);
    expect(new Set(receiver.requests.map((request) => request.headers['x-service-delivery'])).size).toBe(2);
  });

  it("waits for the batch window on the server's clock, then sends what gathered in one request", async () => {
    const server = await startServer({ batchWindowMs: 1000 }, { manualClock: true });
    const rider = await createPerson(server);
    const client = await hookedClient(server, rider, receiver.url());
    for (let i = 0; i < 3; i++) await server.store.assets.createFromTrack(rider.id, ride());
    // The clock stands still: the window has not passed, however many polls go by.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toEqual([]);
    server.clock.advance(1000);
    await waitUntil(() => outboxSettled(server, client), 'the outbox to settle');
    expect(receiver.requests.map((request) => notificationsOf(request).length)).toEqual([3]);
  });
});

describe('failures and retries', () => {
  it('delivers everything, in order, after the receiver was down and then failing for a while', async () => {
    const server = await startServer();
    const rider = await createPerson(server);
    const client = await hookedClient(server, rider, receiver.url());
    await receiver.down();

    // Changes in three waves, so that several batches wait behind the first one.
    const expected: string[] = [];
    const trips: number[] = [];
    for (let i = 0; i < 4; i++) {
      const trip = await server.store.assets.createFromTrack(rider.id, ride());
      trips.push(trip.row.id);
      expected.push(`trip ${trip.row.id} created`);
    }
    await waitUntil(async () => (await attemptsOf(server, client)).length >= 3, 'three failed attempts');
    for (const id of trips) {
      await server.store.assets.update('trip', id, rider.id, { name: `Ride ${id}` });
      expected.push(`trip ${id} updated`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const id of trips.slice(0, 2)) {
      await server.store.assets.delete('trip', id, rider.id);
      expected.push(`trip ${id} deleted`);
    }
    await server.store.assets.update('trip', trips[3]!, rider.id, { description: 'again' });
    expected.push(`trip ${trips[3]} updated`);

    // Back up, but answering 503 to its first two requests (so those deliveries arrive twice).
    receiver.respond = (_request, index) => ({ status: index < 2 ? 503 : 200 });
    await receiver.up();
    await waitUntil(() => outboxSettled(server, client), 'the outbox to settle');

    const unique = withoutRepeats(receiver.requests);
    expect(receiver.requests.length).toBe(unique.length + 2);
    // None lost, none doubled, and in the order of the changes (per item, and here for the client too).
    const delivered = unique.flatMap(notificationsOf).map((each) => `${key(each)} ${each.action}`);
    expect(delivered).toEqual(expected);
    expect(unique.length).toBeGreaterThan(1);

    const attempts = await attemptsOf(server, client);
    expect(attempts[0]).toMatchObject({ attempt: 1, status_code: null });
    expect(attempts[0]!.error).toMatch(/ECONNREFUSED/);
    expect(attempts.filter((attempt) => attempt.status_code === 503)).toHaveLength(2);
    // Every attempt of one delivery carries the same id, numbered 1, 2, 3, …
    const byDelivery = new Map<string, number[]>();
    for (const attempt of attempts) {
      byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt.attempt]);
    }
    for (const numbers of byDelivery.values()) expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    const outbox = await server.store.webhooks.outboxOf(client.id);
    expect(outbox.every((row) => row.delivered_at !== null && row.failed_at === null)).toBe(true);
  });

  it('times out a receiver slower than the request timeout and retries the same delivery', async () => {
    const server = await startServer({ requestTimeoutMs: 1000 });
    const rider = await createPerson(server);
    const client = await hookedClient(server, rider, receiver.url());
    receiver.respond = (_request, index) => (index === 0 ? { status: 200, delayMs: 5000 } : { status: 200 });
    await server.store.assets.createFromTrack(rider.id, ride());
    await waitUntil(() => outboxSettled(server, client), 'the outbox to settle');

    const attempts = await attemptsOf(server, client);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status_code, attempt.error])).toEqual([
      [1, null, 'timed out after 1000 ms'],
      [2, 200, null],
    ]);
    expect(attempts[1]!.delivery_id).toBe(attempts[0]!.delivery_id);
    expect(receiver.requests).toHaveLength(2);
    expect(withoutRepeats(receiver.requests)).toHaveLength(1);
  });

  it('does not follow redirects: a 302 is a failed attempt', async () => {
    const server = await startServer();
    const rider = await createPerson(server);
    const client = await hookedClient(server, rider, receiver.url());
    receiver.respond = (request) =>
      request.url === '/hooks'
        ? { status: 302, headers: { location: receiver.url('/elsewhere') } }
        : { status: 200 };
    await server.store.assets.createFromTrack(rider.id, ride());
    await waitUntil(async () => (await attemptsOf(server, client)).length >= 3, 'three attempts');

    expect(receiver.requests.map((request) => request.url)).not.toContain('/elsewhere');
    expect((await attemptsOf(server, client)).every((attempt) => attempt.status_code === 302)).toBe(true);
    const [row] = await server.store.webhooks.outboxOf(client.id);
    expect(row).toMatchObject({ delivered_at: null, failed_at: null, last_error: 'HTTP 302' });

    receiver.respond = () => ({ status: 204 });
    await waitUntil(() => outboxSettled(server, client), 'the outbox to settle');
    expect((await server.store.webhooks.outboxOf(client.id))[0]!.delivered_at).not.toBeNull();
  });

  it("gives up 24 hours after the change and goes on with the client's next batch", async () => {
    const server = await startServer(
      { batchWindowMs: 0, backoffBaseMs: 1000, backoffCapMs: 1000 },
      { manualClock: true },
    );
    const rider = await createPerson(server);
    const client = await hookedClient(server, rider, receiver.url());
    const first = await server.store.assets.createFromTrack(rider.id, ride());
    // The receiver refuses every request about the first trip, and takes the rest.
    receiver.respond = (request) => ({
      status: notificationsOf(request).some((each) => each.item_id === first.row.id) ? 500 : 200,
    });
    await waitUntil(async () => (await attemptsOf(server, client)).length === 1, 'the first attempt');
    const second = await server.store.assets.createFromTrack(rider.id, ride());

    server.clock.advance(1000);
    await waitUntil(async () => (await attemptsOf(server, client)).length === 2, 'the second attempt');
    // The later notification waits behind the failing delivery: nothing overtakes it.
    expect(receiver.notifications().map((each) => each.item_id)).toEqual([first.row.id, first.row.id]);

    // A day later: one last attempt at the deadline, then the first delivery has failed for good.
    server.clock.advance(24 * 60 * 60 * 1000);
    await waitUntil(() => outboxSettled(server, client), 'the outbox to settle');
    const [failed, delivered] = await server.store.webhooks.outboxOf(client.id);
    expect(failed).toMatchObject({
      item_id: first.row.id,
      attempts: 3,
      delivered_at: null,
      last_error: 'HTTP 500',
    });
    expect(failed!.failed_at).not.toBeNull();
    expect(delivered).toMatchObject({ item_id: second.row.id, attempts: 1, failed_at: null });
    expect(delivered!.delivered_at).not.toBeNull();
    expect(receiver.notifications().map((each) => each.item_id)).toEqual([
      first.row.id,
      first.row.id,
      first.row.id,
      second.row.id,
    ]);
  });

  it('drops waiting notifications once the client has no webhook URL any more', async () => {
    const server = await startServer();
    const rider = await createPerson(server);
    const client = await hookedClient(server, rider, receiver.url());
    receiver.respond = () => ({ status: 500 });
    await server.store.assets.createFromTrack(rider.id, ride());
    await waitUntil(async () => (await attemptsOf(server, client)).length >= 1, 'an attempt');
    await server.store.apiClients.update(client.id, { name: client.name, webhookUrl: null });
    await waitUntil(() => outboxSettled(server, client), 'the outbox to settle');
    const last = (await attemptsOf(server, client)).at(-1)!;
    expect(last).toMatchObject({ url: '', status_code: null });
    expect(last.error).toMatch(/no webhook URL is set/);
    expect((await server.store.webhooks.outboxOf(client.id))[0]!.failed_at).not.toBeNull();
  });
});

describe('targets the server refuses', () => {
  /** A resolver with a few made-up names; the rest through the system's. */
  const resolveHost: WebhookOptions['resolveHost'] = (hostname) => {
    const made: Record<string, Array<{ address: string; family: number }>> = {
      'rebind.test': [{ address: '169.254.10.10', family: 4 }],
      'private.test': [{ address: '10.1.2.3', family: 4 }],
      'mixed.test': [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
      'receiver.test': [{ address: '127.0.0.1', family: 4 }],
    };
    return Promise.resolve(made[hostname] ?? lookup(hostname, { all: true }));
  };

  /** One change, one attempt per client; what each client's attempt says. */
  async function firstAttempts(
    server: TestServer,
    urls: readonly string[],
  ): Promise<Map<string, DeliveryLogRow>> {
    const rider = await createPerson(server);
    const clients = await Promise.all(urls.map((url) => hookedClient(server, rider, url)));
    await server.store.assets.createFromTrack(rider.id, ride());
    const attempts = new Map<string, DeliveryLogRow>();
    await waitUntil(async () => {
      for (const client of clients) {
        const [attempt] = await attemptsOf(server, client);
        if (attempt !== undefined) attempts.set(client.webhookUrl!, attempt);
      }
      return attempts.size === clients.length;
    }, 'an attempt for every client');
    return attempts;
  }

  it('refuses link-local, metadata, loopback and private targets when private ones are not allowed', async () => {
    const server = await startServer({ allowPrivateTargets: false, resolveHost });
    const port = receiver.port;
    const expected: Record<string, RegExp> = {
      'http://169.254.169.254/latest/meta-data/': /169\.254\.169\.254 is a cloud metadata address/,
      [`http://[fe80::1]:${port}/hooks`]: /fe80::1 is a link-local address/,
      'http://metadata.google.internal/computeMetadata/v1/':
        /metadata\.google\.internal is a cloud metadata host/,
      'http://[fd00:ec2::254]/latest/meta-data/': /fd00:ec2::254 is a cloud metadata address/,
      [`http://rebind.test:${port}/hooks`]: /rebind\.test: 169\.254\.10\.10 is a link-local address/,
      [receiver.url()]: /127\.0\.0\.1 is a loopback address/,
      [`http://localhost:${port}/hooks`]: /localhost: .* is a loopback address/,
      [`http://[::ffff:127.0.0.1]:${port}/hooks`]: /is a loopback address/,
      [`http://2130706433:${port}/hooks`]: /127\.0\.0\.1 is a loopback address/,
      'http://private.test/hooks': /private\.test: 10\.1\.2\.3 is a private-network address/,
      [`http://mixed.test:${port}/hooks`]: /mixed\.test: 127\.0\.0\.1 is a loopback address/,
    };
    const attempts = await firstAttempts(server, Object.keys(expected));
    for (const [url, message] of Object.entries(expected)) {
      const attempt = attempts.get(url)!;
      expect(attempt.status_code, url).toBeNull();
      expect(attempt.error, url).toMatch(/^refused: /);
      expect(attempt.error, url).toMatch(message);
    }
    expect(receiver.requests).toEqual([]);
  });

  it('allows loopback and private targets when configured, never link-local or metadata ones', async () => {
    const server = await startServer({ allowPrivateTargets: true, resolveHost });
    const port = receiver.port;
    const refused = [
      'http://169.254.169.254/latest/meta-data/',
      `http://[fe80::1]:${port}/hooks`,
      'http://metadata.google.internal/computeMetadata/v1/',
      `http://rebind.test:${port}/hooks`,
    ];
    // receiver.test exists only in the injected resolver: the request reaching the receiver shows the
    // connection went to the address that was checked, with no second lookup.
    const allowed = [receiver.url('/direct'), `http://receiver.test:${port}/named`];
    const attempts = await firstAttempts(server, [...refused, ...allowed]);
    for (const url of refused) expect(attempts.get(url)!.error, url).toMatch(/^refused: /);
    for (const url of allowed)
      expect(attempts.get(url), url).toMatchObject({ status_code: 200, error: null });
    expect(receiver.requests.map((request) => request.url).sort()).toEqual(['/direct', '/named']);
    expect(receiver.requests.find((request) => request.url === '/named')!.headers.host).toBe(
      `receiver.test:${port}`,
    );
  });
});

describe('stopping', () => {
  it('stops at once with a delivery in flight, which goes again, with the same id, after a restart', async () => {
    const database = await reopenableDatabase();
    try {
      const first = await startServer({ requestTimeoutMs: 60_000 }, { database: database.location });
      const rider = await createPerson(first);
      const client = await hookedClient(first, rider, receiver.url());
      receiver.respond = (_request, index) =>
        index === 0 ? { status: 200, delayMs: 60_000 } : { status: 200 };
      await first.store.assets.createFromTrack(rider.id, ride());
      await receiver.waitFor(() => receiver.requests.length === 1, 'the first request');
      await first.close();
      servers = servers.filter((each) => each !== first);
      // Interrupted, not failed: nothing is logged and the notification is still waiting.
      const second = await startServer({}, { database: database.location });
      expect(await second.store.webhooks.recentAttempts(client.id, 10)).toEqual([]);

      await waitUntil(() => outboxSettled(second, client), 'the outbox to settle');
      expectOneDeliveryTwice(receiver.requests);
    } finally {
      for (const server of servers) await server.close();
      servers = [];
      database.remove();
    }
  });
});

// Issue 18: several servers on one PostgreSQL database (on SQLite one server runs on a data directory).
describe.skipIf(!onPostgres)('several servers on one PostgreSQL database', () => {
  it('one dispatcher delivers; when its server stops, another takes over with the same delivery id', async () => {
    const database = await reopenableDatabase();
    try {
      const first = await startServer({ requestTimeoutMs: 60_000 }, { database: database.location });
      // The first server's first poll takes the dispatcher's role; the second's then finds it taken.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = await startServer({}, { database: database.location });
      const rider = await createPerson(first);
      const client = await hookedClient(first, rider, receiver.url());
      receiver.respond = (_request, index) =>
        index === 0 ? { status: 200, delayMs: 60_000 } : { status: 200 };
      await second.store.assets.createFromTrack(rider.id, ride());
      await receiver.waitFor(() => receiver.requests.length === 1, 'the first request');
      // Only one dispatcher delivers: nothing else arrives while the first request hangs.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.requests).toHaveLength(1);

      await first.close();
      servers = servers.filter((each) => each !== first);
      await waitUntil(() => outboxSettled(second, client), 'the outbox to settle');
      expectOneDeliveryTwice(receiver.requests);
    } finally {
      database.remove();
    }
  });

  it('delivers a notification committed after a newer one, without a restart', async () => {
    const server = await startServer();
    const rider = await createPerson(server);
    await hookedClient(server, rider, receiver.url());
    // The first change draws its ids, then waits to commit; the second commits meanwhile.
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let lateId = 0;
    const late = server.store.transaction(async (trx) => {
      lateId = (await server.store.assets.createFromTrack(rider.id, ride(), {}, trx)).row.id;
      await held;
    });
    await waitUntil(() => lateId !== 0, 'the first change to draw its id');
    const early = (await server.store.assets.createFromTrack(rider.id, ride())).row.id;
    expect(early).toBeGreaterThan(lateId);
    const delivered = (): string[] => receiver.requests.flatMap(notificationsOf).map(key);
    await waitUntil(() => delivered().includes(`trip ${early}`), 'the newer change');
    commit();
    await late;
    await waitUntil(() => delivered().includes(`trip ${lateId}`), 'the change committed late');
    expect(delivered().filter((each) => each === `trip ${lateId}`)).toHaveLength(1);
  });
});

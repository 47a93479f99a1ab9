/**
 * Webhook targets the policy refuses (issue 17, "Faults said in words"), on a real server over a real
 * socket with a real receiver: such a delivery fails at once, with the reason in words in the delivery
 * log that the developer settings page shows, instead of being tried again for a day; and the host's
 * own addresses (its LAN or public interfaces, not only loopback) are refused like loopback unless
 * private targets are allowed.
 */
import { networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { gpxRide } from '../../../sync/src/test-support/rides.js';
import { buildServer } from '../app.js';
import type { WebhookOptions } from '../options.js';
import { SESSION_COOKIE } from '../pages/session.js';
import type { ApiClient, DeliveryLogRow } from '../store/index.js';
import { waitUntil, WebhookReceiver } from '../test-support/webhook-receiver.js';

/** Short timings: a retry, were there one, would come within a fraction of a second. */
const FAST: Partial<WebhookOptions> = {
  pollIntervalMs: 20,
  batchWindowMs: 50,
  backoffBaseMs: 50,
  backoffCapMs: 100,
};
/** Long enough for several retries at FAST timings: the attempts are counted after it. */
const RETRIES_WOULD_HAVE_COME_MS = 1500;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Running {
  app: FastifyInstance;
  url: string;
  rider: { id: number };
}

async function listeningServer(allowPrivateTargets: boolean): Promise<Running> {
  const app = await buildServer({
    databasePath: ':memory:',
    baseUrl: 'http://rideport.test',
    webhooks: { ...FAST, allowPrivateTargets },
    queue: { workers: 1 },
  });
  cleanups.push(() => app.close());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const user = await app.rideport.store.users.createPerson({
    email: 'anna@example.com',
    password: 'correct horse 1',
  });
  return { app, url, rider: { id: user.id } };
}

async function receiverOn(host: string): Promise<WebhookReceiver> {
  const receiver = await WebhookReceiver.start(host);
  cleanups.push(() => receiver.down());
  return receiver;
}

/** A client of the rider with this webhook; a ride uploaded through it over the socket. */
async function hookAndUpload(server: Running, webhookUrl: string, seed: number): Promise<ApiClient> {
  const { store } = server.app.rideport;
  const client = await store.apiClients.create(server.rider.id, { name: `Hooked ${seed}`, webhookUrl });
  const { token } = await store.authTokens.issue(server.rider.id, client.id);
  const form = new FormData();
  form.append('file', new Blob([gpxRide(seed)]), `ride-${seed}.gpx`);
  const query = new URLSearchParams({ apikey: client.apiKey, auth_token: token });
  const response = await fetch(`${server.url}/trips.json?${query}`, { method: 'POST', body: form });
  expect(response.status).toBe(200);
  return client;
}

async function attemptsAfterRetriesWouldHaveCome(
  server: Running,
  client: ApiClient,
): Promise<DeliveryLogRow[]> {
  const { webhooks } = server.app.rideport.store;
  await waitUntil(async () => (await webhooks.recentAttempts(client.id, 10)).length > 0, 'an attempt');
  await new Promise((resolve) => setTimeout(resolve, RETRIES_WOULD_HAVE_COME_MS));
  return webhooks.recentAttempts(client.id, 10);
}

async function expectFailedAtOnce(server: Running, client: ApiClient, reason: RegExp): Promise<string> {
  const attempts = await attemptsAfterRetriesWouldHaveCome(server, client);
  expect(attempts).toHaveLength(1);
  const [attempt] = attempts;
  expect(attempt).toMatchObject({ attempt: 1, status_code: null });
  expect(attempt!.error).toMatch(reason);
  expect(attempt!.error).toMatch(
    /; the server does not send webhooks there, so the notifications failed without a retry$/,
  );
  const outbox = await server.app.rideport.store.webhooks.outboxOf(client.id);
  expect(outbox.length).toBeGreaterThan(0);
  for (const row of outbox) {
    expect(row.delivered_at).toBeNull();
    expect(row.failed_at).not.toBeNull();
  }
  return attempt!.error!;
}

/** The developer settings page of `client`, over the socket, signed in as the rider. */
async function settingsPage(server: Running, client: ApiClient): Promise<string> {
  const session = await server.app.rideport.store.sessions.start(server.rider.id);
  const response = await fetch(`${server.url}/developer/api_clients/${client.id}`, {
    headers: { cookie: `${SESSION_COOKIE}=${session}` },
  });
  expect(response.status).toBe(200);
  return response.text();
}

/** This host's addresses outside loopback and link-local, as os.networkInterfaces() lists them. */
function ownAddresses(family: 'IPv4' | 'IPv6' | 'any'): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal && (family === 'any' || entry.family === family))
    .map((entry) => entry.address)
    .filter((address) => !address.toLowerCase().startsWith('fe80:'));
}

const hostOf = (address: string): string => (address.includes(':') ? `[${address}]` : address);

describe('webhook targets the policy refuses, on a real server', () => {
  it('fails such a delivery at once and says why on the developer settings page', async () => {
    const server = await listeningServer(false);
    const receiver = await receiverOn('127.0.0.1');
    const client = await hookAndUpload(server, receiver.url(), 1);
    const error = await expectFailedAtOnce(server, client, /^refused: 127\.0\.0\.1 is a loopback address/);
    expect(receiver.requests).toEqual([]);
    const page = await settingsPage(server, client);
    const section = /<section id="webhook-deliveries">[\s\S]*?<\/section>/.exec(page)![0];
    expect(section).toContain(error);
    expect(section).not.toContain('waiting to be delivered');
  });

  const own = ownAddresses('any');
  if (own.length === 0) {
    console.warn('[webhooks] SKIPPED the own-address test: this host has no address besides loopback');
  }

  it.skipIf(own.length === 0)(
    "refuses the host's own addresses like loopback, unless private targets are allowed",
    async () => {
      // Every interface, so that each of the host's addresses reaches the receiver (IPv4 only where
      // the host has no IPv6).
      let receiver: WebhookReceiver;
      let addresses: string[];
      try {
        receiver = await receiverOn('::');
        addresses = own;
      } catch {
        receiver = await receiverOn('0.0.0.0');
        addresses = ownAddresses('IPv4');
      }
      const strict = await listeningServer(false);
      for (const [index, address] of addresses.entries()) {
        const client = await hookAndUpload(strict, receiver.url('/strict', hostOf(address)), index + 1);
        const escaped = address.replace(/[.:]/g, (character) => `\\${character}`);
        await expectFailedAtOnce(
          strict,
          client,
          new RegExp(`^refused: ${escaped}( \\(.*\\))? is an address of this server`),
        );
      }
      expect(receiver.requests).toEqual([]);

      // Allowed, the same addresses do reach this host: the refusal was the policy's, not the network's.
      const local = await listeningServer(true);
      for (const [index, address] of addresses.entries()) {
        await hookAndUpload(local, receiver.url(`/local/${index}`, hostOf(address)), index + 1);
      }
      await receiver.waitFor(() => receiver.requests.length >= addresses.length, 'every allowed delivery');
      expect(receiver.requests.map((request) => request.url).sort()).toEqual(
        addresses.map((_, index) => `/local/${index}`).sort(),
      );
    },
  );
});

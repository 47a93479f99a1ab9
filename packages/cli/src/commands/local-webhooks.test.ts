/**
 * Issue 20, docs/contributors/decisions.md §6: the local setup delivers webhooks to loopback and private targets. `up`
 * always does, `serve` with --allow-private-webhooks; without it, `serve` refuses them. A real receiver
 * on 127.0.0.1 over a real socket, real `rideport` processes.
 */
import { createHmac } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ACCOUNT_EMAIL } from '@rideport/host';
import { databasePathIn, openPlatform } from '@rideport/server';
import { spawnRideport, type RideportChild } from '../test-support/child.js';
import { buildCli, REPOSITORY_ROOT, rideport, temporaryDirectory } from '../test-support/run.js';

interface Delivery {
  signature: string | undefined;
  body: string;
}

let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
const children: RideportChild[] = [];
const directories: ReturnType<typeof temporaryDirectory>[] = [];

beforeAll(async () => {
  await buildCli();
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const signature = request.headers['x-service-signature'];
      deliveries.push({ signature: typeof signature === 'string' ? signature : undefined, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  receiverUrl = `http://127.0.0.1:${address.port}/hook`;
}, 120_000);

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.process.kill('SIGTERM');
    await child.exited;
  }
  for (const directory of directories.splice(0)) directory.remove();
  deliveries.length = 0;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

async function waitFor<T>(look: () => T | undefined, what: string, limitMs = 30_000): Promise<T> {
  for (let waitedMs = 0; ; waitedMs += 100) {
    const found = look();
    if (found !== undefined) return found;
    if (waitedMs > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function admin(data: string, ...args: string[]): Promise<Record<string, string>> {
  const run = await rideport(['admin', ...args, '--data', data, '--json']);
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Record<string, string>;
}

/** An API client of `email` that wants webhooks at the receiver, with a token so it hears of their rides. */
async function hookClient(
  data: string,
  email: string,
): Promise<{ apiKey: string; secret: string; token: string }> {
  const client = await admin(
    data,
    'create-client',
    '--owner',
    email,
    '--name',
    'Hook',
    '--webhook-url',
    receiverUrl,
  );
  const token = await admin(data, 'create-token', '--user', email, '--api-key', client['api_key']!);
  return { apiKey: client['api_key']!, secret: client['client_secret']!, token: token['auth_token']! };
}

function rideFolder(parent: string): string {
  const folder = join(parent, 'rides');
  mkdirSync(folder, { recursive: true });
  return folder;
}

function addRide(folder: string): void {
  copyFileSync(join(REPOSITORY_ROOT, 'fixtures/gpx/sample-ride.gpx'), join(folder, 'ride.gpx'));
}

function expectTripCreated(delivery: Delivery, secret: string): void {
  expect(delivery.signature).toBe(createHmac('sha256', secret).update(delivery.body).digest('hex'));
  const { notifications } = JSON.parse(delivery.body) as {
    notifications: { item_type: string; action: string }[];
  };
  expect(notifications).toContainEqual(expect.objectContaining({ item_type: 'trip', action: 'created' }));
}

describe('webhooks to a receiver on this computer (issue 20)', () => {
  it('rideport up delivers them', async () => {
    const directory = temporaryDirectory();
    directories.push(directory);
    const folder = rideFolder(directory.path);
    const data = join(directory.path, 'data');
    const up = spawnRideport(['up', '--port', '0', '--no-devices', '--data', data, '--watch', folder]);
    children.push(up);
    await up.listening();
    await waitFor(() => (up.output().includes('Dashboard: ') ? true : undefined), 'the local account');
    const { secret } = await hookClient(data, LOCAL_ACCOUNT_EMAIL);
    addRide(folder);
    const delivery = await waitFor(() => deliveries[0], `a webhook delivery: ${up.output()}`);
    expectTripCreated(delivery, secret);
  }, 90_000);

  it.each([
    ['delivers them with --allow-private-webhooks', true],
    ['refuses them without it, saying why in the delivery log', false],
  ])(
    'rideport serve %s',
    async (_case, allowed) => {
      const directory = temporaryDirectory();
      directories.push(directory);
      const data = join(directory.path, 'data');
      const serve = spawnRideport([
        'serve',
        '--port',
        '0',
        '--data',
        data,
        ...(allowed ? ['--allow-private-webhooks'] : []),
      ]);
      children.push(serve);
      const url = await serve.listening();
      await admin(data, 'create-user', '--email', 'r@example.com', '--password', 'long enough');
      const hook = await hookClient(data, 'r@example.com');
      const folder = rideFolder(directory.path);
      addRide(folder);
      const sync = await rideport([
        'sync',
        '--server',
        url,
        '--api-key',
        hook.apiKey,
        '--auth-token',
        hook.token,
        '--data',
        join(directory.path, 'sync-data'),
        '--import',
        'all',
        '--once',
        folder,
      ]);
      expect(sync.stdout).toContain('1 synced');
      if (allowed) {
        expectTripCreated(await waitFor(() => deliveries[0], 'a webhook delivery'), hook.secret);
        return;
      }
      const platform = await openPlatform({ databasePath: databasePathIn(data), baseUrl: url });
      try {
        const client = await platform.store.apiClients.findByApiKey(hook.apiKey);
        let attempts: { error: string | null }[] = [];
        for (let waitedMs = 0; attempts.length === 0 && waitedMs < 30_000; waitedMs += 100) {
          attempts = await platform.store.webhooks.recentAttempts(client!.id, 5);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(attempts[0]?.error).toMatch(/refused: 127\.0\.0\.1 is a loopback address/);
        expect(deliveries).toEqual([]);
      } finally {
        await platform.close();
      }
    },
    90_000,
  );
});

import { copyFile, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncFolders, type SyncStatus } from '@rideport/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CredentialStore } from './credentials.js';
import { LOCAL_ACCOUNT_EMAIL, startPlatformServer } from '@rideport/host';
import { claimDataDirectory, databasePathIn } from '@rideport/server';
import { APP_CLAIMANT, EMBEDDED_HOST } from './server-host.js';
import { DEFAULT_SETTINGS, type AppSettings } from './settings.js';
import { signInRemote, startEmbeddedSync, startRemoteSync, SignInError, type SyncHost } from './sync-host.js';
import { FakeSafeStorage } from './test-support/fake-electron.js';

const fixture = join(import.meta.dirname, '..', '..', 'fixtures', 'gpx');
let root: string;
let rides: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rideport-app-sync-'));
  rides = join(root, 'rides');
  await mkdir(rides);
  await copyFile(join(fixture, 'sample-ride.gpx'), join(rides, 'ride.gpx'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function settings(extra: Partial<AppSettings> = {}): AppSettings {
  return { ...DEFAULT_SETTINGS, folders: [rides], devices: false, firstImport: { kind: 'all' }, ...extra };
}

async function until(host: SyncHost, done: (status: SyncStatus) => boolean): Promise<SyncStatus> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const status = host.engine.status();
    if (done(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out: ${JSON.stringify(host.engine.status())}`);
}

describe('startEmbeddedSync', () => {
  it('hosts the server on 127.0.0.1 with the local account and syncs a folder to it, in the CLI layout', async () => {
    const data = join(root, 'userData');
    const host = await startEmbeddedSync({ dataFolder: data, settings: settings(), deviceRoots: [] });
    try {
      expect(host.serverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const status = await until(host, (s) => s.counts.synced === 1);
      expect(status.recent[0]?.tripIds).toHaveLength(1);
      const entry = new URL(await host.dashboardEntry());
      expect(entry.origin).toBe(host.serverUrl);
      // The one-time link signs a browser in and goes on to the dashboard.
      const signIn = await host.server!.app.inject({
        method: 'GET',
        url: `${entry.pathname}${entry.search}`,
      });
      expect(signIn.statusCode).toBe(303);
      expect(signIn.headers.location).toBe('/dashboard');
      expect(signIn.headers['set-cookie']).toBeDefined();
      const account = JSON.parse(await readFile(join(data, 'local-account.json'), 'utf8')) as {
        email: string;
      };
      expect(account.email).toBe(LOCAL_ACCOUNT_EMAIL);
      await stat(join(data, 'rideport.sqlite'));
      await stat(syncFolders(data, 'local').ledgerPath);
      // The dashboard's view of the engine, for the signed-in local account only.
      const response = await host.server!.app.inject({
        method: 'GET',
        url: '/api/v1/local/sync/status.json',
      });
      expect(response.statusCode).toBe(401);
    } finally {
      await host.stop();
    }
  });
});

describe('remote mode', () => {
  it('signs in with email and password, keeps only the token, and syncs to the remote server', async () => {
    const remoteLock = await claimDataDirectory(join(root, 'remote'), APP_CLAIMANT);
    const remote = await startPlatformServer({
      host: EMBEDDED_HOST,
      port: 0,
      lock: remoteLock,
      server: { databasePath: databasePathIn(remoteLock.directory) },
    });
    try {
      const { store } = remote.app.rideport;
      const user = await store.users.createPerson({
        email: 'rider@example.com',
        password: 'correct horse',
        name: 'R',
      });
      const client = await store.apiClients.create(user.id, { name: 'Rideport desktop', redirectUris: [] });
      const credentials = new CredentialStore(new FakeSafeStorage(), join(root, 'userData'));
      const server = {
        mode: 'remote' as const,
        url: remote.url,
        apiKey: client.apiKey,
        email: 'rider@example.com',
      };
      const options = { dataFolder: join(root, 'userData'), settings: settings({ server }), deviceRoots: [] };

      await expect(startRemoteSync(options, credentials)).rejects.toMatchObject({ code: 'NOT_SIGNED_IN' });
      await expect(
        signInRemote(
          { url: remote.url, apiKey: client.apiKey, email: 'rider@example.com', password: 'wrong' },
          credentials,
        ),
      ).rejects.toMatchObject({ code: 'REFUSED' });

      await signInRemote(
        { url: remote.url, apiKey: client.apiKey, email: 'rider@example.com', password: 'correct horse' },
        credentials,
      );
      expect(await readFile(credentials.path, 'utf8')).not.toContain('correct horse');
      const host = await startRemoteSync(options, credentials);
      try {
        expect(host.server).toBeNull();
        await until(host, (s) => s.counts.synced === 1);
        expect(await host.dashboardEntry()).toBe(`${remote.url}/`);
        await stat(syncFolders(join(root, 'userData'), remote.url).ledgerPath);
      } finally {
        await host.stop();
      }
    } finally {
      await remote.close();
      await remoteLock.release();
    }
  });

  it('says the server cannot be reached', async () => {
    const credentials = new CredentialStore(new FakeSafeStorage(), root);
    const error: unknown = await signInRemote(
      { url: 'http://127.0.0.1:9', apiKey: 'k', email: 'a@b.c', password: 'p' },
      credentials,
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SignInError);
    expect(error).toMatchObject({ code: 'UNREACHABLE' });
  });
});

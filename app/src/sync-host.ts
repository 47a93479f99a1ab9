/**
 * The sync engine the app hosts (issue 7: "The app hosts the embedded server and the sync engine"),
 * to the embedded server with the local account (as `rideport up` does), or to a remote server with
 * the auth token from sign-in (kept by credentials.ts). Its ledger and inbox are where `rideport up`
 * and `rideport sync` keep theirs (@rideport/sync's syncFolders), one per server, so the headless
 * command can run on the app's data folder.
 */
import { RideportClient, isClientError, type Credentials, type Transport } from '@rideport/client';
import { ensureLocalAccount, type LocalAccount } from '@rideport/server';
import {
  engineControls,
  renewCredentialsWhenRefused,
  SyncEngine,
  syncFolders,
  type MountRoot,
  type RideUploader,
} from '@rideport/sync';
import type { CredentialStore, RemoteToken } from './credentials.js';
import { claimDataFolder, startEmbeddedServer, type EmbeddedServer } from './server-host.js';
import type { AppSettings } from './settings.js';

export interface SyncHost {
  readonly engine: SyncEngine;
  /** the server uploads go to */
  readonly serverUrl: string;
  /** the embedded server; null in remote mode */
  readonly server: EmbeddedServer | null;
  /** where the dashboard window goes: a one-time sign-in link on the embedded server, the remote's root */
  dashboardEntry(): Promise<string>;
  stop(): Promise<void>;
}

export interface HostOptions {
  dataFolder: string;
  settings: AppSettings;
  deviceRoots: readonly MountRoot[];
  /** for tests: a transport for the client */
  transport?: Transport;
  /** for tests: the engine's timers */
  engineOptions?: { fullPassIntervalMs?: number; watch?: boolean };
}

function lazyUploader(client: () => RideportClient | null): RideUploader {
  return {
    uploadRide: (upload, options) => {
      const current = client();
      if (current === null) throw new Error('the server is not ready yet');
      return current.uploadRide(upload, options);
    },
  };
}

function engineFor(options: HostOptions, server: string, uploader: RideUploader): SyncEngine {
  return new SyncEngine({
    ...syncFolders(options.dataFolder, server),
    uploader,
    folders: options.settings.folders,
    deviceRoots: options.settings.devices ? options.deviceRoots : [],
    firstImport: options.settings.firstImport,
    ...options.engineOptions,
  });
}

function tokenCredentials(apiKey: string, authToken: string): Credentials {
  return { kind: 'auth-token', apiKey, authToken };
}

/** Embedded mode: the server on 127.0.0.1, the local account, the engine uploading to it. Started. */
export async function startEmbeddedSync(options: HostOptions): Promise<SyncHost> {
  // Before the engine opens its ledger: a refused start leaves the folder as it was (issue 17).
  const lock = await claimDataFolder(options.dataFolder);
  let client: RideportClient | null = null;
  let account: LocalAccount | null = null;
  let engine: SyncEngine | null = null;
  let server: EmbeddedServer | null = null;
  try {
    engine = engineFor(
      options,
      'local',
      lazyUploader(() => client),
    );
    server = await startEmbeddedServer({
      lock,
      localSync: engineControls(engine, () => account?.userId ?? null),
    });
    const { store } = server.app.rideport;
    account = (await ensureLocalAccount(store, options.dataFolder)).account;
    const syncClient = new RideportClient({
      baseUrl: server.url,
      credentials: tokenCredentials(account.apiKey, account.authToken),
      ...(options.transport === undefined ? {} : { transport: options.transport }),
    });
    client = syncClient;
    // The app owns this database: a refused token (expired, revoked from the dashboard) is replaced.
    const stopRepair = renewCredentialsWhenRefused(engine, async () => {
      const repaired = (await ensureLocalAccount(store, options.dataFolder)).account;
      account = repaired;
      syncClient.setCredentials(tokenCredentials(repaired.apiKey, repaired.authToken));
    });
    engine.start();
    const running = server;
    const started = engine;
    return {
      engine: started,
      serverUrl: running.url,
      server: running,
      dashboardEntry: () => {
        if (account === null) return Promise.reject(new Error('the local account is not ready'));
        return running.signInUrl(account.userId);
      },
      stop: async () => {
        stopRepair();
        await started.stop();
        await syncClient.close();
        await running.close();
        await lock.release();
      },
    };
  } catch (error) {
    await engine?.stop();
    await client?.close();
    await server?.close();
    await lock.release();
    throw error;
  }
}

export class SignInError extends Error {
  constructor(
    message: string,
    readonly code: 'NOT_SIGNED_IN' | 'REFUSED' | 'UNREACHABLE',
  ) {
    super(message);
    this.name = 'SignInError';
  }
}

/**
 * Trades email and password for an auth token on a remote server (platform-api.md, Basic
 * authentication) and keeps the token with credentials.ts; the password is not kept.
 */
export async function signInRemote(
  request: { url: string; apiKey: string; email: string; password: string },
  credentials: CredentialStore,
  transport?: Transport,
): Promise<RemoteToken> {
  const client = new RideportClient({
    baseUrl: request.url,
    credentials: { kind: 'api-key', apiKey: request.apiKey },
    ...(transport === undefined ? {} : { transport }),
  });
  try {
    const record = await client.v1.createAuthToken(request.email, request.password);
    const token: RemoteToken = { url: request.url, email: request.email, authToken: record.auth_token };
    await credentials.saveRemoteToken(token);
    return token;
  } catch (error) {
    if (isClientError(error) && (error.status === 401 || error.status === 403 || error.status === 422)) {
      throw new SignInError(`${request.url} refused the sign-in: ${error.message}`, 'REFUSED');
    }
    throw new SignInError(`cannot sign in to ${request.url}: ${(error as Error).message}`, 'UNREACHABLE');
  } finally {
    await client.close();
  }
}

/** Remote mode: the engine uploading to the remote server with the saved token. Started. */
export async function startRemoteSync(options: HostOptions, credentials: CredentialStore): Promise<SyncHost> {
  const server = options.settings.server;
  if (server.mode !== 'remote') throw new Error('startRemoteSync needs a remote server setting');
  const token = await credentials.loadRemoteToken(server.url);
  if (token === null || token.email !== server.email) {
    throw new SignInError(`Sign in to ${new URL(server.url).host} in Settings`, 'NOT_SIGNED_IN');
  }
  const client = new RideportClient({
    baseUrl: server.url,
    credentials: tokenCredentials(server.apiKey, token.authToken),
    ...(options.transport === undefined ? {} : { transport: options.transport }),
  });
  const engine = engineFor(
    options,
    server.url,
    lazyUploader(() => client),
  );
  engine.start();
  return {
    engine,
    serverUrl: server.url,
    server: null,
    // Any server that speaks the API: its root, where it signs the user in its own way.
    dashboardEntry: () => Promise.resolve(`${server.url}/`),
    stop: async () => {
      await engine.stop();
      await client.close();
    },
  };
}

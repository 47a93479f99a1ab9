/**
 * The sync engine the app hosts (issue 7: "The app hosts the embedded server and the sync engine"),
 * to the embedded server with the local account (as `rideport up` does), or to a remote server with
 * the auth token from sign-in (kept by credentials.ts). Its ledger and inbox are where `rideport up`
 * and `rideport sync` keep theirs (@rideport/sync's syncFolders), one per server, so the headless
 * command can run on the app's data folder.
 */
import { RideportClient, isClientError, type Credentials, type Transport } from '@rideport/client';
import { startLocalPlatform, type PlatformServer } from '@rideport/host';
import { SyncEngine, syncFolders, type MountRoot, type RideUploader } from '@rideport/sync';
import type { CredentialStore, RemoteToken } from './credentials.js';
import { APP_CLAIMANT, EMBEDDED_HOST } from './server-host.js';
import type { AppSettings } from './settings.js';

export interface SyncHost {
  readonly engine: SyncEngine;
  /** the server uploads go to */
  readonly serverUrl: string;
  /** the embedded server; null in remote mode */
  readonly server: PlatformServer | null;
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

/**
 * Embedded mode: @rideport/host's local platform on 127.0.0.1 (server, dashboard, local account and
 * engine, as `rideport up` runs it), the data folder claimed for the app. Started.
 */
export async function startEmbeddedSync(options: HostOptions): Promise<SyncHost> {
  const platform = await startLocalPlatform({
    dataDirectory: options.dataFolder,
    claimant: APP_CLAIMANT,
    host: EMBEDDED_HOST,
    port: 0,
    folders: options.settings.folders,
    deviceRoots: options.settings.devices ? options.deviceRoots : [],
    firstImport: options.settings.firstImport,
    ...(options.transport === undefined ? {} : { transport: options.transport }),
    ...(options.engineOptions === undefined ? {} : { engineOptions: options.engineOptions }),
  });
  platform.startSyncing();
  return {
    engine: platform.engine,
    serverUrl: platform.url,
    server: platform.server,
    dashboardEntry: () => platform.signInLink(),
    stop: () => platform.stop(),
  };
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
 * Trades email and password for an auth token on a remote server (docs/integrators/api.md, Basic
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
  const engine = engineFor(options, server.url, client);
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

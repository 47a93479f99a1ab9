/**
 * The local platform (issue 35: one `startLocalPlatform()` for `rideport up` and the desktop app; issues
 * 6 and 7): the platform server with the dashboard on the embedded database of a data directory, the
 * local account (created on first run), and the sync engine uploading every new ride from the watched
 * folders and GPS devices to that server, its status served to the dashboard.
 *
 * The order matters: the data directory is claimed before anything in it is opened (a refused start
 * leaves it as it was, issue 17); the engine exists before the server, so the server serves its status
 * from the first request; it uploads through a client made once the server listens (its URL is known
 * only then). The engine is started by `startSyncing()`, so a caller can listen to it first.
 */
import { RideportClient, type Credentials, type Transport } from '@rideport/client';
import {
  claimDataDirectory,
  databasePathIn,
  type ConnectionLimits,
  type ServerOptions,
} from '@rideport/server';
import {
  engineControls,
  renewCredentialsWhenRefused,
  SyncEngine,
  syncFolders,
  type ImportWindow,
  type MountRoot,
  type RideUploader,
  type SyncEngineOptions,
} from '@rideport/sync';
import { ensureLocalAccount, type LocalAccount } from './local-account.js';
import { startPlatformServer, type PlatformServer } from './platform-server.js';

export interface LocalPlatformOptions {
  /** the data directory: database, master key, local account, the engine's ledger and inbox */
  dataDirectory: string;
  /** who claims the directory, as another process that finds it taken is told (claimDataDirectory) */
  claimant: { command: string; howToStop: string };
  /** the address to listen on (default 127.0.0.1: the dashboard is for this machine) */
  host?: string;
  /** the port; 0 (the default) picks a free one */
  port?: number;
  /** folders to sync */
  folders: readonly string[];
  /** where to look for GPS devices; none: folders only */
  deviceRoots: readonly MountRoot[];
  /** how far back the first sync of a new source goes; undefined: each new source waits for a choice */
  firstImport: ImportWindow | undefined;
  /** the server's logger (Fastify's option); default off */
  logger?: ServerOptions['logger'];
  /** connection limits other than the server's defaults */
  connections?: Partial<ConnectionLimits>;
  /** for tests: the client's transport */
  transport?: Transport;
  /** for tests: the engine's timers and file watching */
  engineOptions?: Pick<SyncEngineOptions, 'fullPassIntervalMs' | 'watch'>;
}

export interface LocalPlatform {
  /** where the server listens, e.g. http://127.0.0.1:4242 */
  readonly url: string;
  readonly server: PlatformServer;
  /** not started until startSyncing() */
  readonly engine: SyncEngine;
  /** the account the engine uploads as (repaired, and so replaced, when its token stops working) */
  readonly account: LocalAccount;
  /** the local account's password, only on the run that created it */
  readonly newPassword: string | null;
  /** starts the engine: it looks at its sources at once and uploads what it finds */
  startSyncing(): void;
  /**
   * An absolute one-time link that opens `next` (default: the dashboard) signed in as the local account
   * (app.rideport.signInLink): a click, or the desktop app's window, needs no password.
   */
  signInLink(next?: string): Promise<string>;
  /** stops the engine, then the server, and gives the data directory back */
  stop(): Promise<void>;
}

export async function startLocalPlatform(options: LocalPlatformOptions): Promise<LocalPlatform> {
  const lock = await claimDataDirectory(options.dataDirectory, options.claimant);
  let client: RideportClient | null = null;
  let account: LocalAccount | null = null;
  let engine: SyncEngine | null = null;
  let server: PlatformServer | null = null;
  let stopRepair: () => void = () => undefined;
  try {
    const uploader: RideUploader = {
      uploadRide: (upload, uploadOptions) => {
        if (client === null) throw new Error('the local server is not listening yet');
        return client.uploadRide(upload, uploadOptions);
      },
    };
    const syncing = new SyncEngine({
      ...syncFolders(options.dataDirectory, 'local'),
      uploader,
      folders: options.folders,
      deviceRoots: options.deviceRoots,
      firstImport: options.firstImport,
      ...options.engineOptions,
    });
    engine = syncing;
    const listening = await startPlatformServer({
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      lock,
      server: {
        databasePath: databasePathIn(options.dataDirectory),
        logger: options.logger ?? false,
        // The local setup (docs/contributors/decisions.md §6): a webhook receiver on this computer or
        // the home network is what a rider runs.
        webhooks: { allowPrivateTargets: true },
        localSync: engineControls(syncing, () => account?.userId ?? null),
        ...(options.connections === undefined ? {} : { connections: options.connections }),
      },
    });
    server = listening;
    const { store } = listening.app.rideport;
    const ensured = await ensureLocalAccount(store, options.dataDirectory);
    account = ensured.account;
    const syncClient = new RideportClient({
      baseUrl: listening.url,
      credentials: credentialsOf(ensured.account),
      ...(options.transport === undefined ? {} : { transport: options.transport }),
    });
    client = syncClient;
    // This process owns the database: a refused token (expired, revoked from the dashboard) is replaced.
    stopRepair = renewCredentialsWhenRefused(syncing, async () => {
      const repaired = await ensureLocalAccount(store, options.dataDirectory);
      account = repaired.account;
      syncClient.setCredentials(credentialsOf(repaired.account));
    });
    return {
      url: listening.url,
      server: listening,
      engine: syncing,
      get account() {
        return account ?? ensured.account;
      },
      newPassword: ensured.newPassword,
      startSyncing: () => {
        syncing.start();
      },
      signInLink: async (next) => {
        const link = await listening.app.rideport.signInLink(
          (account ?? ensured.account).userId,
          ...(next === undefined ? [] : [next]),
        );
        const resolved = new URL(link, listening.url);
        // The link is the server's own: never one that leads elsewhere.
        if (resolved.origin !== new URL(listening.url).origin) {
          throw new Error(`the sign-in link leads off the local server: ${resolved.origin}`);
        }
        return resolved.href;
      },
      stop: async () => {
        stopRepair();
        await syncing.stop();
        await syncClient.close();
        await listening.close();
        await lock.release();
      },
    };
  } catch (error) {
    stopRepair();
    await engine?.stop();
    await client?.close();
    await server?.close();
    await lock.release();
    throw error;
  }
}

function credentialsOf(account: LocalAccount): Credentials {
  return { kind: 'auth-token', apiKey: account.apiKey, authToken: account.authToken };
}

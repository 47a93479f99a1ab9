/**
 * The embedded server (issue 7: "The app hosts the embedded server"): @rideport/server's buildServer
 * on the database in userData, listening on 127.0.0.1 on a free port, with the sync engine served
 * under /api/v1/local/sync for the dashboard. The same as `rideport up` (packages/cli/src/server-host.ts)
 * but never on another address: the dashboard is for this machine only.
 */
import { createServer } from 'node:net';
import {
  buildServer,
  claimDataDirectory,
  databasePathIn,
  type DataDirectoryLock,
  type LocalSync,
} from '@rideport/server';
import { dashboardPages } from '@rideport/dashboard';

export const EMBEDDED_HOST = '127.0.0.1';

export interface EmbeddedServer {
  app: Awaited<ReturnType<typeof buildServer>>;
  /** http://127.0.0.1:<port> */
  url: string;
  /**
   * A one-time URL that opens `next` (default: the dashboard) signed in as `userId`
   * (app.rideport.signInLink): the app's window needs no password.
   */
  signInUrl(userId: number, next?: string): Promise<string>;
  close(): Promise<void>;
}

/** Attempts at a free port, should another process take the one found first. */
const FREE_PORT_ATTEMPTS = 5;

async function freePort(): Promise<number> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: EMBEDDED_HOST, port: 0 }, resolve);
    });
    const address = probe.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address for a free port');
    return address.port;
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
}

/**
 * Claims the data folder for the app (issue 17: one server per data directory), before anything in it
 * is opened: with `rideport serve` or `rideport up` running on it, this fails with a sentence naming
 * that process, which the app shows as the reason sync could not start.
 */
export function claimDataFolder(dataFolder: string): Promise<DataDirectoryLock> {
  return claimDataDirectory(dataFolder, {
    command: 'the Rideport desktop app',
    howToStop: 'choose Quit Rideport in its tray menu',
  });
}

export async function startEmbeddedServer(options: {
  /** the data folder, claimed by this process (claimDataFolder) */
  lock: DataDirectoryLock;
  /** the engine, for the dashboard (absent: the server alone) */
  localSync?: LocalSync;
}): Promise<EmbeddedServer> {
  for (let attempt = 1; ; attempt++) {
    // The server's absolute URLs are fixed when it is built, so the port is chosen first.
    const port = await freePort();
    const url = `http://${EMBEDDED_HOST}:${port}`;
    const app = await buildServer({
      pages: [dashboardPages],
      databasePath: databasePathIn(options.lock.directory),
      baseUrl: url,
      logger: false,
      // decisions.md §6: the local desktop setup delivers webhooks to this computer and private
      // networks too, as `rideport up` does (issue 20).
      webhooks: { allowPrivateTargets: true },
      ...(options.localSync === undefined ? {} : { localSync: options.localSync }),
    });
    try {
      await app.listen({ host: EMBEDDED_HOST, port });
    } catch (error) {
      await app.close();
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < FREE_PORT_ATTEMPTS) continue;
      throw error;
    }
    await options.lock.listening(url);
    return {
      app,
      url,
      signInUrl: async (userId, next) => {
        const link = await app.rideport.signInLink(userId, ...(next === undefined ? [] : [next]));
        const resolved = new URL(link, url);
        if (resolved.origin !== url)
          throw new Error(`the sign-in link leads off the embedded server: ${resolved.origin}`);
        return resolved.href;
      },
      close: () => app.close(),
    };
  }
}

/**
 * The platform server of a host (issue 35: written once for `rideport serve`, `rideport up` and the
 * desktop app): buildServer with the rider's dashboard, listening on an address, on a free port when
 * asked for port 0, and the data directory told where it listens (issue 17: one server per data
 * directory, and `rideport admin sign-in-link` finds it there).
 */
import { createServer } from 'node:net';
import { dashboardPages } from '@rideport/dashboard';
import { buildServer, type DataDirectoryLock, type ServerOptions } from '@rideport/server';
import { HostError, HostErrorCode } from './errors.js';

export interface PlatformServerSettings {
  /** the address to listen on */
  host: string;
  /** the port; 0 picks a free one */
  port: number;
  /** the server's options; without a base URL, the address it listens on is its public URL */
  server: Omit<ServerOptions, 'baseUrl'> & { baseUrl?: string | undefined };
  /** the data directory this process claimed (told the URL once listening); null on a shared database */
  lock: DataDirectoryLock | null;
}

export interface PlatformServer {
  app: Awaited<ReturnType<typeof buildServer>>;
  /** where it listens, e.g. http://127.0.0.1:4242 */
  url: string;
  close(): Promise<void>;
}

/** Attempts at a free port for port 0, should another process take the one found first. */
const FREE_PORT_ATTEMPTS = 5;

export async function startPlatformServer(settings: PlatformServerSettings): Promise<PlatformServer> {
  const displayHost = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  for (let attempt = 1; ; attempt++) {
    // The server's absolute URLs (next_page_url, record urls) are fixed when it is built, so with port 0
    // the port is chosen first; if another process takes it before we listen, choose again.
    const port = settings.port === 0 ? await freePort(settings.host) : settings.port;
    const url = `http://${displayHost}:${port}`;
    const app = await buildServer({
      ...settings.server,
      baseUrl: settings.server.baseUrl ?? url,
      pages: [dashboardPages],
    });
    try {
      await app.listen({ host: settings.host, port });
    } catch (error) {
      await app.close();
      const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (settings.port === 0 && taken && attempt < FREE_PORT_ATTEMPTS) continue;
      throw new HostError(HostErrorCode.LISTEN, `cannot listen on ${url}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    await settings.lock?.listening(url);
    return { app, url, close: () => app.close() };
  }
}

/** A port nothing listens on right now, as the system hands them out for port 0. */
async function freePort(host: string): Promise<number> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port: 0 }, resolve);
    });
    const address = probe.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address for a free port');
    return address.port;
  } catch (error) {
    throw new HostError(HostErrorCode.LISTEN, `cannot listen on ${host}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
}

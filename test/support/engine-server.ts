import { join } from 'node:path';
import { buildServer, type ServerOptions } from '@rideport/server';
import { engineControls, type SyncEngine } from '@rideport/sync';
import { freePort } from './ports.js';
import { dashboardPages } from '@rideport/dashboard';

/**
 * The real server on a file database in `scratch`, with the real sync engine behind LocalSync as
 * `rideport up` wires it (packages/cli/src/commands/up.ts), listening on a free loopback port.
 * `syncUser` is asked on every request: the account the engine uploads as, once the test has one.
 */
export async function listenWithEngine(
  scratch: string,
  engine: SyncEngine,
  syncUser: () => number | null,
  options: Partial<ServerOptions> = {},
): Promise<{ app: Awaited<ReturnType<typeof buildServer>>; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = await buildServer({
    pages: [dashboardPages],
    databasePath: join(scratch, 'rideport.sqlite'),
    baseUrl: url,
    localSync: engineControls(engine, syncUser),
    ...options,
  });
  try {
    await app.listen({ host: '127.0.0.1', port });
  } catch (error) {
    await app.close();
    throw error;
  }
  return { app, url };
}

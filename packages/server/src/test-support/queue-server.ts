/**
 * The platform server in a process of its own, for the upload queue's durability test (issue 5: "start
 * the server as a child process … SIGKILL it … start it again on the same database"): buildServer on a
 * database (a SQLite file, or a postgres:// URL: test-database.ts), listening on a free loopback port. Prints one JSON line, {"port": N}, once it listens;
 * stops on SIGTERM. Runs from the TypeScript sources:
 *
 *   node --import tsx --conditions=@rideport/source queue-server.ts <database> [<queue options as JSON>] [<port>]
 */
import process from 'node:process';
import { buildServer } from '../app.js';
import type { QueueOptions } from '../options.js';
import { databaseOptions } from './database-options.js';

const [database, queueJson, portText] = process.argv.slice(2);
if (database === undefined)
  throw new Error('usage: queue-server.ts <database> [<queue options as JSON>] [<port>]');
const queue = (queueJson === undefined ? {} : JSON.parse(queueJson)) as Partial<QueueOptions>;

const app = await buildServer({ ...databaseOptions(database), baseUrl: 'http://127.0.0.1', queue });
await app.listen({ host: '127.0.0.1', port: portText === undefined ? 0 : Number(portText) });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : null })}\n`,
);
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});

/**
 * A Rideport server in a process of its own, for tests that kill it (issue 5: "server killed with
 * undelivered outbox rows → delivered after restart"). Run from TypeScript:
 *
 *   node --import tsx --conditions=@rideport/source server-process.ts <database> [<options JSON>]
 *
 * <database>: a SQLite file, or a postgres:// URL (test-database.ts).
 *
 * The JSON holds ServerOptions fields besides the database (baseUrl, webhooks, …). Prints one line,
 * `{"url": "<where it listens>"}`, once listening on a free port of 127.0.0.1; closes cleanly on
 * SIGTERM and SIGINT.
 */
import process from 'node:process';
import { buildServer } from '../app.js';
import type { ServerOptions } from '../options.js';
import { databaseOptions } from './database-options.js';

const [database, optionsJson] = process.argv.slice(2);
if (database === undefined) {
  process.stderr.write('usage: server-process.ts <database> [<options JSON>]\n');
  process.exit(2);
}
const options = JSON.parse(optionsJson ?? '{}') as Partial<ServerOptions>;
const app = await buildServer({ baseUrl: 'http://rideport.test', ...options, ...databaseOptions(database) });
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url })}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}

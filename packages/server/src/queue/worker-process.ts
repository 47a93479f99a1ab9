/**
 * The upload queue without HTTP (issue 18, "Separate workers": `rideport worker --database <url>`):
 * parse workers on a shared PostgreSQL database, claiming the tasks that servers running with
 * `--no-workers` (or any server) accepted, so an operator scales reading uploads apart from serving
 * requests. The same queue as a server's (queue.ts): claims with FOR UPDATE SKIP LOCKED, leases, the
 * nightly purge by whichever process holds its role. On SQLite a worker of its own cannot run: one
 * process at a time opens the data directory, and the server reads its uploads itself.
 */
import pino from 'pino';
import { openStore } from '../platform.js';
import { resolveOptions, type ServerOptions } from '../options.js';
import { UploadQueue } from './queue.js';

export interface UploadWorker {
  /** parse workers (threads) this process runs */
  readonly workers: number;
  /** Stops taking tasks, lets running ones finish for a moment (then gives them back), closes the database. */
  close(): Promise<void>;
}

export async function startUploadWorker(
  options: Omit<ServerOptions, 'baseUrl' | 'logger'> & {
    /** one JSON line per event (pino) written here; default: nothing is logged */
    logStream?: { write(line: string): unknown };
  },
): Promise<UploadWorker> {
  const { logStream, ...serverOptions } = options;
  // The base URL is for links in responses, and a worker sends none.
  const resolved = resolveOptions({ ...serverOptions, baseUrl: 'http://worker.invalid' });
  if (resolved.database.engine !== 'postgres') {
    throw new TypeError(
      'a worker of its own needs PostgreSQL: on SQLite the server reads its uploads itself',
    );
  }
  if (resolved.queue.workers === 0) throw new TypeError('a worker needs at least one parse worker');
  const { store, database } = await openStore(resolved, options.masterKey);
  const log =
    logStream === undefined
      ? pino({ enabled: false })
      : pino({ level: 'info' }, { write: (line: string) => void logStream.write(line) });
  const queue = new UploadQueue({ store, options: resolved }, log);
  queue.start();
  return {
    workers: resolved.queue.workers,
    async close() {
      try {
        await queue.stop();
      } finally {
        await database.close();
      }
    },
  };
}

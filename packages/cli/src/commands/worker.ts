/**
 * `rideport worker --database <url> [--workers <n>] [--log-format text|json]` (issue 18, "Separate
 * workers"): reads uploads on a shared PostgreSQL database without serving HTTP, so that an operator
 * scales parsing apart from the servers (`rideport serve --no-workers`). docs/operators/postgresql.md.
 */
import { availableParallelism } from 'node:os';
import { shownDatabaseUrl, startUploadWorker } from '@rideport/server';
import { announce, announceStartUp, heldOpenUntil, logFormatOption, untilStopSignal } from '../announce.js';
import { parseCommandArgs } from '../args.js';
import { OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from '../io.js';
import { withLogDestination } from '../log-destination.js';
import { textLogStream } from '../text-log.js';
import { parseConfigOf } from '../options.js';
import { sharedDatabaseOption } from '../shared-database.js';
import { WORKER_OPTIONS } from './worker-options.js';

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('worker', args, parseConfigOf(WORKER_OPTIONS));
  if (positionals.length > 0) throw new UsageError(`worker: unexpected argument '${positionals[0]!}'`);
  const logFormat = logFormatOption(values['log-format'], 'worker');
  const workers = values.workers === undefined ? availableParallelism() : workersOption(values.workers);
  const shared = sharedDatabaseOption(values, io.env ?? {}, io.cwd, 'worker');
  if (shared === undefined) {
    throw new UsageError(
      'worker: give --database <url> (or RIDEPORT_DATABASE_URL): a worker of its own runs on PostgreSQL; on SQLite `rideport serve` reads its uploads itself',
    );
  }
  const out = withLogDestination(io);
  const stopped = untilStopSignal();
  let worker;
  try {
    worker = await startUploadWorker({
      databasePath: '',
      databaseUrl: shared.databaseUrl,
      masterKey: shared.masterKey,
      queue: { workers },
      logStream: logFormat === 'json' ? out.stdout : textLogStream(out.stdout),
    });
  } catch (error) {
    throw new OperationError('worker', error);
  }
  const database = shownDatabaseUrl(shared.databaseUrl);
  announceStartUp(
    out,
    logFormat,
    `Rideport worker: reading uploads from ${database} with ${workers} parse worker${workers === 1 ? '' : 's'}`,
    { database, workers },
  );
  const signal = await heldOpenUntil(stopped);
  announce(out, logFormat, `${signal}: stopping (running uploads finish or go back to the queue)`, {
    signal,
  });
  await worker.close();
  return ExitCode.OK;
}

function workersOption(text: string): number {
  const workers = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(workers) || workers < 1 || workers > 256) {
    throw new UsageError(`worker: --workers must be a whole number from 1 to 256, got '${text}'`);
  }
  return workers;
}

/**
 * `rideport worker --database <url> [--workers <n>] [--log-format text|json]` (issue 18, "Separate
 * workers"): reads uploads on a shared PostgreSQL database without serving HTTP, so that an operator
 * scales parsing apart from the servers (`rideport serve --no-workers`). docs/operators/postgresql.md.
 */
import { availableParallelism } from 'node:os';
import { shownDatabaseUrl, startUploadWorker } from '@rideport/server';
import { parseCommandArgs } from '../args.js';
import { OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from '../io.js';
import { withLogDestination } from '../log-destination.js';
import { textLogStream } from '../text-log.js';
import { announce, heldOpenUntil, logFormatOption, untilStopSignal } from '../server-host.js';
import { SHARED_DATABASE_FLAGS, SHARED_DATABASE_HELP, sharedDatabaseOption } from '../shared-database.js';
import type { Command } from './command.js';

const help = `Usage: rideport worker --database <url> --master-key-file <file> [--workers <n>] [--log-format text|json]

Reads uploads from a PostgreSQL database that Rideport servers share, without serving HTTP, until
SIGINT or SIGTERM: each parse worker claims a waiting upload, reads the file and stores its rides. Run
servers with \`rideport serve --no-workers\` to leave all reading to workers like this one. On SQLite
(the data directory) the server reads its uploads itself, and a worker of its own cannot run.

Options:
${SHARED_DATABASE_HELP}
  --workers <n>         parse workers (threads) in this process (default: one per core, here ${availableParallelism()})
  --log-format <f>      text (default): events in words; json: one JSON line per event (pino)
  -h, --help            show this help
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('worker', args, {
    workers: { type: 'string' },
    'log-format': { type: 'string', default: 'text' },
    help: { type: 'boolean', short: 'h' },
    ...SHARED_DATABASE_FLAGS,
  });
  if (values.help === true) {
    io.stdout.write(help);
    return ExitCode.OK;
  }
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
  announce(
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

export const workerCommand: Command = {
  name: 'worker',
  runsUntilStopped: true,
  synopsis: '--database <url> [--workers <n>] [--log-format text|json]',
  summary: 'read uploads from a shared PostgreSQL database, without serving HTTP',
  help,
  run,
};

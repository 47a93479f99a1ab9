/**
 * `rideport serve [--host 127.0.0.1] [--port 4242] [--data <dir>] [--base-url <url>]
 * [--log-format text|json]` (docs/contributors/architecture.md): the platform server on the data directory's database.
 */
import type { PlatformServer } from '@rideport/host';
import { shownDatabaseUrl, type ConnectionLimits } from '@rideport/server';
import { announce, announceStartUp, type LogFormat, logFormatOption, untilStopSignal } from '../announce.js';
import { parseCommandArgs } from '../args.js';
import { connectionLimitsOption } from '../connection-flags.js';
import { dataDirectory } from '../data-directory.js';
import { OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { rideportCommand } from '../follow-up.js';
import type { CliIo } from '../io.js';
import { withLogDestination } from '../log-destination.js';
import { parseConfigOf } from '../options.js';
import { sharedDatabaseOption, type SharedDatabase } from '../shared-database.js';
import { claimForCommand, portOption, startServer } from '../server-host.js';
import { SERVE_OPTIONS } from './serve-options.js';
import { CONNECTION_OPTIONS } from './shared-options.js';

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'serve',
    args,
    parseConfigOf([...SERVE_OPTIONS, ...CONNECTION_OPTIONS]),
  );
  if (positionals.length > 0) throw new UsageError(`serve: unexpected argument '${positionals[0]!}'`);
  const port = portOption(values.port, 'serve');
  const logFormat = logFormatOption(values['log-format'], 'serve');
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\//.test(baseUrl)) {
    throw new UsageError(`serve: --base-url must be an http or https URL, got '${baseUrl}'`);
  }
  const connections = connectionLimitsOption(values, 'serve');
  const shared = sharedDatabaseOption(values, io.env ?? {}, io.cwd, 'serve');
  const noWorkers = values['no-workers'] === true;
  if (noWorkers && shared === undefined) {
    throw new UsageError(
      'serve: --no-workers goes with --database: on SQLite no other process can read the uploads, so the server reads them itself',
    );
  }
  return serve(withLogDestination(io), {
    shared,
    host: values.host,
    port,
    data: values.data,
    baseUrl,
    logFormat,
    connections,
    allowPrivateWebhooks: values['allow-private-webhooks'] === true,
    noWorkers,
  });
}

async function serve(
  io: CliIo,
  options: {
    /** PostgreSQL, shared with other servers; undefined: SQLite in the data directory */
    shared: SharedDatabase | undefined;
    host: string;
    port: number;
    data: string | undefined;
    baseUrl: string | undefined;
    logFormat: LogFormat;
    connections: Partial<ConnectionLimits>;
    allowPrivateWebhooks: boolean;
    noWorkers: boolean;
  },
): Promise<number> {
  const stopped = untilStopSignal();
  const directory = dataDirectory(options.data, io.cwd);
  // Issue 17's one server per data directory; on PostgreSQL, servers share the database by design.
  const lock = options.shared === undefined ? await claimForCommand(directory, 'serve') : null;
  try {
    let server;
    try {
      server = await startServer({
        host: options.host,
        port: options.port,
        lock,
        ...(options.shared === undefined ? {} : { shared: options.shared }),
        baseUrl: options.baseUrl,
        logFormat: options.logFormat,
        logOutput: io.stdout,
        connections: options.connections,
        allowPrivateWebhooks: options.allowPrivateWebhooks,
        noWorkers: options.noWorkers,
      });
    } catch (error) {
      throw new OperationError('serve', error);
    }
    // From here the server runs: whatever happens, it is closed before the command ends.
    try {
      const where =
        options.shared === undefined
          ? { data: directory }
          : { database: shownDatabaseUrl(options.shared.databaseUrl) };
      announceStartUp(io, options.logFormat, `Rideport is listening on ${server.url}`, {
        url: server.url,
        ...where,
      });
      if (options.noWorkers) {
        announceStartUp(
          io,
          options.logFormat,
          'Uploads are read by `rideport worker` processes on this database (--no-workers).',
        );
      }
      if (await hasNoAccounts(server.app)) {
        const on =
          options.shared === undefined
            ? `--data ${JSON.stringify(directory)}`
            : '--database <the same URL> --master-key-file <the same key file>';
        // Issue 35: the command as the rider can run it where they are (follow-up.ts).
        const rideport = rideportCommand({ env: io.env ?? {}, program: io.program });
        announceStartUp(
          io,
          options.logFormat,
          `No accounts yet. Create the first one with:\n  ${rideport} admin create-user ${on} --email you@example.com --password '<a password>'`,
        );
      }
      const signal = await stopped;
      announce(io, options.logFormat, `${signal}: stopping`, { signal });
    } finally {
      await server.close();
    }
    return ExitCode.OK;
  } finally {
    await lock?.release();
  }
}

/**
 * Whether the server has no accounts yet, for the hint on how to make the first. A database that does
 * not answer just now (PostgreSQL restarting as the server starts) leaves the hint out; the server
 * runs on and says the outage in its log (issue 18).
 */
async function hasNoAccounts(app: PlatformServer['app']): Promise<boolean> {
  try {
    return (await app.rideport.store.users.countPeople()) === 0;
  } catch {
    return false;
  }
}

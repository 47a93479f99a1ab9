/**
 * `rideport serve [--host 127.0.0.1] [--port 4242] [--data <dir>] [--base-url <url>]
 * [--log-format text|json]` (docs/contributors/architecture.md): the platform server on the data directory's database.
 */
import type { PlatformServer } from '@rideport/host';
import { shownDatabaseUrl, type ConnectionLimits } from '@rideport/server';
import { parseCommandArgs } from '../args.js';
import { CONNECTION_FLAGS, CONNECTION_FLAGS_HELP, connectionLimitsOption } from '../connection-flags.js';
import { dataDirectory } from '../data-directory.js';
import { OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from '../io.js';
import { withLogDestination } from '../log-destination.js';
import {
  SHARED_DATABASE_FLAGS,
  SHARED_DATABASE_HELP,
  sharedDatabaseOption,
  type SharedDatabase,
} from '../shared-database.js';
import {
  announce,
  claimForCommand,
  type LogFormat,
  logFormatOption,
  portOption,
  startServer,
  untilStopSignal,
} from '../server-host.js';
import type { Command } from './command.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4242;

const help = `Usage: rideport serve [--host ${DEFAULT_HOST}] [--port ${DEFAULT_PORT}] [--data <dir> | --database <url> [--no-workers]] [--base-url <url>] [--log-format text|json] [connection limits]

Serves the Route and Ride Platform API (v1 and legacy), OAuth and the web pages on an embedded SQLite
database, until SIGINT or SIGTERM. One server runs on a data directory at a time: a second one exits
with status 1 and says which process holds it. With --database, on PostgreSQL instead: any number of
servers may share one database (docs/operators/postgresql.md).

Options:
  --host <host>         address to listen on (default ${DEFAULT_HOST})
  --port <port>         port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --data <dir>          data directory (default: the per-user data directory)
  --base-url <url>      public URL of the server, for links in responses (default: the listening address)
  --log-format <f>      text (default): the server's events in words; json: one JSON line per request and event (pino)
  --allow-private-webhooks
                        deliver webhooks to loopback and private-network addresses too (127.0.0.1,
                        10.x, 192.168.x, fc00::/7, …); link-local and cloud-metadata addresses stay refused
  --no-workers          with --database: accept uploads but leave reading them to \`rideport worker\`
                        processes on the same database
${SHARED_DATABASE_HELP}
  -h, --help            show this help

Connection limits:
${CONNECTION_FLAGS_HELP}`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('serve', args, {
    host: { type: 'string', default: DEFAULT_HOST },
    port: { type: 'string', default: String(DEFAULT_PORT) },
    data: { type: 'string' },
    'base-url': { type: 'string' },
    'log-format': { type: 'string', default: 'text' },
    'allow-private-webhooks': { type: 'boolean' },
    'no-workers': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    ...SHARED_DATABASE_FLAGS,
    ...CONNECTION_FLAGS,
  });
  if (values.help === true) {
    io.stdout.write(help);
    return ExitCode.OK;
  }
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
      announce(io, options.logFormat, `Rideport is listening on ${server.url}`, {
        url: server.url,
        ...where,
      });
      if (options.noWorkers) {
        announce(
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
        announce(
          io,
          options.logFormat,
          `No accounts yet. Create the first one with:\n  rideport admin create-user ${on} --email you@example.com --password '<a password>'`,
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

export const serveCommand: Command = {
  name: 'serve',
  runsUntilStopped: true,
  synopsis:
    '[--host <h>] [--port <p>] [--data <dir> | --database <url> [--no-workers]] [--base-url <url>] [--log-format text|json] [--allow-private-webhooks]',
  summary: 'serve the platform API and pages on the local database, or on a shared PostgreSQL',
  help,
  run,
};

/**
 * Runs the platform server for `rideport serve` and `rideport up`: claims the data directory (issue 17:
 * one server per data directory), builds the server on its database, listens, prints the URL, logs as
 * JSON lines with `--log-format json`, and stops cleanly on SIGINT/SIGTERM (design.md, "`rideport`
 * command").
 */
import { createServer } from 'node:net';
import {
  buildServer,
  type ConnectionLimits,
  claimDataDirectory,
  databasePathIn,
  type DataDirectoryLock,
  type LocalSync,
  type ServerOptions,
} from '@rideport/server';
import { CliError, CliErrorCode, OperationError, UsageError } from './errors.js';
import type { CliIo, CliWritable } from './io.js';
import type { SharedDatabase } from './shared-database.js';
import { TEXT_LOG_LEVEL, textLogStream } from './text-log.js';
import { dashboardPages } from '@rideport/dashboard';

export type LogFormat = 'text' | 'json';

export interface ServeSettings {
  host: string;
  port: number;
  /** the data directory, claimed by this process (claimForCommand); null on a shared database */
  lock: DataDirectoryLock | null;
  /** PostgreSQL, shared with other servers (`serve --database`); absent: SQLite in the data directory */
  shared?: SharedDatabase;
  /** the public base URL; default: the address it listens on */
  baseUrl: string | undefined;
  logFormat: LogFormat;
  /**
   * where the log goes, the command's LogDestination (log-destination.ts): with `--log-format json` every
   * pino line, with `text` the server's events in words (text-log.ts)
   */
  logOutput: CliWritable;
  /** the sync engine to serve under /api/v1/local/sync (`rideport up`) */
  localSync?: LocalSync;
  /** connection limits other than the server's defaults (issue 17; connection-flags.ts) */
  connections?: Partial<ConnectionLimits>;
  /**
   * Deliver webhooks to loopback and private-network addresses (decisions.md §6: "the local desktop
   * setup allows them"; issue 20): always for `up`, `serve --allow-private-webhooks`.
   */
  allowPrivateWebhooks: boolean;
  /** serve only: `rideport worker` processes read the uploads (`serve --no-workers`, issue 18) */
  noWorkers?: boolean;
}

export interface RunningServer {
  app: Awaited<ReturnType<typeof buildServer>>;
  url: string;
  close(): Promise<void>;
}

/** Attempts at a free port for `--port 0`, should another process take the one found first. */
const FREE_PORT_ATTEMPTS = 5;

/**
 * Claims the data directory for `rideport <command>`, before anything in it is opened (issue 17), or
 * fails as that command: a second server on the directory exits at once, naming the first.
 */
export async function claimForCommand(
  directory: string,
  command: 'serve' | 'up',
): Promise<DataDirectoryLock> {
  const kill = process.platform === 'win32' ? `taskkill /PID ${process.pid}` : `kill ${process.pid}`;
  try {
    return await claimDataDirectory(directory, {
      command: `rideport ${command}`,
      howToStop: `press Ctrl-C where it runs, or run \`${kill}\``,
    });
  } catch (error) {
    throw new OperationError(command, error);
  }
}

export async function startServer(settings: ServeSettings): Promise<RunningServer> {
  const displayHost = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  for (let attempt = 1; ; attempt++) {
    // The server's absolute URLs (next_page_url, record urls) are fixed when it is built, so with
    // --port 0 the port is chosen first; if another process takes it before we listen, choose again.
    const port = settings.port === 0 ? await freePort(settings.host) : settings.port;
    const url = `http://${displayHost}:${port}`;
    const app = await buildServer({
      pages: [dashboardPages],
      ...databaseOf(settings),
      baseUrl: settings.baseUrl ?? url,
      // Never pino's own destination: a failing one hung requests and then killed the process (issue 17).
      logger:
        settings.logFormat === 'json'
          ? { level: 'info', stream: settings.logOutput }
          : { level: TEXT_LOG_LEVEL, stream: textLogStream(settings.logOutput) },
      ...(settings.localSync === undefined ? {} : { localSync: settings.localSync }),
      ...(settings.connections === undefined ? {} : { connections: settings.connections }),
      webhooks: { allowPrivateTargets: settings.allowPrivateWebhooks },
      ...(settings.noWorkers === true ? { queue: { workers: 0 } } : {}),
    });
    try {
      await app.listen({ host: settings.host, port });
    } catch (error) {
      await app.close();
      const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (settings.port === 0 && taken && attempt < FREE_PORT_ATTEMPTS) continue;
      throw new CliError(CliErrorCode.LISTEN, `cannot listen on ${url}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    await settings.lock?.listening(url);
    return { app, url, close: () => app.close() };
  }
}

function databaseOf(
  settings: ServeSettings,
): Pick<ServerOptions, 'databasePath' | 'databaseUrl' | 'masterKey'> {
  if (settings.shared !== undefined) {
    return {
      databasePath: '',
      databaseUrl: settings.shared.databaseUrl,
      masterKey: settings.shared.masterKey,
    };
  }
  if (settings.lock === null) throw new Error('a server on SQLite needs its data directory claimed');
  return { databasePath: databasePathIn(settings.lock.directory) };
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
    throw new CliError(CliErrorCode.LISTEN, `cannot listen on ${host}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
}

/** Resolves when SIGINT or SIGTERM arrives (and stops listening for them). */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * Keeps the process running until `stopped` settles. A process whose only work is timers and database
 * connections (`rideport worker`: its queue's polling timer does not hold the process) ended the moment
 * a restart of PostgreSQL closed its last connection, with Node's exit status 13 and no word (issue 18).
 */
export async function heldOpenUntil<T>(stopped: Promise<T>): Promise<T> {
  const hold = setInterval(() => undefined, 2 ** 31 - 1);
  try {
    return await stopped;
  } finally {
    clearInterval(hold);
  }
}

/** One line of text output, or one JSON log line in the pino shape for --log-format json. */
export function announce(
  io: CliIo,
  format: LogFormat,
  message: string,
  fields: Record<string, unknown> = {},
): void {
  if (format === 'json') {
    io.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: message, ...fields })}\n`);
  } else {
    io.stdout.write(`${message}\n`);
  }
}

/** `--log-format text|json`, or a usage error naming the command. */
export function logFormatOption(text: string, command: string): LogFormat {
  if (text !== 'text' && text !== 'json') {
    throw new UsageError(`${command}: --log-format must be text or json, got '${text}'`);
  }
  return text;
}

/** `--port`, a port number (0 picks a free one), or a usage error naming the command. */
export function portOption(text: string, command: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`${command}: --port must be a port number, got '${text}'`);
  }
  return port;
}

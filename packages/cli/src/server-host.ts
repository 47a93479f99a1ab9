/**
 * What `rideport serve` and `rideport up` share around @rideport/host: claiming the data directory as
 * the command (issue 17: one server per data directory), the server's log in the command's format
 * (`--log-format text|json`), the start-up lines, and waiting for SIGINT/SIGTERM to stop cleanly
 * (docs/contributors/architecture.md, "`rideport` command").
 */
import { HostError, startPlatformServer, type PlatformServer } from '@rideport/host';
import {
  claimDataDirectory,
  databasePathIn,
  type ConnectionLimits,
  type DataDirectoryHolder,
  type DataDirectoryLock,
  type ServerOptions,
} from '@rideport/server';
import { CliError, CliErrorCode, OperationError, UsageError } from './errors.js';
import type { CliWritable } from './io.js';
import type { LogFormat } from './announce.js';
import type { SharedDatabase } from './shared-database.js';
import { TEXT_LOG_LEVEL, textLogStream } from './text-log.js';

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
  /** connection limits other than the server's defaults (issue 17; connection-flags.ts) */
  connections?: Partial<ConnectionLimits>;
  /**
   * Deliver webhooks to loopback and private-network addresses (docs/contributors/decisions.md §6: the
   * local setup allows them; issue 20): `serve --allow-private-webhooks`.
   */
  allowPrivateWebhooks: boolean;
  /** `rideport worker` processes read the uploads (`serve --no-workers`, issue 18) */
  noWorkers?: boolean;
}

/** Who holds a data directory, as another `rideport` or the desktop app is told when they find it taken. */
export function commandClaimant(command: 'serve' | 'up'): DataDirectoryHolder {
  const kill = process.platform === 'win32' ? `taskkill /PID ${process.pid}` : `kill ${process.pid}`;
  return { command: `rideport ${command}`, howToStop: `press Ctrl-C where it runs, or run \`${kill}\`` };
}

/**
 * Claims the data directory for `rideport <command>`, before anything in it is opened (issue 17), or
 * fails as that command: a second server on the directory exits at once, naming the first.
 */
export async function claimForCommand(
  directory: string,
  command: 'serve' | 'up',
): Promise<DataDirectoryLock> {
  try {
    return await claimDataDirectory(directory, commandClaimant(command));
  } catch (error) {
    throw new OperationError(command, error);
  }
}

/**
 * The server's logger for `--log-format`: never pino's own destination, since a failing one hung
 * requests and then killed the process (issue 17): with json every pino line, with text the server's
 * events in words.
 */
export function serverLogger(format: LogFormat, output: CliWritable): ServerOptions['logger'] {
  return format === 'json'
    ? { level: 'info', stream: output }
    : { level: TEXT_LOG_LEVEL, stream: textLogStream(output) };
}

/** `rideport serve`'s server (@rideport/host's startPlatformServer), its failure to listen said as ours. */
export async function startServer(settings: ServeSettings): Promise<PlatformServer> {
  try {
    return await startPlatformServer({
      host: settings.host,
      port: settings.port,
      lock: settings.lock,
      server: {
        ...databaseOf(settings),
        baseUrl: settings.baseUrl,
        logger: serverLogger(settings.logFormat, settings.logOutput),
        ...(settings.connections === undefined ? {} : { connections: settings.connections }),
        webhooks: { allowPrivateTargets: settings.allowPrivateWebhooks },
        ...(settings.noWorkers === true ? { queue: { workers: 0 } } : {}),
      },
    });
  } catch (error) {
    if (error instanceof HostError) throw new CliError(CliErrorCode.LISTEN, error.message, { cause: error });
    throw error;
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

/** `--port`, a port number (0 picks a free one), or a usage error naming the command. */
export function portOption(text: string, command: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`${command}: --port must be a port number, got '${text}'`);
  }
  return port;
}

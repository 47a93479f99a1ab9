/**
 * Runs the platform server for `rideport serve` (and later `rideport up`): builds it on the data
 * directory's database, listens, prints the URL, logs as JSON lines with `--log-format json`, and
 * stops cleanly on SIGINT/SIGTERM (design.md, "`rideport` command").
 */
import { buildServer } from '@rideport/server';
import { CliError, CliErrorCode } from './errors.js';
import type { CliIo } from './io.js';

export type LogFormat = 'text' | 'json';

export interface ServeSettings {
  host: string;
  port: number;
  databasePath: string;
  /** the public base URL; default: the address it listens on */
  baseUrl: string | undefined;
  logFormat: LogFormat;
}

export interface RunningServer {
  app: Awaited<ReturnType<typeof buildServer>>;
  url: string;
  close(): Promise<void>;
}

export async function startServer(settings: ServeSettings): Promise<RunningServer> {
  const displayHost = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const app = await buildServer({
    databasePath: settings.databasePath,
    baseUrl: settings.baseUrl ?? `http://${displayHost}:${settings.port}`,
    logger: settings.logFormat === 'json' ? { level: 'info' } : false,
  });
  let url: string;
  try {
    await app.listen({ host: settings.host, port: settings.port });
    const address = app.server.address();
    url = `http://${displayHost}:${typeof address === 'object' && address !== null ? address.port : settings.port}`;
  } catch (error) {
    await app.close();
    throw new CliError(
      CliErrorCode.LISTEN,
      `cannot listen on ${displayHost}:${settings.port}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  // With --port 0 the port is known only now; absolute URLs in responses must name it.
  if (settings.baseUrl === undefined) app.rideport.options.baseUrl = new URL(url);
  return { app, url, close: () => app.close() };
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

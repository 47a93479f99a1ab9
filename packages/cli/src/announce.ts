/**
 * The lines a command that keeps running prints (`up`, `serve`, `sync`, `worker`): in words, or as
 * JSON log lines with `--log-format json`; and its end, at SIGINT or SIGTERM. Nothing here loads the
 * server (issue 35: `rideport sync` runs without it).
 */
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { columnsOf, wrapMessage } from './wrap.js';

export type LogFormat = 'text' | 'json';

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

/**
 * One line of text output, or one JSON log line in the pino shape for --log-format json. Event lines
 * (a ride synced, a summary) stay one line each, whatever their length, for whoever greps the log.
 */
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

/**
 * A start-up line, for a person to read (issue 35: `rideport up`'s ran to 200 characters): in words,
 * wrapped at the terminal's width (80 when it is not a terminal), its continuation lines indented; a
 * URL or a `command` is never broken, and a line of the message that begins with a space (a command
 * to copy) stays whole. As JSON, the message is as it is.
 */
export function announceStartUp(
  io: CliIo,
  format: LogFormat,
  message: string,
  fields: Record<string, unknown> = {},
): void {
  announce(io, format, format === 'json' ? message : wrapMessage(message, columnsOf(io.columns)), fields);
}

/** `--log-format text|json`, or a usage error naming the command. */
export function logFormatOption(text: string, command: string): LogFormat {
  if (text !== 'text' && text !== 'json') {
    throw new UsageError(`${command}: --log-format must be text or json, got '${text}'`);
  }
  return text;
}

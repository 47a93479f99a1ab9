/**
 * Starting test-support/queue-server.ts as a child process, and waiting for it to listen.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { QueueOptions } from '../options.js';
import { startSourceProcess } from './source-process.js';

export interface ChildServer {
  url: string;
  process: ChildProcessByStdio<Writable, Readable, Readable>;
  /** SIGKILL, and wait for the process to end */
  kill(): Promise<void>;
  /** SIGTERM (the server stops cleanly), and wait for the process to end */
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./queue-server.ts', import.meta.url));

export async function startChildServer(
  databasePath: string,
  queue: Partial<QueueOptions> = {},
  /** a fixed port, so a restarted server is found where it was; default: a free one */
  fixedPort?: number,
): Promise<ChildServer> {
  const running = startSourceProcess(SCRIPT, [
    databasePath,
    JSON.stringify(queue),
    ...(fixedPort === undefined ? [] : [String(fixedPort)]),
  ]);
  const { child } = running;
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const line = stdout.split('\n', 1)[0]!;
      if (stdout.includes('\n')) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => {
      reject(new Error(`the server exited (${String(code)}) before listening: ${running.stderr()}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    kill: () => running.end('SIGKILL'),
    stop: () => running.end('SIGTERM'),
  };
}

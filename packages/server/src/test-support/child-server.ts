/**
 * Starting a server script of test-support as a child process, and waiting for it to listen:
 * queue-server.ts (queue options and a fixed port) or server-process.ts (any server options).
 */
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { QueueOptions, ServerOptions } from '../options.js';
import { startSourceProcess, type SourceProcess } from './source-process.js';

export interface ChildServer {
  url: string;
  process: ChildProcessByStdio<Writable, Readable, Readable>;
  /** SIGKILL, and wait for the process to end */
  kill(): Promise<void>;
  /** SIGTERM (the server stops cleanly), and wait for the process to end */
  stop(): Promise<void>;
}

const QUEUE_SERVER = fileURLToPath(new URL('./queue-server.ts', import.meta.url));
const SERVER_PROCESS = fileURLToPath(new URL('./server-process.ts', import.meta.url));

export async function startChildServer(
  databasePath: string,
  queue: Partial<QueueOptions> = {},
  /** a fixed port, so a restarted server is found where it was; default: a free one */
  fixedPort?: number,
): Promise<ChildServer> {
  const running = startSourceProcess(QUEUE_SERVER, [
    databasePath,
    JSON.stringify(queue),
    ...(fixedPort === undefined ? [] : [String(fixedPort)]),
  ]);
  const { port } = await firstLine<{ port: number }>(running);
  return childServer(running, `http://127.0.0.1:${port}`);
}

/** server-process.ts on `database` (a file or a postgres:// URL) with these options, on a free port. */
export async function startServerProcess(
  database: string,
  options: Partial<ServerOptions>,
): Promise<ChildServer> {
  const running = startSourceProcess(SERVER_PROCESS, [database, JSON.stringify(options)]);
  const { url } = await firstLine<{ url: string }>(running);
  return childServer(running, url);
}

function childServer(running: SourceProcess, url: string): ChildServer {
  return {
    url,
    process: running.child,
    kill: () => running.end('SIGKILL'),
    stop: () => running.end('SIGTERM'),
  };
}

/** The JSON line a server script prints once it listens. */
function firstLine<T>(running: SourceProcess): Promise<T> {
  const { child } = running;
  return new Promise<T>((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const line = stdout.split('\n', 1)[0]!;
      if (stdout.includes('\n')) resolve(JSON.parse(line) as T);
    });
    child.once('exit', (code) => {
      reject(new Error(`the server exited (${String(code)}) before listening: ${running.stderr()}`));
    });
  });
}

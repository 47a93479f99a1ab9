/**
 * Starting test-support/queue-server.ts as a child process, and waiting for it to listen.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { QueueOptions } from '../options.js';

export interface ChildServer {
  url: string;
  process: ChildProcessByStdio<null, Readable, Readable>;
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
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      '--conditions=@rideport/source',
      SCRIPT,
      databasePath,
      JSON.stringify(queue),
      ...(fixedPort === undefined ? [] : [String(fixedPort)]),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const line = stdout.split('\n', 1)[0]!;
      if (stdout.includes('\n')) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => {
      reject(new Error(`the server exited (${String(code)}) before listening: ${stderr}`));
    });
  });
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}

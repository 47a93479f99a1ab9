/**
 * bench/api-server.js in a process of its own (bench/api.ts, bench/upload.ts), so that the server and
 * the load generator each have a core and neither is charged for the other's work.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface ServerProcess {
  url: string;
  /** the server's process id (bench/upload-memory.ts reads its memory in /proc) */
  pid: number;
  stop(): Promise<void>;
}

/** Starts bench/api-server.js with `args` and waits for the port it listens on. */
export async function startServer(args: string[]): Promise<ServerProcess> {
  const env = { ...process.env };
  // Without tsx's loader (NODE_OPTIONS): the server runs from the build, as `rideport serve` does.
  delete env['NODE_OPTIONS'];
  const child: ChildProcessByStdio<null, Readable, null> = spawn(
    process.execPath,
    [join(ROOT, 'bench', 'api-server.js'), ...args],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolvePort, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n')[0];
      if (output.includes('\n') && line !== undefined) {
        const parsed = JSON.parse(line) as { port: number | null };
        if (parsed.port === null) reject(new Error('the server did not say its port'));
        else resolvePort(parsed.port);
      }
    });
    child.once('exit', (code) => {
      reject(new Error(`bench/api-server.js ${args.join(' ')} exited with ${code ?? 'a signal'}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise((resolveStop) => {
        child.once('exit', () => {
          resolveStop();
        });
        child.kill('SIGTERM');
      }),
  };
}

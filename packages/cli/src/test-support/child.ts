/** `rideport` in a child process, as a rider runs it, for the tests of the long-running commands. */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { REPOSITORY_ROOT, unwrapped } from './run.js';

export interface RideportChild {
  process: ChildProcessByStdio<null, Readable, Readable>;
  /** stdout and stderr so far, interleaved as they came, start-up lines unwrapped (run.ts) */
  output: () => string;
  /** the same as printed, wrapped */
  raw: () => string;
  /** the exit status (null when a signal ended it) */
  exited: Promise<number | null>;
  /** Resolves with the URL once it says it listens; rejects if it exits first. */
  listening: () => Promise<string>;
}

export function spawnRideport(args: string[]): RideportChild {
  const child = spawn(process.execPath, ['packages/cli/bin/rideport.js', ...args], {
    cwd: REPOSITORY_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', (code: number | null) => {
      resolve(code);
    });
  });
  const listening = new Promise<string>((resolve, reject) => {
    const look = (): void => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output);
      if (match !== null) resolve(match[1]!);
    };
    child.stdout.on('data', look);
    void exited.then((code) => {
      reject(new Error(`rideport ${args[0] ?? ''} exited with ${String(code)}: ${output}`));
    });
  });
  // A test that only waits for the exit must not fail on the unheard rejection.
  listening.catch(() => undefined);
  return {
    process: child,
    output: () => unwrapped(output),
    raw: () => output,
    exited,
    listening: () => listening,
  };
}

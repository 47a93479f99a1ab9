/**
 * A script of this package run in a child process from its TypeScript sources (tsx, with the
 * `@rideport/source` condition), its stderr kept for the error a test shows when the child fails.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

export interface SourceProcess {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** what the child wrote to stderr so far */
  stderr(): string;
  /** resolves when the child has ended */
  exited: Promise<void>;
  /** `signal`, unless the child has ended, and wait for it to end */
  end(signal: NodeJS.Signals): Promise<void>;
}

export function startSourceProcess(script: string, args: string[]): SourceProcess {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = spawn(process.execPath, ['--import', tsx, '--conditions=@rideport/source', script, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  return {
    child,
    stderr: () => stderr,
    exited,
    end: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

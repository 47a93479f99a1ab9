/**
 * `rideport serve --log-format json` whose log destination fails (issue 17, "Faults said in words"):
 * a real server in a child process keeps answering, keeps running, and says so once on stderr. The
 * full-disk case mounts a small tmpfs (root only; otherwise it says that it skipped); the broken pipe
 * runs everywhere.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  mountSmallDisk,
  smallDiskUnavailable,
  type SmallDisk,
} from '../../../server/src/test-support/small-disk.js';
import { RETRY_AFTER_FAILURE_MS } from '../log-destination.js';
import { buildCli, REPOSITORY_ROOT, temporaryDirectory } from '../test-support/run.js';

const noSmallDisk = smallDiskUnavailable();
if (noSmallDisk !== null) console.warn(`[serve, log on a full disk] SKIPPED, ${noSmallDisk}`);

const FAILED =
  /^rideport: the log cannot be written \((.+)\); log lines are dropped until it works again, and rideport keeps running$/gm;
const WRITTEN_AGAIN = /^rideport: the log is written again; \d+ lines? (was|were) dropped$/m;
const REQUESTS = 30;

beforeAll(buildCli, 120_000);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function serve(stdout: 'pipe' | number): { child: ChildProcess; stderr: () => string } {
  const data = temporaryDirectory();
  const child = spawn(
    process.execPath,
    ['packages/cli/bin/rideport.js', 'serve', '--port', '0', '--data', data.path, '--log-format', 'json'],
    { cwd: REPOSITORY_ROOT, stdio: ['ignore', stdout, 'pipe'] },
  );
  cleanups.push(() => {
    child.kill('SIGKILL');
    data.remove();
  });
  let stderr = '';
  (child.stderr as Readable).on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

async function waitFor<T>(look: () => T | undefined, what: string): Promise<T> {
  for (let waited = 0; ; waited += 20) {
    const found = look();
    if (found !== undefined) return found;
    if (waited > 15_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const listeningUrl = (log: string): string | undefined =>
  /"msg":"Rideport is listening on (http:\/\/[^"]+)"/.exec(log)?.[1];

/** Requests one after another; each must be answered (not how fast: tests never assert times). */
async function requestsAnswered(url: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const response = await fetch(`${url}/api/v1/users/current.json`, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

async function stopsCleanly(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code).toBe(0);
}

describe('rideport serve with a log destination that fails', () => {
  it('keeps serving when the pipe of its log breaks, and says so once on stderr', async () => {
    const { child, stderr } = serve('pipe');
    let log = '';
    const stdout = child.stdout as Readable;
    stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const url = await waitFor(() => listeningUrl(log), 'the server to listen');
    // Nobody reads the log any more: the server's next writes to it fail (EPIPE).
    stdout.destroy();

    expect(await requestsAnswered(url)).toEqual(new Array<number>(REQUESTS).fill(401));
    await waitFor(() => (stderr().match(FAILED) === null ? undefined : true), 'stderr to say it');
    expect(await requestsAnswered(url)).toEqual(new Array<number>(REQUESTS).fill(401));
    expect(child.exitCode).toBeNull();
    expect([...stderr().matchAll(FAILED)].map((match) => match[1])).toEqual([
      expect.stringMatching(/EPIPE/) as string,
    ]);
    await stopsCleanly(child);
  });

  it.skipIf(noSmallDisk !== null)(
    'keeps serving when its log file is on a full disk, says so once, and logs again once there is space',
    async () => {
      const disk: SmallDisk = mountSmallDisk(1024 * 1024);
      cleanups.push(() => {
        disk.remove();
      });
      const logPath = join(disk.path, 'serve.log');
      const fd = openSync(logPath, 'w');
      const { child, stderr } = serve(fd);
      closeSync(fd);
      const url = await waitFor(() => listeningUrl(readFileSync(logPath, 'utf8')), 'the server to listen');
      disk.fill();

      expect(await requestsAnswered(url)).toEqual(new Array<number>(REQUESTS).fill(401));
      await waitFor(() => (stderr().match(FAILED) === null ? undefined : true), 'stderr to say it');
      expect(await requestsAnswered(url)).toEqual(new Array<number>(REQUESTS).fill(401));
      expect(child.exitCode).toBeNull();
      expect([...stderr().matchAll(FAILED)].map((match) => match[1])).toEqual([
        expect.stringMatching(/ENOSPC/) as string,
      ]);

      disk.free();
      await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_FAILURE_MS + 100));
      expect(await requestsAnswered(url)).toEqual(new Array<number>(REQUESTS).fill(401));
      await waitFor(() => (WRITTEN_AGAIN.test(stderr()) ? true : undefined), 'stderr to say it logs again');
      await stopsCleanly(child);
      // At most one line was cut short (by the write the disk filled up in); it was ended there, so
      // every line after it, written once there was space, is whole.
      const lines = readFileSync(logPath, 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      const whole = lines.filter((line) => {
        try {
          JSON.parse(line);
          return true;
        } catch {
          return false;
        }
      });
      expect(lines.length - whole.length).toBeLessThanOrEqual(1);
      expect(lines.at(-1)).toContain('SIGTERM: stopping');
    },
  );
});

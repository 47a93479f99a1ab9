/**
 * Issue 17: "About 20,000 idle slow-header connections from one client fill the process's file
 * descriptors, and every other request then fails at once." The real `rideport serve` (as it listens
 * in packages/cli/src/server-host.ts) in a child process whose open-file limit is lowered to 1024 with
 * `ulimit -n`, so that a few thousand connections are enough to exhaust it: with the default limits,
 * 3000 connections from 127.0.0.1 that never finish their header do not keep a normal request on
 * another connection from its answer; and `--header-timeout` closes such a connection with a 408.
 * This test process opens the 3000 connections itself; it needs an open-file limit of at least 4000
 * (it says so and skips otherwise; Node raises its soft limit to the hard one when it starts).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  slowHeaderConnection,
  slowHeaderConnections,
  type SlowConnection,
} from '../packages/server/src/test-support/connections.js';
import { buildCli } from '../packages/cli/src/test-support/run.js';
import { REPOSITORY_ROOT } from './support/corpus.js';

const SERVER_FILE_LIMIT = 1024;
const SLOW_CONNECTIONS = 3000;

/** This process's open-file limit (Linux says it in /proc), or undefined. */
function ownFileLimit(): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

const fileLimit = ownFileLimit();
const skipReason =
  fileLimit === undefined
    ? 'this system does not say its open-file limit (no /proc/self/limits)'
    : fileLimit < SLOW_CONNECTIONS + 1000
      ? `this process may open ${fileLimit} files; ${SLOW_CONNECTIONS + 1000} are needed (raise it with ulimit -n)`
      : null;

type Child = ChildProcessByStdio<null, Readable, Readable>;

const cleanups: (() => void)[] = [];
const opened: SlowConnection[] = [];

afterEach(() => {
  for (const connection of opened.splice(0)) connection.socket.destroy();
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** `rideport serve` with its open-file limit lowered; resolves with its port once it listens. */
async function serveWithFewFiles(args: string[]): Promise<{ port: number; output: () => string }> {
  const data = mkdtempSync(join(tmpdir(), 'rideport-serve-limits-'));
  const child: Child = spawn(
    '/bin/sh',
    [
      '-c',
      `ulimit -n ${SERVER_FILE_LIMIT} && exec "$0" "$@"`,
      process.execPath,
      'packages/cli/bin/rideport.js',
      'serve',
      '--port',
      '0',
      '--data',
      data,
      ...args,
    ],
    { cwd: REPOSITORY_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cleanups.push(() => {
    child.kill('SIGKILL');
    rmSync(data, { recursive: true, force: true });
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match !== null) resolve(Number(match[1]));
    });
    child.once('exit', (code) => {
      reject(new Error(`serve exited with ${String(code)}: ${output}`));
    });
  });
  return { port, output: () => output };
}

/** A normal request on a connection of its own; its status, or the error that kept it from one. */
async function normalRequest(port: number): Promise<number | string> {
  const agent = new Agent({ connectTimeout: 10_000, headersTimeout: 10_000, bodyTimeout: 10_000 });
  try {
    const response = await request(`http://127.0.0.1:${port}/api/v1/openapi.json`, { dispatcher: agent });
    await response.body.dump();
    return response.statusCode;
  } catch (error) {
    return `no answer: ${(error as Error).message}`;
  } finally {
    await agent.destroy();
  }
}

describe.skipIf(skipReason !== null)(
  skipReason === null
    ? `rideport serve with ${SERVER_FILE_LIMIT} open files at most`
    : `rideport serve with few open files: skipped, ${skipReason}`,
  () => {
    beforeAll(buildCli, 120_000);

    it(`answers a normal request while ${SLOW_CONNECTIONS} slow connections come from one address`, async () => {
      const server = await serveWithFewFiles(['--log-format', 'json']);
      opened.push(...(await slowHeaderConnections(server.port, SLOW_CONNECTIONS)));
      expect(await normalRequest(server.port), server.output()).toBe(200);
      // Again, once the server has taken every slow connection in (or turned it away).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await normalRequest(server.port), server.output()).toBe(200);
      expect(server.output()).toContain(
        'connections are open: the oldest without a request in progress make way for new ones',
      );
    }, 120_000);

    it('closes a connection whose header does not end within --header-timeout, with a 408', async () => {
      const server = await serveWithFewFiles(['--header-timeout', '1']);
      const slow = await slowHeaderConnection(server.port);
      opened.push(slow);
      expect(await normalRequest(server.port)).toBe(200);
      await slow.closed;
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    }, 60_000);
  },
);

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, REPOSITORY_ROOT, temporaryDirectory } from '../test-support/run.js';

type Child = ChildProcessByStdio<null, Readable, Readable>;

beforeAll(buildCli, 120_000);

const children: Child[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Resolves once `output()` matches `pattern` (the child writes when it likes). */
async function waitFor(output: () => string, pattern: RegExp): Promise<void> {
  for (let waited = 0; !pattern.test(output()); waited += 20) {
    if (waited > 10_000) throw new Error(`${String(pattern)} not seen in: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `rideport serve` in a child process; resolves with its URL once it listens. */
async function serve(args: string[]): Promise<{ child: Child; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['packages/cli/bin/rideport.js', 'serve', '--port', '0', ...args], {
    cwd: REPOSITORY_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const look = (): void => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output);
      if (match !== null) resolve(match[1]!);
    };
    child.stdout.on('data', look);
    child.once('exit', (code) => {
      reject(new Error(`serve exited with ${String(code)}: ${output}`));
    });
  });
  return { child, url, output: () => output };
}

describe('rideport serve, in a child process', () => {
  it('serves the API on a real socket, says how to create the first account, and stops on SIGTERM', async () => {
    const data = temporaryDirectory();
    try {
      const server = await serve(['--data', data.path]);
      await waitFor(server.output, /No accounts yet\. Create the first one with:/);
      const response = await request(`${server.url}/api/v1/users/current.json`);
      expect(response.statusCode).toBe(401);
      expect(response.headers['x-service-datetime']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(await response.body.json()).toEqual({
        errors: ['authentication required: send a Bearer access token or an API key with an auth token'],
      });
      server.child.kill('SIGTERM');
      const [code] = (await once(server.child, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(server.output()).toContain('SIGTERM: stopping');
    } finally {
      data.remove();
    }
  });

  it('logs JSON lines with --log-format json', async () => {
    const data = temporaryDirectory();
    try {
      const server = await serve(['--data', data.path, '--log-format', 'json']);
      await (await request(`${server.url}/api/v1/openapi.json`)).body.text();
      server.child.kill('SIGINT');
      await once(server.child, 'exit');
      const lines = server.output().trim().split('\n');
      expect(lines.length).toBeGreaterThan(2);
      for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
      expect(
        lines.some(
          (line) => (JSON.parse(line) as { req?: { url?: string } }).req?.url === '/api/v1/openapi.json',
        ),
      ).toBe(true);
    } finally {
      data.remove();
    }
  });

  it('fails with RIDEPORT_LISTEN when the port is taken', async () => {
    const data = temporaryDirectory();
    try {
      const first = await serve(['--data', data.path]);
      const port = new URL(first.url).port;
      const second = spawn(
        process.execPath,
        ['packages/cli/bin/rideport.js', 'serve', '--port', port, '--data', data.path],
        {
          cwd: REPOSITORY_ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      children.push(second);
      let stderr = '';
      second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const [code] = (await once(second, 'exit')) as [number | null];
      expect(code).toBe(1);
      expect(stderr).toMatch(
        /^rideport: serve: RIDEPORT_LISTEN: cannot listen on http:\/\/127\.0\.0\.1:\d+: .*EADDRINUSE/,
      );
    } finally {
      data.remove();
    }
  });
});

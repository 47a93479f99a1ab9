import { once } from 'node:events';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnRideport, type RideportChild } from '../test-support/child.js';
import { buildCli, temporaryDirectory } from '../test-support/run.js';

beforeAll(buildCli, 120_000);

const children: RideportChild[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.process.kill('SIGKILL');
});

/** Resolves once `output()` matches `pattern` (the child writes when it likes). */
async function waitFor(output: () => string, pattern: RegExp): Promise<void> {
  for (let waited = 0; !pattern.test(output()); waited += 20) {
    if (waited > 10_000) throw new Error(`${String(pattern)} not seen in: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `rideport serve` in a child process; resolves with its URL once it listens. */
async function serve(
  args: string[],
): Promise<{ child: RideportChild['process']; url: string; output: () => string }> {
  const child = spawnRideport(['serve', '--port', '0', ...args]);
  children.push(child);
  return { child: child.process, url: await child.listening(), output: child.output };
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
        error_codes: ['SERVER_NOT_AUTHORIZED'],
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
      const first = await serve(['--data', join(data.path, 'first')]);
      const port = new URL(first.url).port;
      const second = spawnRideport(['serve', '--port', port, '--data', join(data.path, 'second')]);
      children.push(second);
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(
        /^rideport: serve: RIDEPORT_LISTEN: cannot listen on http:\/\/127\.0\.0\.1:\d+: .*EADDRINUSE/,
      );
    } finally {
      data.remove();
    }
  });
});

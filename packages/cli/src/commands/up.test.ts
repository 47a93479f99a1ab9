import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ACCOUNT_EMAIL, type LocalAccount } from '@rideport/host';
import { desktopAppDataDirectory } from '../data-directory.js';
import { buildCli, REPOSITORY_ROOT, temporaryDirectory, unwrapped } from '../test-support/run.js';

type Child = ChildProcessByStdio<null, Readable, Readable>;

beforeAll(buildCli, 120_000);

const children: Child[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function waitFor<T>(
  look: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  limitMs = 30_000,
): Promise<T> {
  for (let waited = 0; ; waited += 50) {
    const found = await look();
    if (found !== undefined && found !== false) return found;
    if (waited > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The environment without npm's variables: as a rider's shell has it, not as `npx vitest` does. */
function shellEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
  return { ...env, ...extra };
}

/** `rideport up` in a child process; resolves once it syncs. */
async function up(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: Child; url: string; output: () => string; raw: () => string }> {
  const child = spawn(
    process.execPath,
    ['packages/cli/bin/rideport.js', 'up', '--port', '0', '--no-devices', ...args],
    {
      cwd: REPOSITORY_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = await waitFor(() => {
    if (exited) throw new Error(`up exited early: ${output}`);
    return /listening on (http:\/\/\S+)/.exec(output)?.[1];
  }, 'up to listen');
  await waitFor(() => unwrapped(output).includes('syncing '), 'up to start syncing');
  return { child, url, output: () => unwrapped(output), raw: () => output };
}

async function syncStatus(url: string, account: LocalAccount): Promise<{ counts: Record<string, number> }> {
  const response = await fetch(`${url}/api/v1/local/sync/status.json`, {
    headers: { 'x-service-api-key': account.apiKey, 'x-service-auth-token': account.authToken },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { sync: { counts: Record<string, number> } }).sync;
}

describe('rideport up, in a child process', () => {
  it('serves the platform, creates the local account once, and syncs the watched folder to it exactly once', async () => {
    const data = temporaryDirectory();
    try {
      const watched = join(data.path, 'rides');
      mkdirSync(watched);
      // Issue 35: `rideport` on the PATH is this very program (as after `npm install -g`), so the
      // commands to run next are printed as `rideport …`.
      const bin = join(data.path, 'bin');
      mkdirSync(bin);
      symlinkSync(join(REPOSITORY_ROOT, 'packages/cli/bin/rideport.js'), join(bin, 'rideport'));
      const onPath = shellEnvironment({ PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` });
      const first = await up(['--data', data.path, '--watch', watched], onPath);
      expect(first.output()).toMatch(
        new RegExp(
          `Created the local account ${LOCAL_ACCOUNT_EMAIL.replace('.', '\\.')} with the password \\S+ \\(shown only now\\)`,
        ),
      );
      const accountFile = join(data.path, 'local-account.json');
      expect(statSync(accountFile).mode & 0o777).toBe(0o600);
      const account = JSON.parse(readFileSync(accountFile, 'utf8')) as LocalAccount;

      // Where the data lives, and the desktop app's folder beside it (issue 20).
      expect(first.output()).toContain(
        `Data: ${data.path} (database, sync ledger and inbox, local account); the desktop app keeps its own in ${desktopAppDataDirectory()}: \`rideport up --data ${JSON.stringify(desktopAppDataDirectory())}\` runs on that one instead\n`,
      );

      // The dashboard link (issue 7): it signs the browser in once, as the local account.
      const link = /^Dashboard: (http:\/\/\S+)$/m.exec(first.output())?.[1];
      expect(link).toBeDefined();
      expect(first.output()).toContain(
        `works once, for 2 minutes; after that, \`rideport admin sign-in-link --data ${JSON.stringify(data.path)}\` makes a new one, or open ${first.url}/dashboard and sign in as ${LOCAL_ACCOUNT_EMAIL} (lost the password? \`rideport admin set-password --data ${JSON.stringify(data.path)}\`)`,
      );
      const signedIn = await fetch(link!, { redirect: 'manual' });
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.get('location')).toBe('/dashboard');
      const session = /rideport_session=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1];
      expect(session).toBeDefined();
      const syncPage = await fetch(`${first.url}/dashboard/sync`, {
        headers: { cookie: `rideport_session=${session!}` },
        redirect: 'manual',
      });
      expect(syncPage.status).toBe(200);
      expect(await syncPage.text()).toContain('Sync now');
      const reused = await fetch(link!, { redirect: 'manual' });
      expect(reused.status).toBe(400);
      expect(reused.headers.get('set-cookie') ?? '').not.toContain('rideport_session=');
      expect(await reused.text()).toContain(
        'This sign-in link has expired or has already been used: each link works once, within two minutes.',
      );

      copyFileSync(join(REPOSITORY_ROOT, 'fixtures/gpx/sample-ride.gpx'), join(watched, 'sample-ride.gpx'));
      await waitFor(
        async () => (await syncStatus(first.url, account)).counts['synced'] === 1,
        'the ride synced',
      );
      await waitFor(() => /synced sample-ride\.gpx → trip \d+/.test(first.output()), 'the synced line');
      const trips = await fetch(`${first.url}/api/v1/trips.json`, {
        headers: { 'x-service-api-key': account.apiKey, 'x-service-auth-token': account.authToken },
      });
      expect(((await trips.json()) as { trips: unknown[] }).trips).toHaveLength(1);

      // Only the local account may see the engine; without credentials it is a 401.
      expect((await fetch(`${first.url}/api/v1/local/sync/status.json`)).status).toBe(401);

      first.child.kill('SIGTERM');
      const [code] = (await once(first.child, 'exit')) as [number | null];
      expect(code).toBe(0);

      // Second start: the same account, no new password, and a token that no longer works is replaced.
      writeFileSync(accountFile, JSON.stringify({ ...account, authToken: 'revoked-or-expired' }));
      // Issue 35: started through npm (`npm start`), whose PATH the rider's shell does not have: the
      // commands to run next are printed as `npx rideport …`.
      const second = await up(['--data', data.path, '--watch', watched], {
        ...onPath,
        npm_lifecycle_event: 'start',
      });
      expect(second.output()).not.toMatch(/Created the local account/);
      expect(second.output()).toContain(
        `after that, \`npx rideport admin sign-in-link --data ${JSON.stringify(data.path)}\` makes a new one`,
      );
      const repaired = JSON.parse(readFileSync(accountFile, 'utf8')) as LocalAccount;
      expect(repaired).toMatchObject({ userId: account.userId, apiKey: account.apiKey });
      expect(repaired.authToken).not.toBe('revoked-or-expired');

      // Issue 35: where the API key and auth token are, and a first call that works as printed (run by
      // a shell here), with the token replaced just now; the token itself is never in the log.
      expect(second.output()).toContain(
        `API: the key ${repaired.apiKey}, and the local account's auth token in ${accountFile}`,
      );
      expect(second.raw()).not.toContain(repaired.authToken);
      const example = second
        .raw()
        .split('\n')
        .filter((line) => /^ {2}(token=|curl )/.test(line))
        .join('\n');
      expect(example).toMatch(/^ {2}token=.*\n {2}curl .*\/api\/v1\/trips\.json$/);
      const { stdout } = await promisify(execFile)('/bin/sh', ['-c', example]);
      expect((JSON.parse(stdout) as { trips: unknown[] }).trips).toHaveLength(1);
      copyFileSync(join(REPOSITORY_ROOT, 'fixtures/tcx/activity.tcx'), join(watched, 'activity.tcx'));
      const status = await waitFor(async () => {
        const current = await syncStatus(second.url, repaired);
        return current.counts['synced'] === 2 ? current : undefined;
      }, `the second ride synced: ${second.output()}`);
      expect(status.counts).toMatchObject({ found: 2, failed: 0 });
      second.child.kill('SIGTERM');
      await once(second.child, 'exit');
    } finally {
      data.remove();
    }
  }, 120_000);
});

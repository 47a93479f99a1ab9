/**
 * Issue 20: the data directory and everything in it are the owner's alone (folders 0700, files 0600)
 * whatever the umask, and one made before with looser modes is tightened at start. Real processes
 * under `umask 000`, as a rider's shell may run them.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildServer } from '@rideport/server';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildCli, REPOSITORY_ROOT, temporaryDirectory, unwrapped } from './test-support/run.js';

beforeAll(buildCli, 120_000);

let directory: ReturnType<typeof temporaryDirectory>;
const stops: (() => void)[] = [];
beforeEach(() => {
  directory = temporaryDirectory();
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  directory.remove();
});

/** `rideport ...args` in a child process under umask 000; resolves when `done` matches its output. */
/**
 * Runs rideport under umask 000 and resolves once its output matches `done`, while it may still be
 * running; `exited` settles when it has ended (a `--once` sync is still closing its databases, whose
 * -shm and -wal files come and go, when it prints its summary).
 */
function rideportUnderUmask000(
  args: string[],
  done: RegExp,
): Promise<{ output: string; stop: () => void; exited: Promise<void> }> {
  const child = spawn(
    '/bin/sh',
    ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, 'packages/cli/bin/rideport.js', ...args],
    {
      cwd: REPOSITORY_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stop = (): void => {
    child.kill('SIGKILL');
  };
  stops.push(stop);
  let output = '';
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => {
      resolve();
    });
  });
  return new Promise((resolve, reject) => {
    const look = (chunk: Buffer): void => {
      output += chunk.toString();
      if (done.test(unwrapped(output))) resolve({ output: unwrapped(output), stop, exited });
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('close', (code) => {
      if (done.test(unwrapped(output))) resolve({ output: unwrapped(output), stop, exited });
      else reject(new Error(`rideport ${args[0] ?? ''} exited with ${String(code)}: ${output}`));
    });
  });
}

/** Every entry under `root` (itself included) with its permission bits, as `path mode` lines. */
function modes(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (path: string): void => {
    const stats = lstatSync(path);
    found[relative(root, path) || '.'] = (stats.mode & 0o777).toString(8);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
}

function expectOwnerOnly(root: string): Record<string, string> {
  const found = modes(root);
  for (const [path, mode] of Object.entries(found)) {
    const isFolder = lstatSync(join(root, path)).isDirectory();
    expect(`${path} ${mode}`).toBe(`${path} ${isFolder ? '700' : '600'}`);
  }
  return found;
}

function rideFolder(): string {
  const folder = join(directory.path, 'rides');
  mkdirSync(folder);
  copyFileSync(join(REPOSITORY_ROOT, 'fixtures/gpx/sample-ride.gpx'), join(folder, 'ride.gpx'));
  return folder;
}

describe.skipIf(process.platform === 'win32')('the data directory is its owner’s alone (issue 20)', () => {
  it('rideport up makes everything 0700/0600 under umask 000, the database’s -wal and -shm included', async () => {
    const data = join(directory.path, 'data');
    const up = await rideportUnderUmask000(
      ['up', '--port', '0', '--no-devices', '--data', data, '--watch', rideFolder()],
      /^synced ride\.gpx/m,
    );
    const found = expectOwnerOnly(data);
    // What the issue named is there to be checked, while the server runs.
    for (const path of [
      'rideport.sqlite',
      'rideport.sqlite-wal',
      'rideport.sqlite-shm',
      'sync',
      'sync/local/ledger.sqlite',
      'sync/local/inbox',
      'rideport.lock',
      'local-account.json',
      'master.key',
    ]) {
      expect(Object.keys(found)).toContain(path);
    }
    up.stop();
  });

  it('rideport up tightens a data directory made before with looser modes', async () => {
    const data = join(directory.path, 'data');
    const first = await rideportUnderUmask000(
      ['up', '--port', '0', '--no-devices', '--data', data, '--watch', rideFolder()],
      /^synced ride\.gpx/m,
    );
    first.stop();
    // Its files are changed once it has exited, not while it may still write them.
    await first.exited;
    for (const path of Object.keys(modes(data))) {
      const full = join(data, path);
      chmodSync(full, lstatSync(full).isDirectory() ? 0o777 : 0o666);
    }
    await rideportUnderUmask000(['up', '--port', '0', '--no-devices', '--data', data], /^Dashboard: /m);
    expectOwnerOnly(data);
  });

  it('rideport sync and rideport admin make their data directory 0700/0600 under umask 000, and tighten it', async () => {
    const app = await buildServer({
      databasePath: join(directory.path, 'server.sqlite'),
      baseUrl: 'http://127.0.0.1',
    });
    stops.push(() => void app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    const user = await app.rideport.store.users.createPerson({
      email: 'r@example.com',
      password: 'long enough',
    });
    const client = await app.rideport.store.apiClients.create(user.id, { name: 'Sync', redirectUris: [] });
    const { token } = await app.rideport.store.authTokens.issue(user.id, client.id);
    const data = join(directory.path, 'sync-data');
    const args = [
      'sync',
      '--server',
      `http://127.0.0.1:${address.port}`,
      '--api-key',
      client.apiKey,
      '--auth-token',
      token,
      '--data',
      data,
      '--import',
      'all',
      '--once',
      rideFolder(),
    ];
    // Looked at once the run has ended: its databases' -shm and -wal files go when they close.
    await (
      await rideportUnderUmask000(args, /^1 synced/m)
    ).exited;
    const found = expectOwnerOnly(data);
    expect(Object.keys(found).some((path) => path.endsWith('ledger.sqlite'))).toBe(true);
    chmodSync(data, 0o755);
    for (const path of Object.keys(found))
      chmodSync(join(data, path), lstatSync(join(data, path)).isDirectory() ? 0o755 : 0o644);
    // Nothing new this time: the summary of this run.
    await (
      await rideportUnderUmask000(args, /^0 synced/m)
    ).exited;
    expectOwnerOnly(data);

    const admin = join(directory.path, 'admin-data');
    const created = await rideportUnderUmask000(
      ['admin', 'create-user', '--data', admin, '--email', 'a@example.com', '--password', 'long enough'],
      /^created user/m,
    );
    await created.exited;
    expectOwnerOnly(admin);
  });
});

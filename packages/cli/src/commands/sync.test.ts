import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildServer, type Store } from '@rideport/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnRideport } from '../test-support/child.js';
import { REPOSITORY_ROOT, rideport, temporaryDirectory } from '../test-support/run.js';

let directory: ReturnType<typeof temporaryDirectory>;
let server: { url: string; store: Store; close: () => Promise<void> };
let credentials: { apiKey: string; authToken: string; email: string; password: string };

beforeEach(async () => {
  directory = temporaryDirectory();
  const app = await buildServer({
    databasePath: join(directory.path, 'server.sqlite'),
    baseUrl: 'http://127.0.0.1',
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  server = { url: `http://127.0.0.1:${address.port}`, store: app.rideport.store, close: () => app.close() };
  const email = 'rider@example.com';
  const password = 'long enough';
  const user = await server.store.users.createPerson({ email, password });
  const client = await server.store.apiClients.create(user.id, { name: 'Sync', redirectUris: [] });
  const { token } = await server.store.authTokens.issue(user.id, client.id);
  credentials = { apiKey: client.apiKey, authToken: token, email, password };
});

afterEach(async () => {
  await server.close();
  directory.remove();
});

/** A folder holding a GPX, a FIT and a TCX fixture, and a well-formed GPX with no track in it. */
function rideFolder(): string {
  const folder = join(directory.path, 'device', 'Activity');
  mkdirSync(folder, { recursive: true });
  copyFileSync(join(REPOSITORY_ROOT, 'fixtures/gpx/sample-ride.gpx'), join(folder, 'sample-ride.gpx'));
  copyFileSync(join(REPOSITORY_ROOT, 'fixtures/fit/wheel-ble-speed.fit'), join(folder, 'wheel.fit'));
  copyFileSync(join(REPOSITORY_ROOT, 'fixtures/tcx/activity.tcx'), join(folder, 'activity.tcx'));
  writeFileSync(
    join(folder, 'empty.gpx'),
    '<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"></gpx>',
  );
  return folder;
}

function syncArgs(...extra: string[]): string[] {
  return [
    'sync',
    '--server',
    server.url,
    '--api-key',
    credentials.apiKey,
    '--data',
    join(directory.path, 'data'),
    ...extra,
  ];
}

async function tripCount(): Promise<number> {
  const user = await server.store.users.findByEmail(credentials.email);
  const page = await fetch(`${server.url}/api/v1/trips.json?page_size=200`, {
    headers: { 'x-service-api-key': credentials.apiKey, 'x-service-auth-token': credentials.authToken },
  });
  const body = (await page.json()) as { trips: { user_id: number }[] };
  return body.trips.filter((trip) => trip.user_id === user?.id).length;
}

describe('rideport sync --once', () => {
  it('says once that a byte-identical copy of a ride is not uploaded again (issue 35)', async () => {
    const folder = join(directory.path, 'rides');
    mkdirSync(folder);
    copyFileSync(join(REPOSITORY_ROOT, 'fixtures/gpx/sample-ride.gpx'), join(folder, 'a-ride.gpx'));
    copyFileSync(join(REPOSITORY_ROOT, 'fixtures/gpx/sample-ride.gpx'), join(folder, 'b-copy.gpx'));
    const args = [...syncArgs('--auth-token', credentials.authToken, '--import', 'all', '--once'), folder];
    const first = await rideport(args);
    expect(first.status).toBe(0);
    // Whichever of the two the folder lists first is the ride, the other the copy; the line says what
    // the ride had become when it was said (queued still, or synced).
    const said = first.stdout.split('\n').filter((line) => line.startsWith('not uploaded again: '));
    expect(said).toHaveLength(1);
    const [, copy, ride] =
      /^not uploaded again: ([\w-]+\.gpx) has the same bytes as ([\w-]+\.gpx), (?:uploaded once, as that file|synced already → trip \d+)$/.exec(
        said[0]!,
      ) ?? [];
    expect([copy, ride].sort()).toEqual(['a-ride.gpx', 'b-copy.gpx']);
    expect(first.stdout).toMatch(new RegExp(`^synced ${ride!.replace('.', '\\.')} → trip \\d+ `, 'm'));
    expect(await tripCount()).toBe(1);
    // Said once: another pass says nothing of it.
    const again = await rideport(args);
    expect(again.stdout).not.toContain('not uploaded again');
    // A copy found after its ride was synced names the trip.
    copyFileSync(join(REPOSITORY_ROOT, 'fixtures/gpx/sample-ride.gpx'), join(folder, 'c-copy.gpx'));
    const later = await rideport(args);
    expect(later.stdout).toMatch(
      new RegExp(
        `^not uploaded again: c-copy\\.gpx has the same bytes as ${ride!}, synced already → trip \\d+$`,
        'm',
      ),
    );
  });

  it('uploads each ride once, names what the server rejected, and uploads nothing again', async () => {
    const folder = rideFolder();
    const first = await rideport([
      ...syncArgs('--auth-token', credentials.authToken, '--import', 'all', '--once'),
      folder,
    ]);
    expect(first.stderr).toBe(
      'rideport: sync: RIDEPORT_RIDES_FAILED: 1 ride failed (the lines above say why); --retry-failed uploads them again\n',
    );
    expect(first.status).toBe(1);
    const lines = first.stdout.split('\n');
    for (const name of ['sample-ride.gpx', 'wheel.fit', 'activity.tcx']) {
      expect(lines).toContainEqual(
        expect.stringMatching(new RegExp(`^synced ${name.replace('.', '\\.')} → trip \\d+`)),
      );
    }
    // In words, never led by the parser's code (issue 16).
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^failed empty\.gpx: Could not read the file: the GPX file holds no track points/,
      ),
    );
    expect(first.stdout).not.toContain('RIDEFILE_');
    expect(lines).toContain('3 synced, 1 failed, 0 not uploaded yet, 0 not complete yet');
    const trips = await tripCount();
    expect(trips).toBeGreaterThanOrEqual(3);

    // The ledger remembers: nothing is uploaded again, and the failure stays until asked.
    const again = await rideport([...syncArgs('--auth-token', credentials.authToken, '--once'), folder]);
    // The summary counts this run (issue 20): nothing new, and the earlier failure said apart.
    expect(again.stdout).toBe(
      '0 synced, 0 failed, 0 not uploaded yet, 0 not complete yet; 1 failed before (--retry-failed uploads them again)\n',
    );
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    expect(await tripCount()).toBe(trips);

    const retried = await rideport([
      ...syncArgs('--auth-token', credentials.authToken, '--once', '--retry-failed'),
      folder,
    ]);
    expect(retried.stdout).toMatch(/^failed empty\.gpx: Could not read the file: /m);
    expect(await tripCount()).toBe(trips);
  });

  it('signs in with email and password', async () => {
    const folder = rideFolder();
    const run = await rideport([
      ...syncArgs(
        '--email',
        credentials.email,
        '--password',
        credentials.password,
        '--import',
        'all',
        '--once',
      ),
      folder,
    ]);
    expect(run.stdout).toContain('3 synced, 1 failed');
  });

  it('says when the server refuses the credentials, and keeps the rides for later', async () => {
    const folder = rideFolder();
    const refused = await rideport([
      ...syncArgs('--auth-token', 'not-a-token', '--import', 'all', '--once'),
      folder,
    ]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^rideport: sync: RIDEPORT_SIGN_IN: the server refused the credentials: /);
    expect(refused.stdout).toContain('0 synced, 0 failed, 4 not uploaded yet');
    // Collected meanwhile: with good credentials they go up without being told the window again.
    const run = await rideport([...syncArgs('--auth-token', credentials.authToken, '--once'), folder]);
    expect(run.stdout).toContain('3 synced, 1 failed, 0 not uploaded yet');
  });

  it('says when the server cannot be reached', async () => {
    const folder = rideFolder();
    await server.close();
    const run = await rideport([
      ...syncArgs('--auth-token', credentials.authToken, '--import', 'all', '--once'),
      folder,
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^rideport: sync: RIDEPORT_UNREACHABLE: the server cannot be reached: /);
    expect(run.stdout + run.stderr).not.toContain('trying again');
    server.close = () => Promise.resolve();
  });

  it('a failed sign-in with email and password is an error line', async () => {
    const run = await rideport([
      ...syncArgs('--email', credentials.email, '--password', 'wrong password', '--once'),
      rideFolder(),
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^rideport: sync: sign-in: CLIENT_UNAUTHORIZED: /);
  });
});

describe('rideport sync --once: exit status and words for each case (issue 20)', () => {
  it('a named folder that does not exist is an error, and nothing of the other folders is uploaded', async () => {
    const folder = rideFolder();
    const missing = join(directory.path, 'no-such-folder');
    const run = await rideport([
      ...syncArgs('--auth-token', credentials.authToken, '--import', 'all', '--once'),
      folder,
      missing,
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `rideport: sync: RIDEPORT_NO_FOLDER: ${missing} does not exist; nothing was uploaded\n`,
    );
    expect(run.stdout).toBe('');
    expect(await tripCount()).toBe(0);
    const file = join(folder, 'wheel.fit');
    const notFolder = await rideport([
      ...syncArgs('--auth-token', credentials.authToken, '--import', 'all', '--once'),
      file,
    ]);
    expect(notFolder.stderr).toBe(
      `rideport: sync: RIDEPORT_NO_FOLDER: ${file} is not a folder; nothing was uploaded\n`,
    );
  });

  it('files that are not complete yet say why and until when, and the exit status is 1', async () => {
    const folder = rideFolder();
    const whole = readFileSync(join(REPOSITORY_ROOT, 'fixtures/fit/wheel-ble-speed.fit'));
    writeFileSync(join(folder, 'being-copied.fit'), whole.subarray(0, Math.floor(whole.length / 2)));
    const startedMs = Date.now();
    const run = await rideport([
      ...syncArgs('--auth-token', credentials.authToken, '--import', 'all', '--once'),
      folder,
    ]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('3 synced, 1 failed, 0 not uploaded yet, 1 not complete yet\n');
    const said =
      /^not complete yet: being-copied\.fit \((.+)\); taken as it is at (\d\d:\d\d:\d\d) UTC unless it changes or is whole before$/m.exec(
        run.stdout,
      );
    expect(said).not.toBeNull();
    // The grace period: 2 minutes after the file was first seen unchanged.
    const takenMs = Date.parse(`${new Date(startedMs).toISOString().slice(0, 11)}${said![2]!}Z`);
    expect(Math.abs(takenMs - (startedMs + 120_000))).toBeLessThan(60_000);
    expect(run.stderrLines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^rideport: sync: RIDEPORT_NOT_COMPLETE: 1 file not complete yet, so not uploaded \\(being-copied\\.fit: .+\\); a file that stays as it is is taken as it is after 2 minutes: sync again after ${said![2]!} UTC$`,
        ),
      ),
    );
  });

  it.each([
    [
      'a refused token',
      () => ['--auth-token', 'not-a-token'],
      /^rideport: sync: RIDEPORT_SIGN_IN: the server refused the credentials: /,
    ],
    [
      'a server that cannot be reached',
      () => ['--auth-token', credentials.authToken, '--server', 'http://127.0.0.1:9'],
      /^rideport: sync: RIDEPORT_UNREACHABLE: the server cannot be reached: /,
    ],
  ])(
    '%s is an error even with nothing to upload, and says no "trying again"',
    async (_case, options, message) => {
      const empty = join(directory.path, 'empty');
      mkdirSync(empty);
      const run = await rideport([...syncArgs(...options(), '--import', 'all', '--once'), empty]);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('0 synced, 0 failed, 0 not uploaded yet, 0 not complete yet\n');
      expect(run.stdout + run.stderr).not.toContain('trying again');
    },
  );
});

describe('rideport sync: credentials as printed (issue 20)', () => {
  /** A real token of the server that begins with '-', as 1 in 64 do. */
  async function dashedToken(): Promise<string> {
    const user = await server.store.users.findByEmail(credentials.email);
    const client = await server.store.apiClients.findByApiKey(credentials.apiKey);
    for (;;) {
      const { token } = await server.store.authTokens.issue(user!.id, client!.id);
      if (token.startsWith('-')) return token;
    }
  }

  it.each([
    ['--auth-token <t>', (token: string) => ['--auth-token', token]],
    ['--auth-token=<t>', (token: string) => [`--auth-token=${token}`]],
  ])('takes a token that begins with "-" as %s', async (_form, option) => {
    const token = await dashedToken();
    const run = await rideport([...syncArgs(...option(token), '--import', 'all', '--once'), rideFolder()]);
    expect(run.stderr).toMatch(/^$|RIDEPORT_/);
    expect(run.stdout).toContain('3 synced, 1 failed');
  });

  it('takes the API key and the token from the environment', async () => {
    const token = await dashedToken();
    const args = syncArgs('--import', 'all', '--once').filter(
      (arg) => arg !== '--api-key' && arg !== credentials.apiKey,
    );
    const run = await rideport([...args, rideFolder()], undefined, {
      RIDEPORT_API_KEY: credentials.apiKey,
      RIDEPORT_AUTH_TOKEN: token,
    });
    expect(run.stdout).toContain('3 synced, 1 failed');
  });

  it('takes the password from the environment, one that begins with "-" too', async () => {
    const password = '-hA7Tq_1-long';
    await server.store.users.createPerson({ email: 'dash@example.com', password });
    const run = await rideport(
      [...syncArgs('--email', 'dash@example.com', '--import', 'all', '--once'), rideFolder()],
      undefined,
      { RIDEPORT_PASSWORD: password, RIDEPORT_AUTH_TOKEN: 'ignored: --email chose the password' },
    );
    expect(run.stdout).toContain('3 synced, 1 failed');
    const asOption = await rideport([
      ...syncArgs('--email', 'dash@example.com', '--password', password, '--once'),
      rideFolder(),
    ]);
    // The same folder and ledger: nothing new to upload, and the password still checked.
    expect(asOption.stderr).toBe('');
    expect(asOption.status).toBe(0);
    expect(asOption.stdout).toContain('0 synced, 0 failed');
  });

  it('an option wins over its variable', async () => {
    const run = await rideport(
      [...syncArgs('--auth-token', credentials.authToken, '--import', 'all', '--once'), rideFolder()],
      undefined,
      { RIDEPORT_AUTH_TOKEN: 'not-a-token', RIDEPORT_API_KEY: 'not-a-key' },
    );
    expect(run.stdout).toContain('3 synced, 1 failed');
  });
});

describe('rideport sync, running', () => {
  it('waits for a folder that is not there yet (a device not plugged in) until told to stop', async () => {
    const child = spawnRideport([
      ...syncArgs('--auth-token', credentials.authToken, '--import', 'all'),
      join(directory.path, 'not-plugged-in'),
    ]);
    for (let waited = 0; !child.output().includes('stop with Ctrl-C'); waited += 50) {
      if (waited > 30_000) throw new Error(`rideport sync did not start: ${child.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Several turns of its timers: it must still be there, waiting.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(child.process.exitCode).toBeNull();
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(child.output()).toContain('SIGTERM: stopping');
  });
});

describe('rideport sync: bad usage', () => {
  it.each([
    ['no server', ['sync', '--api-key', 'k', '--auth-token', 't'], /--server must be the http or https URL/],
    [
      'no API key',
      ['sync', '--server', 'http://127.0.0.1:1', '--auth-token', 't'],
      /--api-key \(or RIDEPORT_API_KEY\) is required/,
    ],
    [
      'a password without an email',
      ['sync', '--server', 'http://127.0.0.1:1', '--api-key', 'k', '--password', 'p'],
      /--email and --password go together/,
    ],
    [
      'an option where a value should be',
      ['sync', '--server', 'http://127.0.0.1:1', '--api-key', 'k', '--auth-token', '--once'],
      /option '--auth-token' needs a value/,
    ],
    [
      'no credentials',
      ['sync', '--server', 'http://127.0.0.1:1', '--api-key', 'k'],
      /give either --auth-token \(or RIDEPORT_AUTH_TOKEN\) or --email and --password \(or RIDEPORT_PASSWORD\)/,
    ],
    [
      'both kinds of credentials',
      [
        'sync',
        '--server',
        'http://127.0.0.1:1',
        '--api-key',
        'k',
        '--auth-token',
        't',
        '--email',
        'e@x.org',
        '--password',
        'p',
      ],
      /give either --auth-token .* or --email and --password .*, not both/,
    ],
    [
      'a bad import window',
      [
        'sync',
        '--server',
        'http://127.0.0.1:1',
        '--api-key',
        'k',
        '--auth-token',
        't',
        '--import',
        'yesterday',
      ],
      /--import must be all, new or <N>d/,
    ],
  ])('%s is status 2', async (_name, args, message) => {
    const run = await rideport(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('asks for the import window of a new folder when there is no terminal to ask on', async () => {
    const folder = rideFolder();
    const run = await rideport([...syncArgs('--auth-token', credentials.authToken, '--once'), folder]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /first sync of .*device\/Activity: say how far back to import with --import all\|new\|<N>d/,
    );
  });
});

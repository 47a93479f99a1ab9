/**
 * Issue 20: a rider who lost the printed password and whose sign-in link expired gets in again with
 * `rideport admin sign-in-link` and `rideport admin set-password`, against a real `rideport up`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_ACCOUNT_EMAIL } from '@rideport/host';
import { databasePathIn, openPlatform } from '@rideport/server';
import { spawnRideport, type RideportChild } from '../test-support/child.js';
import { buildCli, rideport, temporaryDirectory } from '../test-support/run.js';

let directory: ReturnType<typeof temporaryDirectory>;
let up: RideportChild;
let url: string;

beforeAll(async () => {
  await buildCli();
  directory = temporaryDirectory();
  up = spawnRideport(['up', '--port', '0', '--no-devices', '--data', directory.path]);
  url = await up.listening();
  // The account exists once the first link is printed.
  for (let waited = 0; !up.output().includes('Dashboard: '); waited += 50) {
    if (waited > 30_000) throw new Error(`up printed no link: ${up.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 120_000);

afterAll(async () => {
  up.process.kill('SIGTERM');
  await up.exited;
  directory.remove();
});

/** `rideport admin sign-in-link ...args --data <data>` */
function signInLink(data: string, ...args: string[]): ReturnType<typeof rideport> {
  return rideport(['admin', 'sign-in-link', ...args, '--data', data]);
}

/** Opens a sign-in link as a browser would: the session cookie it sets, or null when refused. */
async function openLink(link: string): Promise<string | null> {
  const response = await fetch(link, { redirect: 'manual' });
  if (response.status !== 303) return null;
  expect(response.headers.get('location')).toBe('/dashboard');
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

async function dashboardStatus(cookie: string): Promise<number> {
  return (await fetch(`${url}/dashboard/rides`, { headers: { cookie }, redirect: 'manual' })).status;
}

async function passwordWorks(email: string, password: string): Promise<boolean> {
  const platform = await openPlatform({ databasePath: databasePathIn(directory.path), baseUrl: url });
  try {
    return (await platform.store.users.authenticate(email, password)) !== undefined;
  } finally {
    await platform.close();
  }
}

describe('rideport admin sign-in-link', () => {
  it('makes a link to the running server that signs the local account in once', async () => {
    const run = await signInLink(directory.path);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^Sign-in link for ${LOCAL_ACCOUNT_EMAIL} \\(works once, for 2 minutes\\):\\n`),
    );
    const link = run.stdout.trim().split('\n')[1]!;
    expect(link.startsWith(`${url}/sign-in/link?token=`)).toBe(true);
    const cookie = await openLink(link);
    expect(cookie).not.toBeNull();
    expect(await dashboardStatus(cookie!)).toBe(200);
    expect(await openLink(link)).toBeNull();
  });

  it('names the account with --user, and says so when there is no such account', async () => {
    const json = await signInLink(directory.path, '--user', LOCAL_ACCOUNT_EMAIL, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ email: LOCAL_ACCOUNT_EMAIL, expires_in_seconds: 120 });
    const unknown = await signInLink(directory.path, '--user', 'no@example.com');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe(
      'rideport: admin sign-in-link: RIDEPORT_NOT_FOUND: no user has the email no@example.com\n',
    );
  });

  it('says that no server runs on a data directory, unless told the address', async () => {
    const other = temporaryDirectory();
    try {
      await rideport([
        'admin',
        'create-user',
        '--email',
        'a@example.com',
        '--password',
        'long enough',
        '--data',
        other.path,
      ]);
      const refused = await signInLink(other.path, '--user', 'a@example.com');
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(
        /^rideport: admin sign-in-link: RIDEPORT_NOT_RUNNING: no Rideport server runs on .*: start rideport up/,
      );
      const told = await signInLink(
        other.path,
        '--user',
        'a@example.com',
        '--base-url',
        'https://rides.example.org',
      );
      expect(told.stdout).toMatch(/^https:\/\/rides\.example\.org\/sign-in\/link\?token=/m);
    } finally {
      other.remove();
    }
  });
});

describe('rideport admin set-password', () => {
  it('makes a new password, prints it once, and signs every browser out', async () => {
    const link = (await signInLink(directory.path)).stdout.trim().split('\n')[1]!;
    const cookie = (await openLink(link))!;
    expect(await dashboardStatus(cookie)).toBe(200);
    const run = await rideport(['admin', 'set-password', '--data', directory.path]);
    expect(run.status).toBe(0);
    const match =
      /^set the password of (\S+) to (\S+) \(shown only now\); (\d+) browsers? (?:was|were) signed out, auth tokens keep working\n$/.exec(
        run.stdout,
      );
    expect(match?.[1]).toBe(LOCAL_ACCOUNT_EMAIL);
    // This browser and the one of the test before.
    expect(Number(match![3])).toBeGreaterThanOrEqual(1);
    expect(await passwordWorks(LOCAL_ACCOUNT_EMAIL, match![2]!)).toBe(true);
    expect(await dashboardStatus(cookie)).not.toBe(200);
  });

  it('takes the password as printed, one that begins with "-", from the option or RIDEPORT_PASSWORD', async () => {
    const password = '-hA7Tq_1-long';
    const asOption = await rideport([
      'admin',
      'set-password',
      '--password',
      password,
      '--data',
      directory.path,
    ]);
    expect(asOption.stdout).toBe(
      `set the password of ${LOCAL_ACCOUNT_EMAIL}; 0 browsers were signed out, auth tokens keep working\n`,
    );
    expect(await passwordWorks(LOCAL_ACCOUNT_EMAIL, password)).toBe(true);
    const fromEnv = await rideport(['admin', 'set-password', '--data', directory.path, '--json'], undefined, {
      RIDEPORT_PASSWORD: '-another one',
    });
    expect(JSON.parse(fromEnv.stdout)).toEqual({ user_id: 1, email: LOCAL_ACCOUNT_EMAIL, sessions_ended: 0 });
    expect(await passwordWorks(LOCAL_ACCOUNT_EMAIL, '-another one')).toBe(true);
  });

  it('refuses a short password before it changes anything', async () => {
    const run = await rideport(['admin', 'set-password', '--password', 'short', '--data', directory.path]);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'rideport: usage: admin set-password: --password must have at least 8 characters\n',
    );
    expect(await passwordWorks(LOCAL_ACCOUNT_EMAIL, '-another one')).toBe(true);
  });
});

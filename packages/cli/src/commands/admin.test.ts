import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { trackFromPoints } from '@rideport/ridefile';
import { openPlatform, databasePathIn } from '@rideport/server';
import { rideport, temporaryDirectory } from '../test-support/run.js';

let directory: ReturnType<typeof temporaryDirectory>;
beforeEach(() => {
  directory = temporaryDirectory();
});
afterEach(() => {
  directory.remove();
});

async function admin(...args: string[]): Promise<Record<string, unknown>> {
  const run = await rideport(['admin', ...args, '--data', directory.path, '--json']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe('rideport admin', () => {
  it('creates a user, an organization, a client and a token that the platform accepts', async () => {
    const user = await admin(
      'create-user',
      '--email',
      'anna@example.com',
      '--password',
      'long enough',
      '--name',
      'Anna',
    );
    expect(user).toEqual({ id: 1, email: 'anna@example.com', name: 'Anna' });
    const organization = await admin('create-org', '--name', 'Velo Club', '--admin', 'anna@example.com');
    expect(organization).toEqual({ id: 2, name: 'Velo Club' });
    const client = await admin(
      'create-client',
      '--owner',
      'anna@example.com',
      '--name',
      'Sync',
      '--redirect-uri',
      'https://a.example/cb',
      '--redirect-uri',
      'myapp://cb',
      '--webhook-url',
      'https://a.example/hook',
    );
    expect(Object.keys(client)).toEqual(['id', 'name', 'api_key', 'client_id', 'client_secret']);
    expect(client['client_id']).toBe(client['api_key']);
    const token = await admin(
      'create-token',
      '--user',
      'anna@example.com',
      '--api-key',
      client['api_key'] as string,
    );
    expect(token).toMatchObject({ api_key: client['api_key'], user_id: 1 });

    const platform = await openPlatform({
      databasePath: databasePathIn(directory.path),
      baseUrl: 'http://x',
    });
    try {
      const stored = await platform.store.apiClients.findByApiKey(client['api_key'] as string);
      expect(stored?.redirectUris).toEqual(['https://a.example/cb', 'myapp://cb']);
      expect(stored?.webhookUrl).toBe('https://a.example/hook');
      expect(
        await platform.store.apiClients.authenticate(
          client['api_key'] as string,
          client['client_secret'] as string,
        ),
      ).toBeDefined();
      const check = await platform.store.authTokens.check(token['auth_token'] as string, stored!.id);
      expect(check.ok).toBe(true);
      expect(await platform.store.users.roleIn(2, 1)).toBe('admin');
    } finally {
      await platform.close();
    }
  });

  it('adds members to an organization', async () => {
    await admin('create-user', '--email', 'a@example.com', '--password', 'long enough');
    await admin('create-user', '--email', 'b@example.com', '--password', 'long enough');
    await admin('create-org', '--name', 'Club', '--admin', 'a@example.com');
    expect(await admin('add-member', '--org', '3', '--user', 'b@example.com')).toEqual({
      organization_id: 3,
      user_id: 2,
      role: 'member',
    });
  });

  it('takes a shared route out of a club (issue 20, "Clubs"), and says when it is not there', async () => {
    await admin('create-user', '--email', 'a@example.com', '--password', 'long enough');
    await admin('create-org', '--name', 'Club', '--admin', 'a@example.com');
    const platform = await openPlatform({
      databasePath: databasePathIn(directory.path),
      baseUrl: 'http://x',
    });
    let routeId: number;
    try {
      const points = Array.from({ length: 10 }, (_, i) => ({ x: 8.3 + i * 1e-3, y: 47.05 }));
      routeId = (await platform.store.assets.createFromTrack(1, trackFromPoints(points, { name: 'Loop' })))
        .row.id;
      expect(await platform.store.clubs.shareRoute(2, routeId, 1)).toBe('shared');
    } finally {
      await platform.close();
    }
    expect(await admin('unshare-route', '--club', '2', '--route', String(routeId))).toEqual({
      club_id: 2,
      route_id: routeId,
      removed: true,
    });
    const again = await rideport([
      'admin',
      'unshare-route',
      '--data',
      directory.path,
      '--club',
      '2',
      '--route',
      String(routeId),
    ]);
    expect(again.status).toBe(1);
    expect(again.stderrLines).toEqual([
      `rideport: admin unshare-route: RIDEPORT_NOT_FOUND: route ${routeId} is not shared with club 2`,
    ]);
    const badId = await rideport([
      'admin',
      'unshare-route',
      '--data',
      directory.path,
      '--club',
      'x',
      '--route',
      '1',
    ]);
    expect(badId.status).toBe(2);
    expect(badId.stderr).toMatch(/--club must be an id/);
  });

  it('names what is missing or taken, with the exit status of a failed operation', async () => {
    await admin('create-user', '--email', 'a@example.com', '--password', 'long enough');
    const taken = await rideport([
      'admin',
      'create-user',
      '--data',
      directory.path,
      '--email',
      'A@example.com',
      '--password',
      'long enough',
    ]);
    expect(taken.status).toBe(1);
    expect(taken.stderrLines).toEqual([
      'rideport: admin create-user: RIDEPORT_CONFLICT: a user with the email A@example.com exists already',
    ]);
    const unknown = await rideport([
      'admin',
      'create-org',
      '--data',
      directory.path,
      '--name',
      'X',
      '--admin',
      'nobody@example.com',
    ]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderrLines).toEqual([
      'rideport: admin create-org: RIDEPORT_NOT_FOUND: no user has the email nobody@example.com',
    ]);
    const badKey = await rideport([
      'admin',
      'create-token',
      '--data',
      directory.path,
      '--user',
      'a@example.com',
      '--api-key',
      'nope',
    ]);
    expect(badKey.stderrLines).toEqual([
      'rideport: admin create-token: RIDEPORT_NOT_FOUND: no API client has the key nope',
    ]);
  });

  it('checks usage before it creates a database', async () => {
    for (const [args, message] of [
      [['create-user', '--email', 'a@example.com'], /--password is required/],
      [['create-user', '--email', 'a@example.com', '--password', 'short'], /at least 8 characters/],
      [['frobnicate'], /unknown subcommand 'frobnicate'/],
      [
        ['create-client', '--owner', 'a@example.com', '--name', 'X', '--redirect-uri', 'not a url'],
        /'not a url' is not a URL/,
      ],
    ] as const) {
      const sub = await rideport(['admin', ...args, '--data', `${directory.path}/fresh`]);
      expect(sub.status).toBe(2);
      expect(sub.stderr).toMatch(message);
    }
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${directory.path}/fresh/rideport.sqlite`)).toBe(false);
  });

  it('purges finished upload tasks: the successful ones, and failed ones only after 30 days', async () => {
    const user = await admin('create-user', '--email', 'a@example.com', '--password', 'long enough');
    const platform = await openPlatform({
      databasePath: databasePathIn(directory.path),
      baseUrl: 'http://x',
    });
    try {
      for (const [name, status] of [
        ['done', 1],
        ['broken', -1],
        ['waiting', 0],
      ] as const) {
        await platform.store.tasks.create({
          userId: user['id'] as number,
          apiClientId: null,
          sha256: name,
          filename: name,
          bytes: Buffer.from(name),
          metadata: {},
        });
        if (status === 0) continue;
        const task = await platform.store.tasks.claim('admin test', 1000);
        await platform.store.tasks.finish(task!.id, 'admin test', {
          status,
          responseCode: status === 1 ? 'success' : 'failed',
          message: name,
          errorCode: status === 1 ? null : 'UPLOAD_LOST',
          objects: [],
        });
      }
    } finally {
      await platform.close();
    }
    expect(await admin('purge-tasks')).toEqual({ successful: 1, failed: 0 });
    const again = await rideport(['admin', 'purge-tasks', '--data', directory.path]);
    expect(again.stdout).toBe('purged 0 successful and 0 failed upload tasks\n');
  });
});

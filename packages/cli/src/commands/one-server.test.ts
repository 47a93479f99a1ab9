/**
 * One server per data directory (issue 17), over real `rideport` processes: two servers on one folder
 * both ran the upload queue and both delivered webhooks; a zero-byte database beside master.key was
 * silently made anew.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { syncFolders } from '@rideport/sync';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { snapshotDirectory } from '../../../server/src/test-support/directory-snapshot.js';
import { spawnRideport, type RideportChild } from '../test-support/child.js';
import { buildCli, rideport, temporaryDirectory } from '../test-support/run.js';

beforeAll(buildCli, 120_000);

const children: RideportChild[] = [];
let data: ReturnType<typeof temporaryDirectory>;
beforeEach(() => {
  data = temporaryDirectory();
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.process.kill('SIGKILL');
    await child.exited;
  }
  data.remove();
});

function start(args: string[]): RideportChild {
  const child = spawnRideport([...args, '--port', '0']);
  children.push(child);
  return child;
}

/** The sentence a refused server prints, naming the holder by pid, command and URL. */
function inUse(command: 'serve' | 'up', directory: string, holder: RideportChild, url: string): RegExp {
  const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^rideport: ${command}: SERVER_DATA_DIRECTORY_IN_USE: ${escaped(directory)} is in use by process ${holder.process.pid!} \\(rideport serve, listening on ${escaped(url)}, since [\\dT:Z-]+\\): only one Rideport server runs on a data directory at a time\\. To stop that one, press Ctrl-C where it runs, or run \`kill ${holder.process.pid!}\`\\.\\n$`,
  );
}

describe('one server per data directory', () => {
  it('refuses a second serve and an up on a served directory, at once and naming the first, which keeps serving', async () => {
    const first = start(['serve', '--data', data.path]);
    const url = await first.listening();
    const before = Object.keys(snapshotDirectory(data.path));

    const second = start(['serve', '--data', data.path]);
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(inUse('serve', data.path, first, url));
    const up = start(['up', '--no-devices', '--data', data.path]);
    expect(await up.exited).toBe(1);
    expect(up.output()).toMatch(inUse('up', data.path, first, url));
    // The refused `up` opened no sync ledger of its own, nor made any other file (the running server
    // keeps writing to its own, so their bytes are not compared).
    expect(Object.keys(snapshotDirectory(data.path))).toEqual(before);

    // `rideport admin` runs no queue and no webhooks: it works beside the server, which sees its changes.
    const admin = async (...args: string[]): Promise<Record<string, string>> => {
      const result = await rideport(['admin', ...args, '--data', data.path, '--json']);
      expect(result.stderr).toBe('');
      return JSON.parse(result.stdout) as Record<string, string>;
    };
    await admin('create-user', '--email', 'rider@example.com', '--password', 'correct horse');
    const client = await admin('create-client', '--owner', 'rider@example.com', '--name', 'Beside');
    const token = await admin('create-token', '--user', 'rider@example.com', '--api-key', client['api_key']!);
    const current = await fetch(`${url}/api/v1/users/current.json`, {
      headers: { 'x-service-api-key': client['api_key']!, 'x-service-auth-token': token['auth_token']! },
    });
    expect(current.status).toBe(200);
    expect(JSON.stringify(await current.json())).toContain('rider@example.com');
    expect(first.process.exitCode).toBeNull();
  });

  it('takes over the directory of a server killed with SIGKILL', async () => {
    const first = start(['serve', '--data', data.path]);
    await first.listening();
    first.process.kill('SIGKILL');
    await first.exited;
    const second = start(['serve', '--data', data.path]);
    const url = await second.listening();
    expect((await fetch(`${url}/api/v1/openapi.json`)).status).toBe(200);
    const third = start(['serve', '--data', data.path]);
    expect(await third.exited).toBe(1);
    expect(third.output()).toMatch(inUse('serve', data.path, second, url));
  });

  it('lets exactly one of two servers started at the same instant run, round after round', async () => {
    for (let round = 0; round < 4; round++) {
      // A new directory in odd rounds (the winner initialises it meanwhile), an existing one in even.
      const directory = join(data.path, `round-${round}`);
      if (round % 2 === 0) mkdirSync(directory);
      const pair = [start(['serve', '--data', directory]), start(['serve', '--data', directory])];
      const outcomes = await Promise.all(
        pair.map((child) =>
          Promise.race([
            child.listening().then(() => 'listening'),
            child.exited.then((code) => `exit ${code}`),
          ]),
        ),
      );
      expect(outcomes.sort(), pair.map((child) => child.output()).join('\n')).toEqual([
        'exit 1',
        'listening',
      ]);
      const loser = pair.find((child) => child.process.exitCode === 1)!;
      const winner = pair.find((child) => child !== loser)!;
      expect(loser.output()).toMatch(inUse('serve', directory, winner, await winner.listening()));
      winner.process.kill('SIGTERM');
      expect(await winner.exited).toBe(0);
    }
  }, 120_000);
});

describe('a database that is missing, empty or unreadable beside other state', () => {
  /** serve, up and admin each refuse with `code`, and every file stays as it was. */
  async function refusedByEveryCommand(code: string, words: string): Promise<void> {
    const before = snapshotDirectory(data.path);
    for (const args of [
      ['serve', '--data', data.path],
      ['up', '--no-devices', '--data', data.path],
    ]) {
      const child = start(args);
      expect(await child.exited).toBe(1);
      expect(child.output()).toBe(`rideport: ${args[0]!}: ${code}: ${words}\n`);
    }
    const admin = await rideport(['admin', 'purge-tasks', '--data', data.path]);
    expect(admin.status).toBe(1);
    expect(admin.stderr).toBe(`rideport: admin purge-tasks: ${code}: ${words}\n`);
    expect(snapshotDirectory(data.path)).toEqual(before);
  }

  const database = (): string => join(data.path, 'rideport.sqlite');
  const afresh =
    'Rideport starts a new database only in a new, empty data directory, so it changed nothing: restore the database from a backup, or move the folder away to start afresh.';

  /** A data directory as `rideport up` leaves it: database, master.key, local account, sync ledger. */
  async function usedDirectory(): Promise<void> {
    const up = start(['up', '--no-devices', '--data', data.path]);
    await up.listening();
    up.process.kill('SIGTERM');
    expect(await up.exited).toBe(0);
  }

  it('refuses a zero-byte database beside master.key, the local account and the sync ledger', async () => {
    await usedDirectory();
    writeFileSync(database(), '');
    rmSync(`${database()}-wal`, { force: true });
    await refusedByEveryCommand(
      'SERVER_DATABASE_EMPTY',
      `${database()} is empty (0 bytes), but ${data.path} holds master.key, local-account.json and sync/local. ${afresh}`,
    );
  });

  it('refuses a database file of garbage, even alone', async () => {
    writeFileSync(database(), Buffer.alloc(64 * 1024, 'garbage '));
    await refusedByEveryCommand(
      'SERVER_DATABASE_UNREADABLE',
      `${database()} cannot be read as a Rideport database (it is not an SQLite database), so Rideport changed nothing: restore it from a backup, or move the folder away to start afresh.`,
    );
  });

  it('refuses a missing database beside master.key', async () => {
    await usedDirectory();
    rmSync(database());
    rmSync(`${database()}-wal`, { force: true });
    rmSync(`${database()}-shm`, { force: true });
    rmSync(join(data.path, 'local-account.json'));
    rmSync(join(data.path, 'sync'), { recursive: true });
    await refusedByEveryCommand(
      'SERVER_DATABASE_MISSING',
      `${data.path} holds master.key but no database (rideport.sqlite). ${afresh}`,
    );
  });

  it('keeps the sync ledger where the server counts it as other state', () => {
    expect(syncFolders(data.path, 'local').ledgerPath).toBe(
      join(data.path, 'sync', 'local', 'ledger.sqlite'),
    );
  });
});

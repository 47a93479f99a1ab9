import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataDirectoryErrorCode } from '../errors.js';
import { loadMasterKey } from '../master-key.js';
import { databasePathIn } from '../platform.js';
import { inspectDatabase } from '../db/database-state.js';
import { startClaimChild, type ClaimChild } from '../test-support/claim-child.js';
import { snapshotDirectory } from '../test-support/directory-snapshot.js';
import { claimDataDirectory, type DataDirectoryLock } from './claim.js';
import { HOLDER_FILE, LOCK_FILE } from '../data-layout.js';

const HOLDER = { command: 'rideport serve', howToStop: 'press Ctrl-C where it runs' };

let root: string;
let directory: string;
const locks: DataDirectoryLock[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rideport-claim-'));
  directory = join(root, 'data');
});
afterEach(async () => {
  for (const lock of locks.splice(0)) await lock.release();
  rmSync(root, { recursive: true, force: true });
});

async function claim(where = directory): Promise<DataDirectoryLock> {
  const lock = await claimDataDirectory(where, HOLDER);
  locks.push(lock);
  return lock;
}

describe('claimDataDirectory, in one process', () => {
  it('refuses a second claim with a sentence naming the holder, until the first is released', async () => {
    const first = await claim();
    await first.listening('http://127.0.0.1:4242');
    const second = claimDataDirectory(directory, HOLDER);
    await expect(second).rejects.toMatchObject({
      code: DataDirectoryErrorCode.IN_USE,
      message: expect.stringMatching(
        new RegExp(
          `^${directory} is in use by process ${process.pid} \\(rideport serve, listening on http://127\\.0\\.0\\.1:4242, since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\): only one Rideport server runs on a data directory at a time\\. To stop that one, press Ctrl-C where it runs\\.$`,
        ),
      ) as unknown,
    });
    await first.release();
    expect(existsSync(join(directory, HOLDER_FILE))).toBe(false);
    const third = await claim();
    expect(third.directory).toBe(directory);
  });

  it('initialises a new directory’s database under the lock, before the host writes anything else', async () => {
    const lock = await claim();
    expect(inspectDatabase(databasePathIn(directory))).toBe('existing');
    // What `rideport up` and the app write next: the sync engine's ledger, counted as other state.
    mkdirSync(join(directory, 'sync', 'local'), { recursive: true });
    await lock.release();
    await claim();
  });

  it('refusing a broken directory leaves it as it was, without even a lock file', async () => {
    mkdirSync(directory);
    loadMasterKey(databasePathIn(directory));
    writeFileSync(databasePathIn(directory), '');
    const before = snapshotDirectory(directory);
    await expect(claimDataDirectory(directory, HOLDER)).rejects.toMatchObject({
      code: DataDirectoryErrorCode.DATABASE_EMPTY,
    });
    expect(snapshotDirectory(directory)).toEqual(before);
    expect(existsSync(join(directory, LOCK_FILE))).toBe(false);
  });

  it('refuses a broken directory that a server held before, under the lock, changing nothing', async () => {
    await (await claim()).release();
    rmSync(databasePathIn(directory));
    loadMasterKey(databasePathIn(directory));
    const before = snapshotDirectory(directory);
    await expect(claimDataDirectory(directory, HOLDER)).rejects.toMatchObject({
      code: DataDirectoryErrorCode.DATABASE_MISSING,
    });
    expect(snapshotDirectory(directory)).toEqual(before);
    // The refusal let the lock go: with the folder moved away, a claim starts afresh.
    rmSync(directory, { recursive: true });
    await claim();
  });

  it('says what is wrong with a lock file that is not an empty one', async () => {
    mkdirSync(directory);
    writeFileSync(join(directory, LOCK_FILE), 'not a lock');
    await expect(claimDataDirectory(directory, HOLDER)).rejects.toMatchObject({
      code: DataDirectoryErrorCode.UNUSABLE,
      message: `cannot lock ${join(directory, LOCK_FILE)} (file is not a database): it must be an empty file Rideport can write; with no Rideport running on ${directory}, delete it`,
    });
  });
});

describe('claimDataDirectory, across processes', () => {
  let children: ClaimChild[] = [];
  beforeAll(async () => {
    children = [startClaimChild(), startClaimChild(), startClaimChild()];
    // Load every module before the races, so that each claim is one request away.
    await Promise.all(
      children.map(async (child, i) => {
        expect(await child.claim(join(tmpdir(), `rideport-warm-${process.pid}-${i}`), 'warm-up')).toEqual({
          claimed: true,
        });
        await child.release();
      }),
    );
  }, 60_000);
  afterAll(async () => {
    for (const child of children) await child.kill();
    for (let i = 0; i < children.length; i++) {
      rmSync(join(tmpdir(), `rideport-warm-${process.pid}-${i}`), { recursive: true, force: true });
    }
  });

  it('names another process that holds the directory, and takes over when it is killed with SIGKILL', async () => {
    const holder = startClaimChild();
    expect(await holder.claim(directory, 'rideport up')).toEqual({ claimed: true });
    const url = await holder.listen();
    await expect(claimDataDirectory(directory, HOLDER)).rejects.toMatchObject({
      code: DataDirectoryErrorCode.IN_USE,
      message: expect.stringContaining(
        `is in use by process ${holder.pid} (rideport up, listening on ${url}, since `,
      ) as unknown,
    });
    await holder.kill();
    // The killed holder's record is still there; the lock went with its process.
    expect(JSON.parse(readFileSync(join(directory, HOLDER_FILE), 'utf8'))).toMatchObject({ pid: holder.pid });
    const lock = await claim();
    await lock.listening('http://127.0.0.1:1');
    expect(await children[1]!.claim(directory, 'rideport serve')).toMatchObject({
      refused: {
        code: DataDirectoryErrorCode.IN_USE,
        message: expect.stringContaining(`process ${process.pid} `) as unknown,
      },
    });
  }, 60_000);

  it('lets exactly one of three processes claiming at the same instant win, round after round', async () => {
    for (let round = 0; round < 8; round++) {
      // A new directory each round half of the time: the winner also initialises it meanwhile.
      const where = join(root, `round-${round}`);
      if (round % 2 === 1) await (await claim(where)).release();
      const answers = await Promise.all(
        children.map((child) => child.claim(where, `claimant ${round}`, { listen: true })),
      );
      const winners = children.filter((_, i) => 'claimed' in answers[i]!);
      expect(winners, JSON.stringify(answers)).toHaveLength(1);
      const winner = winners[0]!;
      for (const answer of answers) {
        if ('claimed' in answer) continue;
        expect(answer).toMatchObject({
          refused: {
            code: DataDirectoryErrorCode.IN_USE,
            message: expect.stringContaining(
              `is in use by process ${winner.pid} (claimant ${round}, listening on http://127.0.0.1:`,
            ) as unknown,
          },
        });
      }
      expect(inspectDatabase(databasePathIn(where))).toBe('existing');
      await winner.release();
    }
  }, 120_000);
});

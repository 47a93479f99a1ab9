/**
 * The background checkpointer (db/checkpointer.ts): the server's connection never checkpoints, its
 * thread does; should the thread stop, the connection checkpoints again by itself.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mountSmallDisk, smallDiskUnavailable } from '../test-support/small-disk.js';
import { startCheckpointer } from './checkpointer.js';
import { openSqlite as openDatabase, type OpenSqliteDatabase as OpenDatabase } from './sqlite.js';

const noSmallDisk = smallDiskUnavailable();
if (noSmallDisk !== null) console.warn(`[checkpoints on a full disk] SKIPPED, ${noSmallDisk}`);

let directory: string;
let database: OpenDatabase | undefined;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'rideport-checkpoint-'));
});
afterEach(async () => {
  await database?.close();
  database = undefined;
  rmSync(directory, { recursive: true, force: true });
});

const pages = (sqlite: OpenDatabase['sqlite']): number =>
  sqlite.pragma('wal_autocheckpoint', { simple: true }) as number;

/** Writes `megabytes` of rows into a scratch table, a megabyte per commit. */
function write(sqlite: OpenDatabase['sqlite'], megabytes: number): void {
  sqlite.exec('CREATE TABLE IF NOT EXISTS scratch (data BLOB NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO scratch (data) VALUES (?)');
  for (let i = 0; i < megabytes; i++) insert.run(Buffer.alloc(1024 * 1024, i));
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('background checkpoints', () => {
  it('copy the log into the database from another thread; the connection never checkpoints itself', async () => {
    const path = join(directory, 'rideport.sqlite');
    database = await openDatabase(path, { backgroundCheckpoints: true });
    expect(pages(database.sqlite)).toBe(0);
    const before = statSync(path).size;
    write(database.sqlite, 8);
    // Only a checkpoint moves pages from the log into the database file.
    await until(() => statSync(path).size >= before + 8 * 1024 * 1024, 'the database file holds the rows');
  });

  it('are left to SQLite when not asked for, and for in-memory databases', async () => {
    database = await openDatabase(join(directory, 'admin.sqlite'));
    expect(pages(database.sqlite)).toBe(1000);
    await database.close();
    database = await openDatabase(':memory:', { backgroundCheckpoints: true });
    expect(pages(database.sqlite)).not.toBe(0);
  });

  it('fall back to the connection itself when the thread stops', async () => {
    database = await openDatabase(join(directory, 'rideport.sqlite'));
    // A checkpointer that cannot open its database (here: a file that is not there) fails at once.
    startCheckpointer(join(directory, 'missing.sqlite'), database.sqlite);
    expect(pages(database.sqlite)).toBe(0);
    await until(() => pages(database!.sqlite) === 1000, 'the connection checkpoints again');
  });

  it.skipIf(noSmallDisk !== null)(
    'wait while the disk is full, and go on by themselves once there is space (issue 17)',
    async () => {
      const disk = mountSmallDisk(16 * 1024 * 1024);
      const warnings: string[] = [];
      const onWarning = (warning: Error): void => {
        warnings.push(warning.message);
      };
      process.on('warning', onWarning);
      try {
        const path = join(disk.path, 'rideport.sqlite');
        database = await openDatabase(path, { backgroundCheckpoints: true });
        write(database.sqlite, 2);
        await until(() => statSync(path).size >= 2 * 1024 * 1024, 'the first rows are checkpointed');
        const before = statSync(path).size;
        disk.fill();
        // The log keeps its room, so this commit fits; copying it into the database needs more.
        write(database.sqlite, 1);
        await until(
          () => warnings.some((warning) => warning.includes('wait for disk space')),
          'the checkpointer says it waits for space',
        );
        expect(pages(database.sqlite)).toBe(0);
        disk.free();
        await until(() => statSync(path).size >= before + 1024 * 1024, 'the rows are checkpointed');
        expect(pages(database.sqlite)).toBe(0);
        expect(warnings.filter((warning) => warning.includes('stopped'))).toEqual([]);
      } finally {
        process.off('warning', onWarning);
        await database?.close();
        database = undefined;
        disk.remove();
      }
    },
  );
});

describe('space given back (issue 36)', () => {
  const autoVacuum = (sqlite: SqliteDatabase.Database): unknown =>
    sqlite.pragma('auto_vacuum', { simple: true });
  const MB = 1024 * 1024;

  it('gives the space of deleted rows back to the file system, a slice at a call, from the thread', async () => {
    const path = join(directory, 'rideport.sqlite');
    database = await openDatabase(path, { backgroundCheckpoints: true });
    expect(autoVacuum(database.sqlite)).toBe(2); // INCREMENTAL
    const empty = statSync(path).size;
    write(database.sqlite, 48);
    await until(() => statSync(path).size >= empty + 48 * MB, 'the database file holds the rows');
    database.sqlite.exec('DELETE FROM scratch');
    // No statement of the server's connection gives the space back: the checkpointer's thread does.
    await until(() => statSync(path).size < empty + 2 * MB, 'the file is back near its size before the rows');
    expect(database.sqlite.pragma('freelist_count', { simple: true })).toBeLessThan(256);
    expect(database.sqlite.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
  });

  it('rebuilds a database made before issue 36 into incremental mode once, keeping every row', async () => {
    const path = join(directory, 'rideport.sqlite');
    database = await openDatabase(path);
    await database.close();
    database = undefined;
    // As a server before issue 36 left it: no auto-vacuum, and rows.
    const old = new SqliteDatabase(path);
    old.pragma('auto_vacuum = NONE');
    old.exec('VACUUM');
    write(old, 4);
    expect(autoVacuum(old)).toBe(0);
    old.close();

    database = await openDatabase(path);
    expect(autoVacuum(database.sqlite)).toBe(2);
    expect(database.sqlite.prepare('SELECT count(*) FROM scratch').pluck().get()).toBe(4);
    expect(database.sqlite.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirectoryError, DataDirectoryErrorCode } from '../errors.js';
import { loadMasterKey } from '../master-key.js';
import { databasePathIn, openPlatform } from '../platform.js';
import { snapshotDirectory } from '../test-support/directory-snapshot.js';
import { inspectDatabase } from './database-state.js';
import { openDatabase } from './open.js';

let root: string;
let database: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rideport-state-'));
  database = databasePathIn(root);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** The error inspectDatabase throws, after checking that it changed nothing in the folder. */
function refusal(path = database): DataDirectoryError {
  const before = snapshotDirectory(root);
  let caught: unknown;
  try {
    inspectDatabase(path);
  } catch (error) {
    caught = error;
  }
  expect(snapshotDirectory(root)).toEqual(before);
  expect(caught).toBeInstanceOf(DataDirectoryError);
  return caught as DataDirectoryError;
}

/** The other state of "One server per data directory" in docs/operators/serving.md, each made as its writer makes it. */
const OTHER_STATE: Record<string, (directory: string) => void> = {
  'master.key': (directory) => {
    loadMasterKey(databasePathIn(directory));
  },
  'local-account.json': (directory) => {
    writeFileSync(join(directory, 'local-account.json'), '{"userId": 1}\n');
  },
  'sync/local': (directory) => {
    mkdirSync(join(directory, 'sync', 'local', 'inbox'), { recursive: true });
  },
  'rideport.sqlite-wal': (directory) => {
    writeFileSync(`${databasePathIn(directory)}-wal`, Buffer.alloc(4096, 1));
  },
};

describe('inspectDatabase', () => {
  it('calls a folder new when nothing of a server is in it, and looking creates nothing', () => {
    const missing = join(root, 'not-yet');
    expect(inspectDatabase(databasePathIn(missing))).toBe('new');
    expect(inspectDatabase(database)).toBe('new');
    // The desktop app's own files, `rideport sync`'s ledger for a remote server, an interrupted first
    // start's zero-byte database, an empty write-ahead log, and files of the rider's own.
    writeFileSync(join(root, 'settings.json'), '{}');
    mkdirSync(join(root, 'sync', 'example.org-0123456789ab'), { recursive: true });
    writeFileSync(join(root, 'notes.txt'), 'mine');
    writeFileSync(database, '');
    writeFileSync(`${database}-wal`, '');
    const before = snapshotDirectory(root);
    expect(inspectDatabase(database)).toBe('new');
    expect(snapshotDirectory(root)).toEqual(before);
  });

  it('calls a folder with a Rideport database existing', async () => {
    const opened = await openDatabase(database);
    await opened.close();
    loadMasterKey(database);
    expect(inspectDatabase(database)).toBe('existing');
  });

  it.each(Object.keys(OTHER_STATE))(
    'refuses a missing or zero-byte database beside %s, in words, changing nothing',
    (name) => {
      OTHER_STATE[name]!(root);
      const missing = refusal();
      expect(missing.code).toBe(DataDirectoryErrorCode.DATABASE_MISSING);
      expect(missing.message).toBe(
        `${root} holds ${name} but no database (rideport.sqlite). Rideport starts a new database only in a new, empty data directory, so it changed nothing: restore the database from a backup, or move the folder away to start afresh.`,
      );
      writeFileSync(database, '');
      const empty = refusal();
      expect(empty.code).toBe(DataDirectoryErrorCode.DATABASE_EMPTY);
      expect(empty.message).toContain(`${database} is empty (0 bytes), but ${root} holds ${name}.`);
    },
  );

  it('names every piece of other state it found', () => {
    for (const make of Object.values(OTHER_STATE)) make(root);
    expect(refusal().message).toContain(
      'holds master.key, local-account.json, sync/local and rideport.sqlite-wal but no database',
    );
  });

  it('refuses a database with no tables beside other state', () => {
    const headerOnly = new SqliteDatabase(database);
    headerOnly.pragma('user_version = 1');
    headerOnly.close();
    expect(inspectDatabase(database)).toBe('new');
    OTHER_STATE['master.key']!(root);
    const error = refusal();
    expect(error.code).toBe(DataDirectoryErrorCode.DATABASE_EMPTY);
    expect(error.message).toContain('is empty (no tables)');
  });

  it('refuses another program’s SQLite database, with or without other state', () => {
    const foreign = new SqliteDatabase(database);
    foreign.exec('CREATE TABLE notes (text TEXT)');
    foreign.close();
    const error = refusal();
    expect(error.code).toBe(DataDirectoryErrorCode.DATABASE_UNREADABLE);
    expect(error.message).toBe(
      `${database} cannot be read as a Rideport database (it is an SQLite database, but not Rideport’s: none of its tables are), so Rideport changed nothing: restore it from a backup, or move the folder away to start afresh.`,
    );
  });

  it('refuses any bytes that are not an SQLite database, changing nothing', () => {
    OTHER_STATE['master.key']!(root);
    const magic = Buffer.from('SQLite format 3\0');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 8192 }), fc.boolean(), (bytes, alone) => {
        fc.pre(!Buffer.from(bytes.subarray(0, magic.length)).equals(magic));
        rmSync(join(root, 'master.key'), { force: true });
        if (!alone) OTHER_STATE['master.key']!(root);
        writeFileSync(database, bytes);
        const error = refusal();
        expect(error.code).toBe(DataDirectoryErrorCode.DATABASE_UNREADABLE);
        expect(error.message).toContain('(it is not an SQLite database)');
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a data directory that is a file', () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    const error = refusal(databasePathIn(file));
    expect(error.code).toBe(DataDirectoryErrorCode.UNUSABLE);
    expect(error.message).toBe(`${file} is not a folder: give a folder as the data directory`);
  });
});

describe('opening a database (the server, `rideport admin`)', () => {
  it('creates none beside other state: a zero-byte database and master.key stay as they were', async () => {
    OTHER_STATE['master.key']!(root);
    writeFileSync(database, '');
    const before = snapshotDirectory(root);
    await expect(openDatabase(database)).rejects.toMatchObject({
      code: DataDirectoryErrorCode.DATABASE_EMPTY,
    });
    await expect(openPlatform({ databasePath: database, baseUrl: 'http://127.0.0.1' })).rejects.toMatchObject(
      {
        code: DataDirectoryErrorCode.DATABASE_EMPTY,
      },
    );
    expect(snapshotDirectory(root)).toEqual(before);
  });
});

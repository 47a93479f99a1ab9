import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Ledger } from './ledger.js';
import { tempFolder, type TempFolder } from './test-support/rides.js';

let data: TempFolder;

beforeEach(() => {
  data = tempFolder('rideport-ledger-');
});

afterEach(() => {
  data.remove();
});

const SHA = 'b'.repeat(64);

function collectOne(ledger: Ledger): void {
  ledger.saveSource({
    id: 'folder:/rides',
    kind: 'folder',
    path: '/rides',
    label: '/rides',
    importAfterMs: null,
    addedAtMs: 0,
  });
  ledger.collect(
    { sourceId: 'folder:/rides', relativePath: 'cut.fit', sizeBytes: 10, mtimeMs: 1 },
    { sha256: SHA, inboxName: `${SHA}.fit`, filename: 'cut.fit' },
    1,
  );
}

describe('the ledger keeps the server code of a failed ride (issue 16)', () => {
  it('beside its message, until the ride is tried again', () => {
    const ledger = new Ledger(':memory:');
    collectOne(ledger);
    ledger.markFailed(SHA, 'Could not read the file: the file is empty', 2, 'RIDEFILE_EMPTY');
    expect(ledger.ride(SHA)).toMatchObject({
      state: 'failed',
      message: 'Could not read the file: the file is empty',
      errorCode: 'RIDEFILE_EMPTY',
    });
    ledger.retry(SHA, 3);
    ledger.markUploading(SHA, 4);
    expect(ledger.ride(SHA)?.errorCode).toBeNull();
    ledger.markSynced(
      SHA,
      { message: 'Created 1 ride from upload', tripIds: [7], routeIds: [], duplicate: false },
      5,
    );
    expect(ledger.ride(SHA)).toMatchObject({ state: 'synced', errorCode: null, tripIds: [7] });
    ledger.close();
  });

  it('reads a ledger written before the code was kept, its rides without one', () => {
    const path = join(data.path, 'ledger.sqlite');
    const first = new Ledger(path);
    collectOne(first);
    first.markFailed(SHA, 'RIDEFILE_EMPTY: the file is empty', 2);
    first.close();
    // The ledger as the first migration left it.
    const raw = new Database(path);
    raw.exec('ALTER TABLE rides DROP COLUMN duplicate; ALTER TABLE rides DROP COLUMN error_code');
    raw.pragma('user_version = 1');
    raw.close();

    const second = new Ledger(path);
    expect(second.ride(SHA)).toMatchObject({ state: 'failed', errorCode: null });
    second.markFailed(SHA, 'Could not read the file: the file is empty', 3, 'RIDEFILE_EMPTY');
    expect(second.ride(SHA)?.errorCode).toBe('RIDEFILE_EMPTY');
    second.close();
  });
});

describe('the ledger', () => {
  it('migrates a ledger from before issue 16: its synced rides are not duplicates', () => {
    const path = join(data.path, 'ledger.sqlite');
    const ledger = new Ledger(path);
    ledger.close();
    // As the first version of the ledger left it.
    const sqlite = new Database(path);
    sqlite.exec(
      'ALTER TABLE rides DROP COLUMN duplicate; ALTER TABLE rides DROP COLUMN error_code; PRAGMA user_version = 1;',
    );
    sqlite
      .prepare(
        `INSERT INTO rides (sha256, inbox_name, filename, source_id, relative_path, size_bytes, state, message,
           trip_ids, found_at_ms, updated_at_ms)
         VALUES ('a', 'a.fit', 'a.fit', 'folder:x', 'a.fit', 1, 'synced', 'Created 1 ride from upload', '[7]', 1, 1)`,
      )
      .run();
    sqlite.close();

    const migrated = new Ledger(path);
    try {
      expect(migrated.history(10)).toMatchObject([
        { sha256: 'a', state: 'synced', tripIds: [7], duplicate: false },
      ]);
    } finally {
      migrated.close();
    }
  });
});

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

describe('the ledger', () => {
  it('migrates a ledger from before issue 16: its synced rides are not duplicates', () => {
    const path = join(data.path, 'ledger.sqlite');
    const ledger = new Ledger(path);
    ledger.close();
    // As the first version of the ledger left it.
    const sqlite = new Database(path);
    sqlite.exec('ALTER TABLE rides DROP COLUMN duplicate; PRAGMA user_version = 1;');
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

import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEDGER_LOG_LIMIT_BYTES, LEDGER_PAGE_BYTES, Ledger } from './ledger.js';
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
    raw.exec(
      'ALTER TABLE rides DROP COLUMN duplicate; ALTER TABLE rides DROP COLUMN error_code; ALTER TABLE sources DROP COLUMN removed_at_ms',
    );
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
  it.runIf(process.platform !== 'win32')(
    "is its owner's alone, in a folder of its owner's alone, and tightens one made looser (issue 20)",
    () => {
      const path = join(data.path, 'sync', 'local', 'ledger.sqlite');
      new Ledger(path).close();
      expect([statSync(join(data.path, 'sync', 'local')).mode & 0o777, statSync(path).mode & 0o777]).toEqual([
        0o700, 0o600,
      ]);
      chmodSync(path, 0o644);
      new Ledger(path).close();
      expect(statSync(path).mode & 0o777).toBe(0o600);
    },
  );

  it('migrates a ledger from before issue 16: its synced rides are not duplicates', () => {
    const path = join(data.path, 'ledger.sqlite');
    const ledger = new Ledger(path);
    ledger.close();
    // As the first version of the ledger left it.
    const sqlite = new Database(path);
    sqlite.exec(
      'ALTER TABLE rides DROP COLUMN duplicate; ALTER TABLE rides DROP COLUMN error_code; ALTER TABLE sources DROP COLUMN removed_at_ms; PRAGMA user_version = 1;',
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
      // Issue 19: sources of a ledger from before removal existed are all synced.
      expect(migrated.removedSources()).toEqual([]);
      expect(migrated.history(10)).toMatchObject([
        { sha256: 'a', state: 'synced', tripIds: [7], duplicate: false },
      ]);
    } finally {
      migrated.close();
    }
  });
});

/** What the write-ahead log at `path` holds: its page size, its bytes and its committed transactions. */
function readLog(path: string): { pageBytes: number; bytes: number; commits: number } {
  const log = readFileSync(`${path}-wal`);
  // https://sqlite.org/fileformat.html#the_write_ahead_log: a 32-byte header, then frames of a 24-byte
  // header and a page; a frame whose second word (the database size) is not 0 ends a transaction.
  const pageBytes = log.readUInt32BE(8);
  let commits = 0;
  for (let offset = 32; offset + 24 <= log.length; offset += 24 + pageBytes) {
    if (log.readUInt32BE(offset + 4) !== 0) commits += 1;
  }
  return { pageBytes, bytes: log.length, commits };
}

/** One file found, uploaded and synced: the ledger's three state changes of a ride. */
function syncFile(ledger: Ledger, index: number): void {
  const sha256 = createHash('sha256').update(String(index)).digest('hex');
  const filename = `2026-05-${String(index).padStart(5, '0')}-07-12-31.fit`;
  ledger.collect(
    {
      sourceId: 'folder:/rides',
      relativePath: `Garmin/Activity/${filename}`,
      sizeBytes: 90_000,
      mtimeMs: index,
    },
    { sha256, inboxName: `${sha256}.fit`, filename },
    index,
  );
  ledger.markUploading(sha256, index + 1);
  ledger.markSynced(
    sha256,
    { message: 'Created 1 ride from upload', tripIds: [index], routeIds: [], duplicate: false },
    index + 2,
  );
}

describe('the ledger writes in proportion to what changes (issue 22)', () => {
  it('writes one small transaction per state change: about 20 KB of log per file synced, not 56 KB', () => {
    const path = join(data.path, 'ledger.sqlite');
    const ledger = new Ledger(path);
    collectOne(ledger);
    for (let index = 0; index < 1_000; index++) syncFile(ledger, index);
    // An empty log from here on (another connection may checkpoint a WAL database).
    const checkpointer = new Database(path);
    checkpointer.pragma('wal_checkpoint(TRUNCATE)');
    const files = 40;
    for (let index = 1_000; index < 1_000 + files; index++) syncFile(ledger, index);
    const log = readLog(path);
    checkpointer.close();
    ledger.close();

    expect(log.pageBytes).toBe(LEDGER_PAGE_BYTES);
    expect(log.commits).toBe(3 * files);
    // With SQLite's 4 KB pages and an index of every ride's state: 56 KB per file at this size.
    expect(log.bytes / files).toBeLessThan(24 * 1024);
  });

  it('keeps its log near 1 MB however many files go through it', () => {
    const path = join(data.path, 'ledger.sqlite');
    const ledger = new Ledger(path);
    collectOne(ledger);
    let largestBytes = 0;
    for (let index = 0; index < 600; index++) {
      syncFile(ledger, index);
      largestBytes = Math.max(largestBytes, statSync(`${path}-wal`).size);
    }
    ledger.close();
    // Checkpointed every 1,000 pages; one transaction more may be in it when it is.
    expect(largestBytes).toBeLessThan(LEDGER_LOG_LIMIT_BYTES + 64 * 1024);
  });

  it('rewrites a ledger made with 4 KB pages once, keeping every ride', () => {
    const path = join(data.path, 'ledger.sqlite');
    const first = new Ledger(path);
    collectOne(first);
    first.close();
    // The ledger as it was before issue 22: SQLite's 4 KB pages, in WAL mode.
    const before = new Database(path);
    before.exec('PRAGMA journal_mode = DELETE; PRAGMA page_size = 4096; VACUUM; PRAGMA journal_mode = WAL');
    expect(before.pragma('page_size', { simple: true })).toBe(4096);
    before.close();

    const reopened = new Ledger(path);
    expect(reopened.ride(SHA)).toMatchObject({ state: 'queued', filename: 'cut.fit' });
    reopened.close();
    const check = new Database(path);
    expect(check.pragma('page_size', { simple: true })).toBe(LEDGER_PAGE_BYTES);
    expect(check.pragma('journal_mode', { simple: true })).toBe('wal');
    check.close();
  });
});

/**
 * The sync ledger (docs/contributors/architecture.md, "Sync engine"): what the engine has seen in each source and what became
 * of each ride, in SQLite (better-sqlite3, WAL), so a restart, a crash or a re-plugged device never
 * uploads a ride twice or forgets one.
 *
 * Two tables carry the state:
 * - `files`: one row per (source, relative path) with the size and mtime last seen. A file whose size
 *   and mtime are unchanged is not read again (issue 6: a rescan of 5,000 synced files under 1 s, no
 *   re-hashing). `state` says what the engine made of it: `waiting` (incomplete, look again), `skipped`
 *   (older than the source's import window) or `collected` (its bytes are a ride below).
 * - `rides`: one row per distinct content (SHA-256), copied into the inbox, with its upload state
 *   `queued` → `uploading` → `synced` | `failed`, the server's message (and, for a failed ride, the
 *   server's code for programs), the trip and route ids, and whether the server found them already
 *   there (`duplicate`, issue 16: the same recording in other bytes ends as a duplicate of the trip it
 *   is; the ride is synced all the same).
 *   Keyed by content, so the same ride found twice (two folders, a renamed file, a re-plugged device)
 *   is one ride, and a ride deleted on the server stays synced here and never comes back.
 *
 * Writes (issue 22): each state change of a file or ride is one transaction of its own, and what a
 * transaction writes to the write-ahead log is every page it touches, whole. The ledger's rows are a
 * few hundred bytes and a state change touches a handful of pages (the row, its indexes), so the page
 * is small: 1 KB instead of SQLite's 4 KB, and only rides still to be uploaded are in the index of
 * states, which cuts what a file from found to synced (three transactions) writes to the log to about
 * a third (docs/contributors/benchmarks.md, issue 22). The log is checkpointed every 1,000 pages and cut
 * back to 1 MB afterwards, so it never stays at a peak.
 */
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { createOwnerOnlyFile, isDiskFull, makeOwnerOnlyFolder, tightenOwnerOnly } from '@rideport/files';

/** Bytes per page of the ledger (see the top of this file). */
export const LEDGER_PAGE_BYTES = 1024;
/** Pages in the write-ahead log before it is checkpointed into the database (SQLite's default count). */
const CHECKPOINT_PAGES = 1000;
/** The write-ahead log is cut back to this size once checkpointed, so it never stays at a peak. */
export const LEDGER_LOG_LIMIT_BYTES = 1024 * 1024;

export type FileState = 'waiting' | 'skipped' | 'collected';
export type RideState = 'queued' | 'uploading' | 'synced' | 'failed';

export interface SourceRow {
  id: string;
  kind: 'folder' | 'device';
  path: string;
  label: string;
  /** files last modified before this are skipped (the first-run import window); null imports all */
  importAfterMs: number | null;
  addedAtMs: number;
}

export interface FileRow {
  sourceId: string;
  relativePath: string;
  sizeBytes: number;
  mtimeMs: number;
  state: FileState;
  sha256: string | null;
  /** why a waiting file is not taken yet */
  reason: string | null;
  /** when this size and mtime were first seen, to stop waiting for a file that never completes */
  unchangedSinceMs: number;
}

export interface RideRow {
  sha256: string;
  /** the file's name in the inbox */
  inboxName: string;
  /** the name it had on the device, sent to the server */
  filename: string;
  sourceId: string;
  relativePath: string;
  sizeBytes: number;
  state: RideState;
  message: string | null;
  /** why the server refused a failed ride, as its stable code (issue 16); null otherwise */
  errorCode: string | null;
  tripIds: number[];
  routeIds: number[];
  /** synced as a duplicate: the trips were on the server already (made by other bytes, issue 16) */
  duplicate: boolean;
  attempts: number;
  nextAttemptAtMs: number;
  foundAtMs: number;
  updatedAtMs: number;
}

export type RideCounts = Record<RideState, number>;

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sources (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL CHECK (kind IN ('folder', 'device')),
     path TEXT NOT NULL,
     label TEXT NOT NULL,
     import_after_ms INTEGER,
     added_at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE files (
     source_id TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
     relative_path TEXT NOT NULL,
     size_bytes INTEGER NOT NULL,
     mtime_ms INTEGER NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('waiting', 'skipped', 'collected')),
     sha256 TEXT,
     reason TEXT,
     unchanged_since_ms INTEGER NOT NULL,
     PRIMARY KEY (source_id, relative_path)
   ) STRICT, WITHOUT ROWID;
   CREATE TABLE rides (
     sha256 TEXT PRIMARY KEY,
     inbox_name TEXT NOT NULL,
     filename TEXT NOT NULL,
     source_id TEXT NOT NULL,
     relative_path TEXT NOT NULL,
     size_bytes INTEGER NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('queued', 'uploading', 'synced', 'failed')),
     message TEXT,
     trip_ids TEXT NOT NULL DEFAULT '[]',
     route_ids TEXT NOT NULL DEFAULT '[]',
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at_ms INTEGER NOT NULL DEFAULT 0,
     found_at_ms INTEGER NOT NULL,
     updated_at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX rides_by_state ON rides (state, next_attempt_at_ms);
   CREATE INDEX rides_by_update ON rides (updated_at_ms DESC);`,
  // Issue 16: the server's code of a failed ride, for programs; its message says it in words.
  `ALTER TABLE rides ADD COLUMN error_code TEXT;`,
  // issue 16: whether the server answered the upload as a duplicate of trips it had already.
  `ALTER TABLE rides ADD COLUMN duplicate INTEGER NOT NULL DEFAULT 0 CHECK (duplicate IN (0, 1));`,
  // Issue 22: the rides still to be uploaded, not every ride. Synced rides, nearly all of them, leave
  // this index, so a state change rewrites one small index page instead of moving an entry between
  // two places of an index as large as the table. Queries name `state <> 'synced'` to use it.
  `DROP INDEX IF EXISTS rides_by_state;
   CREATE INDEX IF NOT EXISTS rides_unsettled ON rides (state, next_attempt_at_ms) WHERE state <> 'synced';`,
  // Issue 19: a folder removed (or a device forgotten) on the sync page is marked, not deleted, so what
  // was seen in it stays known: added back, its synced files are not read or uploaded again.
  `ALTER TABLE sources ADD COLUMN removed_at_ms INTEGER;`,
];

/** The sources removed on the sync page, whose queued rides wait (issue 19). */
const REMOVED_SOURCE_IDS = 'SELECT id FROM sources WHERE removed_at_ms IS NOT NULL';

interface SourceRecord {
  id: string;
  kind: 'folder' | 'device';
  path: string;
  label: string;
  import_after_ms: number | null;
  added_at_ms: number;
}

interface FileRecord {
  source_id: string;
  relative_path: string;
  size_bytes: number;
  mtime_ms: number;
  state: FileState;
  sha256: string | null;
  reason: string | null;
  unchanged_since_ms: number;
}

interface RideRecord {
  sha256: string;
  inbox_name: string;
  filename: string;
  source_id: string;
  relative_path: string;
  size_bytes: number;
  state: RideState;
  message: string | null;
  error_code: string | null;
  trip_ids: string;
  route_ids: string;
  duplicate: number;
  attempts: number;
  next_attempt_at_ms: number;
  found_at_ms: number;
  updated_at_ms: number;
}

function sourceRow(record: SourceRecord): SourceRow {
  return {
    id: record.id,
    kind: record.kind,
    path: record.path,
    label: record.label,
    importAfterMs: record.import_after_ms,
    addedAtMs: record.added_at_ms,
  };
}

function fileRow(record: FileRecord): FileRow {
  return {
    sourceId: record.source_id,
    relativePath: record.relative_path,
    sizeBytes: record.size_bytes,
    mtimeMs: record.mtime_ms,
    state: record.state,
    sha256: record.sha256,
    reason: record.reason,
    unchangedSinceMs: record.unchanged_since_ms,
  };
}

function rideRow(record: RideRecord): RideRow {
  return {
    sha256: record.sha256,
    inboxName: record.inbox_name,
    filename: record.filename,
    sourceId: record.source_id,
    relativePath: record.relative_path,
    sizeBytes: record.size_bytes,
    state: record.state,
    message: record.message,
    errorCode: record.error_code,
    tripIds: JSON.parse(record.trip_ids) as number[],
    routeIds: JSON.parse(record.route_ids) as number[],
    duplicate: record.duplicate === 1,
    attempts: record.attempts,
    nextAttemptAtMs: record.next_attempt_at_ms,
    foundAtMs: record.found_at_ms,
    updatedAtMs: record.updated_at_ms,
  };
}

export interface NewFile {
  sourceId: string;
  relativePath: string;
  sizeBytes: number;
  mtimeMs: number;
}

export class Ledger {
  readonly #db: Database.Database;
  readonly #statements;

  /** Opens (creating and migrating) the ledger at `path`; ':memory:' for a throwaway one. */
  constructor(path: string) {
    // Issue 20: the ledger names every ride file; its folder is 0700 and the file 0600 whatever the
    // umask, made so before SQLite opens it, as SQLite gives -wal and -shm the database file's mode
    // (as the server's database is, with the same helpers of @rideport/files, issue 35). A ledger an
    // older version made with looser modes is tightened.
    if (path !== ':memory:') {
      makeOwnerOnlyFolder(dirname(path));
      createOwnerOnlyFile(path);
      tightenOwnerOnly(path);
    }
    this.#db = new Database(path);
    this.#usePageSize();
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
    this.#db.pragma(`journal_size_limit = ${LEDGER_LOG_LIMIT_BYTES}`);
    // A lost last transaction after a power cut means a file is looked at again, never a lost ride:
    // the inbox copy is written before its row, and the server recognises a repeated upload.
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('foreign_keys = ON');
    this.#db.pragma('busy_timeout = 5000');
    this.#migrate();
    const db = this.#db;
    this.#statements = {
      sources: db.prepare<[], SourceRecord>(
        'SELECT * FROM sources WHERE removed_at_ms IS NULL ORDER BY added_at_ms, id',
      ),
      source: db.prepare<[string], SourceRecord>(
        'SELECT * FROM sources WHERE id = ? AND removed_at_ms IS NULL',
      ),
      removedSources: db.prepare<[], SourceRecord>(
        'SELECT * FROM sources WHERE removed_at_ms IS NOT NULL ORDER BY removed_at_ms, id',
      ),
      removedSource: db.prepare<[string], SourceRecord>(
        'SELECT * FROM sources WHERE id = ? AND removed_at_ms IS NOT NULL',
      ),
      insertSource: db.prepare(
        `INSERT INTO sources (id, kind, path, label, import_after_ms, added_at_ms)
         VALUES (@id, @kind, @path, @label, @importAfterMs, @addedAtMs)
         ON CONFLICT (id) DO UPDATE SET path = excluded.path, label = excluded.label`,
      ),
      removeSource: db.prepare(
        'UPDATE sources SET removed_at_ms = @nowMs WHERE id = @id AND removed_at_ms IS NULL',
      ),
      // Files not whole yet are looked at afresh if the source comes back; collected ones stay known.
      forgetWaitingFiles: db.prepare(`DELETE FROM files WHERE source_id = ? AND state = 'waiting'`),
      restoreSource: db.prepare(
        `UPDATE sources SET removed_at_ms = NULL, import_after_ms = @importAfterMs
         WHERE id = @id AND removed_at_ms IS NOT NULL`,
      ),
      files: db.prepare<[string], FileRecord>('SELECT * FROM files WHERE source_id = ?'),
      upsertFile: db.prepare(
        `INSERT INTO files (source_id, relative_path, size_bytes, mtime_ms, state, sha256, reason, unchanged_since_ms)
         VALUES (@sourceId, @relativePath, @sizeBytes, @mtimeMs, @state, @sha256, @reason, @unchangedSinceMs)
         ON CONFLICT (source_id, relative_path) DO UPDATE SET
           size_bytes = excluded.size_bytes, mtime_ms = excluded.mtime_ms, state = excluded.state,
           sha256 = excluded.sha256, reason = excluded.reason, unchanged_since_ms = excluded.unchanged_since_ms`,
      ),
      ride: db.prepare<[string], RideRecord>('SELECT * FROM rides WHERE sha256 = ?'),
      insertRide: db.prepare(
        `INSERT INTO rides (sha256, inbox_name, filename, source_id, relative_path, size_bytes, state, found_at_ms, updated_at_ms)
         VALUES (@sha256, @inboxName, @filename, @sourceId, @relativePath, @sizeBytes, 'queued', @nowMs, @nowMs)
         ON CONFLICT (sha256) DO NOTHING`,
      ),
      due: db.prepare<[number, number], RideRecord>(
        `SELECT * FROM rides WHERE state <> 'synced' AND state = 'queued' AND next_attempt_at_ms <= ?
           AND source_id NOT IN (${REMOVED_SOURCE_IDS})
         ORDER BY found_at_ms, sha256 LIMIT ?`,
      ),
      nextAttempt: db.prepare<[], { at: number | null }>(
        `SELECT min(next_attempt_at_ms) AS at FROM rides WHERE state <> 'synced' AND state = 'queued'
           AND source_id NOT IN (${REMOVED_SOURCE_IDS})`,
      ),
      setState: db.prepare(
        `UPDATE rides SET state = @state, message = @message, error_code = NULL, updated_at_ms = @nowMs
         WHERE sha256 = @sha256`,
      ),
      synced: db.prepare(
        `UPDATE rides SET state = 'synced', message = @message, error_code = NULL, trip_ids = @tripIds,
           route_ids = @routeIds, duplicate = @duplicate, attempts = attempts + 1, updated_at_ms = @nowMs
           WHERE sha256 = @sha256`,
      ),
      postpone: db.prepare(
        `UPDATE rides SET state = 'queued', message = @message, error_code = NULL, attempts = attempts + @counted,
           next_attempt_at_ms = @nextAttemptAtMs, updated_at_ms = @nowMs WHERE sha256 = @sha256`,
      ),
      failed: db.prepare(
        `UPDATE rides SET state = 'failed', message = @message, error_code = @errorCode, attempts = attempts + 1,
           updated_at_ms = @nowMs WHERE sha256 = @sha256`,
      ),
      retry: db.prepare(
        `UPDATE rides SET state = 'queued', next_attempt_at_ms = 0, updated_at_ms = @nowMs
         WHERE sha256 = @sha256 AND state = 'failed'`,
      ),
      retryAll: db.prepare(
        `UPDATE rides SET state = 'queued', next_attempt_at_ms = 0, updated_at_ms = @nowMs
         WHERE state <> 'synced' AND state = 'failed'`,
      ),
      // A pass that stopped mid-upload (crash, quit) leaves `uploading` rows: they are queued again, and
      // the server answers a repeated upload as a duplicate with the trip made the first time.
      requeueUploading: db.prepare(
        `UPDATE rides SET state = 'queued', next_attempt_at_ms = 0 WHERE state <> 'synced' AND state = 'uploading'`,
      ),
      // Synced rides are the ones not in rides_unsettled: all rides less the others.
      counts: db.prepare<[], { state: RideState; n: number }>(
        `SELECT state, count(*) AS n FROM rides WHERE state <> 'synced' GROUP BY state
         UNION ALL SELECT 'synced', count(*) - (SELECT count(*) FROM rides WHERE state <> 'synced') FROM rides`,
      ),
      history: db.prepare<[number], RideRecord>(
        'SELECT * FROM rides ORDER BY updated_at_ms DESC, sha256 LIMIT ?',
      ),
      waiting: db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM files WHERE state = 'waiting'`),
      waitingList: db.prepare<
        [number],
        { sourceId: string; relativePath: string; reason: string | null; unchangedSinceMs: number }
      >(
        `SELECT source_id AS sourceId, relative_path AS relativePath, reason, unchanged_since_ms AS unchangedSinceMs
         FROM files WHERE state = 'waiting' ORDER BY unchanged_since_ms, source_id, relative_path LIMIT ?`,
      ),
      tripSources: db.prepare<[string], { tripId: number; sourceId: string; label: string | null }>(
        `SELECT trip.value AS tripId, rides.source_id AS sourceId, sources.label AS label
         FROM rides JOIN json_each(rides.trip_ids) AS trip
         LEFT JOIN sources ON sources.id = rides.source_id
         WHERE trip.value IN (SELECT value FROM json_each(?))`,
      ),
    };
    this.#statements.requeueUploading.run();
  }

  /**
   * Rides left `uploading` by an upload whose outcome could not be written (the disk was full) go back
   * to the queue; call it only while no upload runs. The server answers their repeated upload as a
   * duplicate of what it made the first time.
   */
  requeueUploading(): number {
    return this.#statements.requeueUploading.run().changes;
  }

  /**
   * Small pages (see the top of this file). A new ledger takes the size with its first write; one made
   * before issue 22 (4 KB pages) is rewritten once, which needs the log switched off meanwhile. When
   * that cannot be done now (another process has the ledger open, or the disk is full) the ledger
   * works as it is, and the next start tries again.
   */
  #usePageSize(): void {
    if (this.#db.pragma('page_size', { simple: true }) === LEDGER_PAGE_BYTES) return;
    const empty = this.#db.pragma('page_count', { simple: true }) === 0;
    try {
      if (!empty) this.#db.pragma('journal_mode = DELETE');
      this.#db.pragma(`page_size = ${LEDGER_PAGE_BYTES}`);
      if (!empty) this.#db.exec('VACUUM');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED' && !isDiskFull(error)) throw error;
    }
  }

  #migrate(): void {
    const version = this.#db.pragma('user_version', { simple: true }) as number;
    for (let index = version; index < MIGRATIONS.length; index++) {
      this.#db.transaction(() => {
        this.#db.exec(MIGRATIONS[index]!);
        this.#db.pragma(`user_version = ${index + 1}`);
      })();
    }
  }

  close(): void {
    this.#db.close();
  }

  sources(): SourceRow[] {
    return this.#statements.sources.all().map(sourceRow);
  }

  source(id: string): SourceRow | undefined {
    const record = this.#statements.source.get(id);
    return record === undefined ? undefined : sourceRow(record);
  }

  /** Adds a source, or updates the path and label of a known one (its import window stays). */
  saveSource(source: SourceRow): void {
    this.#statements.insertSource.run(source);
  }

  /**
   * Stops syncing a source (issue 19): it is marked removed, and its files not whole yet are
   * forgotten. What was collected from it, its rides and their upload state stay; rides still queued
   * from it wait (dueRides leaves them out) until it is restored. False when no such source is synced.
   */
  removeSource(id: string, nowMs: number): boolean {
    return this.#db.transaction(() => {
      if (this.#statements.removeSource.run({ id, nowMs }).changes === 0) return false;
      this.#statements.forgetWaitingFiles.run(id);
      return true;
    })();
  }

  /** Removed sources (removeSource), oldest removal first. */
  removedSources(): SourceRow[] {
    return this.#statements.removedSources.all().map(sourceRow);
  }

  removedSource(id: string): SourceRow | undefined {
    const record = this.#statements.removedSource.get(id);
    return record === undefined ? undefined : sourceRow(record);
  }

  /**
   * Syncs a removed source again, with a new import window for files it has not seen; the files it
   * collected before stay collected. False when the source was not removed.
   */
  restoreSource(id: string, importAfterMs: number | null): boolean {
    return this.#statements.restoreSource.run({ id, importAfterMs }).changes > 0;
  }

  /** What was seen in a source, by relative path. */
  files(sourceId: string): Map<string, FileRow> {
    const found = new Map<string, FileRow>();
    for (const record of this.#statements.files.iterate(sourceId)) {
      found.set(record.relative_path, fileRow(record));
    }
    return found;
  }

  saveFile(file: FileRow): void {
    this.#statements.upsertFile.run(file);
  }

  ride(sha256: string): RideRow | undefined {
    const record = this.#statements.ride.get(sha256);
    return record === undefined ? undefined : rideRow(record);
  }

  /**
   * Records a complete file whose bytes are already in the inbox: the file is collected, and its
   * content becomes a queued ride unless the same content is known (then nothing new is uploaded).
   * One transaction, so a crash leaves either both rows or neither.
   * Returns whether the content was new.
   */
  collect(
    file: NewFile,
    ride: { sha256: string; inboxName: string; filename: string },
    nowMs: number,
  ): boolean {
    return this.#db.transaction(() => {
      this.#statements.upsertFile.run({
        ...file,
        state: 'collected',
        sha256: ride.sha256,
        reason: null,
        unchangedSinceMs: nowMs,
      });
      const inserted = this.#statements.insertRide.run({
        ...ride,
        sourceId: file.sourceId,
        relativePath: file.relativePath,
        sizeBytes: file.sizeBytes,
        nowMs,
      });
      return inserted.changes === 1;
    })();
  }

  /** Queued rides whose next attempt is due, oldest find first. */
  dueRides(nowMs: number, limit: number): RideRow[] {
    return this.#statements.due.all(nowMs, limit).map(rideRow);
  }

  /** When the earliest postponed ride is due again, or null when none is queued. */
  nextAttemptAtMs(): number | null {
    return this.#statements.nextAttempt.get()?.at ?? null;
  }

  markUploading(sha256: string, nowMs: number): void {
    this.#statements.setState.run({ sha256, state: 'uploading', message: null, nowMs });
  }

  markSynced(
    sha256: string,
    outcome: { message: string; tripIds: number[]; routeIds: number[]; duplicate: boolean },
    nowMs: number,
  ): void {
    this.#statements.synced.run({
      sha256,
      message: outcome.message,
      tripIds: JSON.stringify(outcome.tripIds),
      routeIds: JSON.stringify(outcome.routeIds),
      duplicate: outcome.duplicate ? 1 : 0,
      nowMs,
    });
  }

  /**
   * Back to the queue for a later attempt. `counted` is false when the attempt never reached the
   * server's judgement (needs sign-in, paused), so it does not count towards the backoff.
   */
  postpone(sha256: string, message: string, nextAttemptAtMs: number, counted: boolean, nowMs: number): void {
    this.#statements.postpone.run({ sha256, message, nextAttemptAtMs, counted: counted ? 1 : 0, nowMs });
  }

  /** `errorCode`: the server's stable code for why it refused the file, when it gave one (issue 16). */
  markFailed(sha256: string, message: string, nowMs: number, errorCode: string | null = null): void {
    this.#statements.failed.run({ sha256, message, errorCode, nowMs });
  }

  /** A failed ride back to the queue, because the user asked; returns whether it was failed. */
  retry(sha256: string, nowMs: number): boolean {
    return this.#statements.retry.run({ sha256, nowMs }).changes === 1;
  }

  retryAllFailed(nowMs: number): number {
    return this.#statements.retryAll.run({ nowMs }).changes;
  }

  counts(): RideCounts {
    const counts: RideCounts = { queued: 0, uploading: 0, synced: 0, failed: 0 };
    for (const { state, n } of this.#statements.counts.iterate()) counts[state] = n;
    return counts;
  }

  /** The most recently changed rides, newest first. */
  history(limit: number): RideRow[] {
    return this.#statements.history.all(limit).map(rideRow);
  }

  /** The source each of these trips was synced from (its label, or its id once the source is gone). */
  tripSources(tripIds: readonly number[]): Map<number, string> {
    const found = new Map<number, string>();
    for (const row of this.#statements.tripSources.iterate(JSON.stringify(tripIds))) {
      found.set(row.tripId, row.label ?? row.sourceId);
    }
    return found;
  }

  /** Files seen but not whole yet. */
  waitingFiles(): number {
    return this.#statements.waiting.get()?.n ?? 0;
  }

  /** The first `limit` files that wait, those waiting longest first, with why. */
  waitingFileList(
    limit: number,
  ): { sourceId: string; relativePath: string; reason: string | null; unchangedSinceMs: number }[] {
    return this.#statements.waitingList.all(limit);
  }
}

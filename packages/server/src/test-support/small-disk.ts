/**
 * A small disk for the full-disk tests (issue 17): a tmpfs mounted on a fresh folder, which a test
 * fills to the last byte and frees again. Mounting needs root (CI runs as root); elsewhere
 * `smallDiskUnavailable()` says why, and the tests say that they skipped.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  fstatSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  rmdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';

export interface SmallDisk {
  /** the mounted folder */
  path: string;
  /** Writes a filler file until the disk has no byte left, or only about `leaveBytes`. */
  fill(leaveBytes?: number): void;
  /** Deletes the filler. */
  free(): void;
  /** Unmounts the disk and removes its folder. */
  remove(): void;
}

let unavailable: string | null | undefined;

/** Why no small disk can be mounted here (not root, or mount refused), or null when one can. */
export function smallDiskUnavailable(): string | null {
  if (unavailable !== undefined) return unavailable;
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    unavailable = 'not running as root on Linux, so no tmpfs can be mounted';
    return unavailable;
  }
  try {
    mountSmallDisk(64 * 1024).remove();
    unavailable = null;
  } catch (error) {
    unavailable = `mounting a tmpfs failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return unavailable;
}

/** A tmpfs of `sizeBytes` on a fresh folder under the system's temporary folder. */
export function mountSmallDisk(sizeBytes: number): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), 'rideport-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    rmdirSync(path);
    throw error;
  }
  const filler = join(path, 'filler');
  return {
    path,
    fill(leaveBytes = 0) {
      const fd = openSync(filler, 'a');
      try {
        // Smaller and smaller writes, down to one byte: tmpfs hands out whole pages.
        for (let chunk = 1024 * 1024; chunk >= 1; chunk = Math.floor(chunk / 4)) {
          const bytes = Buffer.alloc(chunk);
          for (;;) {
            try {
              writeSync(fd, bytes);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
              break;
            }
          }
        }
        if (leaveBytes > 0) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leaveBytes));
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    remove() {
      execFileSync('umount', ['--lazy', path], { stdio: 'pipe' });
      rmdirSync(path);
    },
  };
}

/**
 * Empties a SQLite database's write-ahead log into the database and cuts the log to nothing, from a
 * connection of its own: SQLite reuses the room of an old log, so until then small writes would still
 * fit on a full disk, and the test would not know which write is the first that needs space.
 *
 * The server's own checkpointer (db/checkpointer.ts) may be checkpointing in its thread at that moment,
 * and SQLite answers busy at once rather than waiting for another checkpoint to end: so it is tried
 * again for a while (once in CI it was busy).
 */
export function truncateLog(databasePath: string, triesForMs = 5000): void {
  const connection = new SqliteDatabase(databasePath, { fileMustExist: true, timeout: 5000 });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + triesForMs;
  try {
    for (;;) {
      const [result] = connection.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (result?.busy === 0) return;
      if (Date.now() > until) throw new Error(`the log of ${databasePath} could not be truncated: busy`);
      Atomics.wait(pause, 0, 0, 20);
    }
  } finally {
    connection.close();
  }
}

/** `PRAGMA integrity_check` and `foreign_key_check` of a database no one else has open. */
export function databaseChecks(databasePath: string): { integrity: string[]; foreignKeyProblems: number } {
  const connection = new SqliteDatabase(databasePath, { fileMustExist: true });
  try {
    const integrity = (connection.pragma('integrity_check') as { integrity_check: string }[]).map(
      (row) => row.integrity_check,
    );
    const foreignKeyProblems = (connection.pragma('foreign_key_check') as unknown[]).length;
    return { integrity, foreignKeyProblems };
  } finally {
    connection.close();
  }
}

/**
 * An exclusive lock on a file, held for as long as the process wants it and released by the operating
 * system when the process ends in any way, `kill -9` included (issue 17, "One server per data
 * directory"). It is SQLite's own file locking (fcntl byte-range locks on Unix, LockFileEx on Windows),
 * through the better-sqlite3 the server already ships, native and rebuilt for Electron: an EXCLUSIVE
 * transaction kept open on an empty database file. Taking it is one system call, so of two processes
 * starting at the same instant exactly one gets it, and there is no pid to outlive its process. SQLite
 * also keeps the locks of connections in one process apart, so a second claim in the same process (the
 * desktop app's tests) is refused like one from another process.
 *
 * Nothing is ever written to the file: journal_mode MEMORY keeps even the rollback journal out of the
 * folder. Two rules keep it sound: never delete the file while a process may hold it (a new file would
 * be a new lock), and never open and close it through another handle in the holding process (closing
 * any handle drops the process's POSIX locks on the file).
 */
import SqliteDatabase from 'better-sqlite3';

export interface FileLock {
  /** Gives the lock up (the process's end does too). */
  release(): void;
}

/**
 * Locks `path` (created empty if missing); null when another connection, in this process or another,
 * holds it. Other failures (no permission, a file that is not empty) are thrown as SQLite reports them.
 */
export function lockFile(path: string): FileLock | null {
  const connection = new SqliteDatabase(path, { timeout: 0 });
  try {
    connection.pragma('journal_mode = MEMORY');
    connection.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    connection.close();
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') return null;
    throw error;
  }
  held.add(connection);
  return {
    release: () => {
      if (!held.delete(connection)) return;
      connection.exec('ROLLBACK');
      connection.close();
    },
  };
}

/** The connections that hold locks, kept reachable for the process's lifetime. */
const held = new Set<SqliteDatabase.Database>();

/**
 * The database's checkpointer thread (db/checkpointer.ts): its own connection to the server's SQLite
 * file, copying what the write-ahead log holds into the database at every call, so that the fsyncs and
 * page copies of a checkpoint never stall the main thread's requests and commits. A PASSIVE checkpoint
 * waits for nobody: it copies what no reader still needs, and the rest at a later call. After it, a
 * slice of the free pages goes back to the file system (issue 36, "space comes back"): the database
 * is in incremental auto-vacuum mode (db/sqlite.ts), and `PRAGMA incremental_vacuum(N)` moves pages
 * from the end of the file into the holes deleted rows left and truncates it at the next checkpoint,
 * a bounded slice at a call so the main thread's writers never wait long for the lock. At import it
 * only keeps the young generation small where the host asked (young-generation.ts): piscina calls
 * `checkpoint`.
 */
import SqliteDatabase from 'better-sqlite3';
import { keepYoungGenerationSmallInThisWorker } from '../young-generation.js';

keepYoungGenerationSmallInThisWorker();

export interface CheckpointRequest {
  path: string;
  /** the last call: close the connection after the checkpoint */
  close: boolean;
  /** free pages to give back after the checkpoint when at least `reclaimFrom` are free; 0: none */
  reclaimPages: number;
  reclaimFrom: number;
}

export interface CheckpointOutcome {
  /** free pages given back to the file system at this call */
  reclaimedPages: number;
  /** why giving pages back failed (the checkpoint itself succeeded), or null */
  reclaimFailure: string | null;
}

let connection: SqliteDatabase.Database | null = null;

export function checkpoint({ path, close, reclaimPages, reclaimFrom }: CheckpointRequest): CheckpointOutcome {
  if (connection === null) {
    // fileMustExist: the server's connection made the file; a checkpointer never makes an empty one.
    connection = new SqliteDatabase(path, { fileMustExist: true });
    connection.pragma('busy_timeout = 5000');
  }
  try {
    connection.pragma('wal_checkpoint(PASSIVE)');
    return reclaimPages > 0 ? reclaim(connection, reclaimPages, reclaimFrom) : NOTHING_RECLAIMED;
  } finally {
    if (close) {
      connection.close();
      connection = null;
    }
  }
}

const NOTHING_RECLAIMED: CheckpointOutcome = { reclaimedPages: 0, reclaimFailure: null };

/**
 * Gives back at most `pages` free pages when at least `from` are free. A failure (another writer held
 * the lock past the busy timeout, a full disk for the log) loses nothing: the pages stay free for
 * SQLite to reuse, and the next call tries again.
 */
function reclaim(database: SqliteDatabase.Database, pages: number, from: number): CheckpointOutcome {
  const free = database.pragma('freelist_count', { simple: true }) as number;
  if (free < from) return NOTHING_RECLAIMED;
  try {
    // exec, not a prepared statement's run(): SQLite frees one page a step, and exec steps to the end.
    database.exec(`PRAGMA incremental_vacuum(${Math.floor(pages)})`);
  } catch (error) {
    return { reclaimedPages: 0, reclaimFailure: error instanceof Error ? error.message : String(error) };
  }
  return {
    reclaimedPages: free - (database.pragma('freelist_count', { simple: true }) as number),
    reclaimFailure: null,
  };
}

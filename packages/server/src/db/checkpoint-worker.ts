/**
 * The database's checkpointer thread (db/checkpointer.ts): its own connection to the server's SQLite
 * file, copying what the write-ahead log holds into the database at every call, so that the fsyncs and
 * page copies of a checkpoint never stall the main thread's requests and commits. A PASSIVE checkpoint
 * waits for nobody: it copies what no reader still needs, and the rest at a later call. At import it
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
}

let connection: SqliteDatabase.Database | null = null;

export function checkpoint({ path, close }: CheckpointRequest): void {
  if (connection === null) {
    // fileMustExist: the server's connection made the file; a checkpointer never makes an empty one.
    connection = new SqliteDatabase(path, { fileMustExist: true });
    connection.pragma('busy_timeout = 5000');
  }
  try {
    connection.pragma('wal_checkpoint(PASSIVE)');
  } finally {
    if (close) {
      connection.close();
      connection = null;
    }
  }
}

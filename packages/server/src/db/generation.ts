/**
 * Whether the database may have changed since an earlier moment, for results kept in memory between
 * requests (issue 4's bench/api: the credential lookup and the list version were most of what a small
 * authenticated request cost, though they answer the same thing request after request).
 *
 * `stamp()` returns a number that grows whenever a change may have been committed since the last
 * stamp, by this connection (a statement that writes ran: `noteWrite`, called by db/open.ts) or by any
 * other (SQLite's `PRAGMA data_version` moved: `rideport admin`, another server process). A result
 * computed after reading stamp S is current for as long as `stamp()` still returns S. Read the stamp
 * before computing the result, never after: then a change made in between only costs a miss.
 *
 * `stamp()` is asynchronous because PostgreSQL's generation (db/change-listener.ts) waits for its
 * listener to have heard of every commit made before the call; SQLite's answers at once.
 */
import type SqliteDatabase from 'better-sqlite3';

export interface Generation {
  stamp(): Promise<number>;
}

/** SQLite's generation: this connection's writes, and other processes' commits through data_version. */
export class DatabaseGeneration implements Generation {
  readonly #connection: SqliteDatabase.Database;
  readonly #dataVersion: SqliteDatabase.Statement<[], number>;
  #stamp = 0;
  #lastDataVersion = Number.NaN;

  /** `connection`: the connection whose writes `noteWrite` is told of. */
  constructor(connection: SqliteDatabase.Database) {
    this.#connection = connection;
    this.#dataVersion = connection.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** A statement that may change the database ran on this connection. */
  noteWrite(): void {
    this.#stamp += 1;
  }

  stamp(): Promise<number> {
    return Promise.resolve(this.#current());
  }

  #current(): number {
    // Inside a transaction (another request's, awaiting between its statements) the pragma cannot see
    // other connections' commits: a new stamp, so whatever is computed now is only ever a miss.
    if (this.#connection.inTransaction) return ++this.#stamp;
    // Outside one, the pragma runs on its own, synchronously: nothing else runs on the connection.
    const dataVersion = this.#dataVersion.get();
    if (dataVersion !== this.#lastDataVersion) {
      this.#lastDataVersion = dataVersion ?? Number.NaN;
      this.#stamp += 1;
    }
    return this.#stamp;
  }
}

/**
 * PostgreSQL's generation (db/generation.ts; issue 18, "credential caches that every node invalidates
 * at the next request after a revocation anywhere"): the stamp moves whenever any server on the
 * database commits a change to what the caches are computed from. Migration 014's triggers send a
 * notification on `rideport_changes` with every such statement; this server LISTENs on a connection of
 * its own, outside the Kysely pool, and each notification moves the stamp.
 *
 * Why a request can never be answered from a cache that a change committed before it began makes
 * stale (docs/contributors/decisions.md §3, "a revoked token fails with 401 on its next use", on every node):
 * notifications alone are not enough. They reach this process over their own socket, and nothing
 * orders that socket against the HTTP request of a client who, having seen server A's answer to the
 * revocation, asks server B at once: B may read the request first (two servers in one process, as in
 * caches-across-servers.test.ts, answer 200 for a revoked token at once without the fence). So every
 * `stamp()` first waits for a fence, a `SELECT 1` sent on the listening connection after the call
 * began, and reads the stamp once its answer is in:
 *   1. the revoking transaction on A put its notification in the queue before committing and, once
 *      committed (no snapshot sees it running), signalled every listening backend that had not read
 *      it yet, before its session's ReadyForQuery (async.c: SignalBackends): before A's COMMIT
 *      returned, so before A answered, and before B's request and fence existed;
 *   2. the listening backend therefore has that signal pending when it reads the fence, and sends the
 *      pending notifications before the fence's ReadyForQuery (postgres.c, "they'll be seen by the
 *      client before ReadyForQuery is");
 *   3. `pg` handles a connection's messages in order: the notification moves the stamp before the
 *      fence's answer resolves.
 * A result computed after that stamp was read and stored under it is dropped by the next notification,
 * as on SQLite (versioned-cache.ts). This server's own writes need nothing more: their notifications
 * come back to its own listener like anyone else's and, by the same three steps, before the fence of
 * any request that starts after the write's response.
 *
 * The fences cost one round trip on one connection, shared: the calls that arrive while a fence is out
 * wait together for the next one, so under load there is about one fence per round trip, not one per
 * request, and no table row is read or written (a version row bumped by every change would serialise
 * the writes of every node).
 *
 * While nothing listens (before the first connection, after it is lost, while a new one is made, or a
 * fence fails) every stamp is new, so nothing is kept (the cost of a query per lookup, never a stale
 * answer), and a new listening connection moves the stamp: commits made while nobody listened are
 * unheard. The connection is made on the first `stamp()`, so processes that never cache (`rideport
 * admin`, workers) never open it.
 */
import pg from 'pg';
import type { Generation } from './generation.js';

/** The channel of migration 014's triggers (migrations/014-change-signals.ts). */
const CHANNEL = 'rideport_changes';

/** How the listening connection shows in pg_stat_activity, for operators (and tests that end it). */
export const LISTENER_APPLICATION_NAME = 'rideport change listener';

/** After a failed connection, the next attempt waits this long: a database that is down is not asked at every request. */
const RECONNECT_DELAY_MS = 1000;

/**
 * A fence, or a connection attempt, unanswered for this long: the connection is taken for dead (a
 * network that drops packets without closing the socket), so requests fall back to reading the database
 * instead of waiting.
 */
const ANSWER_TIMEOUT_MS = 5000;

export class ChangeListener implements Generation {
  readonly #url: string;
  #stamp = 0;
  /** the connection that LISTENs, once it does */
  #client: pg.Client | null = null;
  /** the connection being made, if one is */
  #connecting: Promise<void> | null = null;
  #lastFailureAt = Number.NEGATIVE_INFINITY;
  /** calls waiting for the next fence */
  #waiting: ((heard: boolean) => void)[] = [];
  #fencing = false;
  #closed = false;

  constructor(url: string) {
    this.#url = url;
  }

  async stamp(): Promise<number> {
    if (await this.#fence()) return this.#stamp;
    return ++this.#stamp;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#connecting;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  /**
   * True once every notification committed before this call has moved the stamp; false when that
   * cannot be known (nothing listens, or the fence failed).
   */
  #fence(): Promise<boolean> {
    if (this.#client === null) {
      this.#connect();
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#fencing) void this.#sendFences();
    });
  }

  /** One fence at a time; the calls that arrived while one was out share the next. */
  async #sendFences(): Promise<void> {
    this.#fencing = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      const client = this.#client;
      let heard = false;
      if (client !== null) {
        try {
          await client.query('SELECT 1');
          heard = this.#client === client;
        } catch {
          this.#drop(client);
        }
      }
      for (const resolve of batch) resolve(heard);
    }
    this.#fencing = false;
  }

  #connect(): void {
    if (this.#connecting !== null || this.#closed) return;
    if (Date.now() - this.#lastFailureAt < RECONNECT_DELAY_MS) return;
    const client = new pg.Client({
      connectionString: this.#url,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: ANSWER_TIMEOUT_MS,
      query_timeout: ANSWER_TIMEOUT_MS,
    });
    client.on('notification', () => {
      this.#stamp += 1;
    });
    client.on('error', () => {
      this.#drop(client);
    });
    client.on('end', () => {
      this.#drop(client);
    });
    this.#connecting = this.#listen(client);
  }

  async #listen(client: pg.Client): Promise<void> {
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      if (this.#closed) throw new Error('closed while connecting');
      this.#client = client;
      // Commits made while nobody listened were not heard: whatever was kept before is dropped.
      this.#stamp += 1;
    } catch {
      this.#lastFailureAt = Date.now();
      client.end().catch(() => undefined);
    } finally {
      this.#connecting = null;
    }
  }

  /** The connection `client` is lost or unwanted: nothing listens until the next one. */
  #drop(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#stamp += 1;
    client.end().catch(() => undefined);
  }
}

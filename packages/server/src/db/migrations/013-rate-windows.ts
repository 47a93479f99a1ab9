/**
 * Migration 13 (issue 18, "rate-limit counters live in a per-process Map"): the windows of the sign-in
 * rate limits (auth/rate-limit.ts) in the database, so that every server on one database counts the
 * same attempts: a guesser spreading requests over the nodes behind a load balancer meets the same
 * limits as one talking to a single server. A row is one fixed window: its key (a hash, so the emails
 * typed into a failed sign-in are not kept), the hits so far and when the window ends. Rows whose window
 * has ended are swept (store/rate-windows.ts), so the table holds only live windows.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE rate_windows (
      key TEXT PRIMARY KEY,
      hits INTEGER NOT NULL,
      ends_ms INTEGER NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX rate_windows_ends ON rate_windows (ends_ms)`.execute(db);
}

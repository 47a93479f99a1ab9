/**
 * Migration 6 (issue 7): one-time sign-in links, which let the desktop app's window and `rideport up`
 * open the dashboard signed in (store/sign-in-links.ts). Like sessions, only the SHA-256 of a link's
 * token is kept; a link is deleted when it is used, and is good for two minutes.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sign_in_links (
      id INTEGER PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      next_path TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX sign_in_links_by_expiry ON sign_in_links (expires_at)`.execute(db);
}

/**
 * Migration 14 on PostgreSQL (issue 18; see ../014-change-signals.ts): every statement that changes a
 * table whose rows a server keeps in memory between requests sends a notification on the channel
 * `rideport_changes`, which each server listens to (db/change-listener.ts) to drop what it kept.
 *
 * The tables are those the kept results are read from: credentials (store/callers.ts: auth_tokens,
 * oauth_tokens, api_clients, users) and list versions (store/changes.ts: asset_changes). Statement
 * triggers, not row triggers: one notification per statement however many rows it touches, and
 * PostgreSQL folds equal notifications of one transaction into one. A notification is delivered only
 * when its transaction commits, so a rolled-back change drops nothing.
 */
import { sql, type Kysely } from 'kysely';

/** The channel, also named by db/change-listener.ts. */
const CHANNEL = 'rideport_changes';

const WATCHED_TABLES = ['users', 'api_clients', 'auth_tokens', 'oauth_tokens', 'asset_changes'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION rideport_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify(${sql.lit(CHANNEL)}, TG_TABLE_NAME);
      RETURN NULL;
    END
    $$`.execute(db);
  for (const table of WATCHED_TABLES) {
    await sql`
      CREATE TRIGGER ${sql.raw(`${table}_announce_change`)}
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION rideport_announce_change()`.execute(db);
  }
}

/**
 * Migration 14 (issue 18, "credential caches that every node invalidates at the next request after a
 * revocation anywhere"): every statement that changes a table whose rows a server keeps in memory
 * between requests announces it on the channel `rideport_changes`, which each server listens to
 * (db/change-listener.ts) to drop what it kept. On PostgreSQL, triggers; SQLite needs nothing, since
 * one file's `PRAGMA data_version` already tells every process that the database changed
 * (db/generation.ts; `MigrationDialect.announceChanges`).
 *
 * The tables are those the kept results are read from: credentials (store/callers.ts: auth_tokens,
 * oauth_tokens, api_clients, users) and list versions (store/changes.ts: asset_changes). A notification
 * is delivered only when its transaction commits, so a rolled-back change drops nothing.
 */
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  await dialect.announceChanges(db, {
    // Also named by db/change-listener.ts.
    channel: 'rideport_changes',
    functionName: 'rideport_announce_change',
    tables: ['users', 'api_clients', 'auth_tokens', 'oauth_tokens', 'asset_changes'],
  });
}

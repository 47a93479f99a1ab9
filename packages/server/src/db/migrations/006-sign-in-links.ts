/**
 * Migration 6 (issue 7): one-time sign-in links, which let the desktop app's window and `rideport up`
 * open the dashboard signed in (store/sign-in-links.ts). Like sessions, only the SHA-256 of a link's
 * token is kept; a link is deleted when it is used, and is good for two minutes.
 */
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  const { integer, text } = dialect;
  await dialect
    .createTable(db, 'sign_in_links')
    .addColumn('id', integer, dialect.id)
    .addColumn('token_hash', text, (column) => column.notNull().unique())
    .addColumn('user_id', integer, (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('next_path', text, (column) => column.notNull())
    .addColumn('created_at', integer, (column) => column.notNull())
    .addColumn('expires_at', integer, (column) => column.notNull())
    .execute();
  await db.schema.createIndex('sign_in_links_by_expiry').on('sign_in_links').column('expires_at').execute();
}

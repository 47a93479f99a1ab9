/** Migration 13 (issue 18: rate-limit windows) on PostgreSQL; see ../013-rate-windows.ts. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE rate_windows (
      key TEXT PRIMARY KEY,
      hits BIGINT NOT NULL,
      ends_ms BIGINT NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX rate_windows_ends ON rate_windows (ends_ms)`.execute(db);
}

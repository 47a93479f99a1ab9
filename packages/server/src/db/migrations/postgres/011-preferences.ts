/** Migration 11 (issue 19: preferences, power curves) on PostgreSQL; see ../011-preferences.ts. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE user_preferences (
      user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      units TEXT NOT NULL DEFAULT 'metric' CHECK (units IN ('metric', 'imperial')),
      time_zone TEXT,
      ftp_watts BIGINT CHECK (ftp_watts BETWEEN 1 AND 2000),
      threshold_hr BIGINT CHECK (threshold_hr BETWEEN 1 AND 250),
      max_hr BIGINT CHECK (max_hr BETWEEN 1 AND 250),
      updated_at BIGINT NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE trip_power_curves (
      trip_id BIGINT PRIMARY KEY REFERENCES trips(id) ON DELETE CASCADE,
      curve TEXT NOT NULL
    )`.execute(db);
}

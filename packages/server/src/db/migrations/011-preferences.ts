/**
 * Migration 11 (issue 19, "Units, time and names"): each rider's preferences, stored on the server so
 * every page, chart and download reads the same ones (store/preferences.ts). A rider without a row has
 * the defaults: metric units, no time zone of their own (UTC; the local account of `rideport up` gets
 * the machine's zone when it is created), and no FTP or heart rates (the ride page then says where to
 * set them). The CHECKs hold the ranges the preferences page accepts, so no other writer stores what
 * the analysis cannot use (a zero FTP would divide by zero).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE user_preferences (
      user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      units TEXT NOT NULL DEFAULT 'metric' CHECK (units IN ('metric', 'imperial')),
      time_zone TEXT,
      ftp_watts INTEGER CHECK (ftp_watts BETWEEN 1 AND 2000),
      threshold_hr INTEGER CHECK (threshold_hr BETWEEN 1 AND 250),
      max_hr INTEGER CHECK (max_hr BETWEEN 1 AND 250),
      updated_at INTEGER NOT NULL
    ) STRICT`.execute(db);
}

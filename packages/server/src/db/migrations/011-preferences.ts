/**
 * Migration 11 (issue 19, "Units, time and names"): each rider's preferences, stored on the server so
 * every page, chart and download reads the same ones (store/preferences.ts). A rider without a row has
 * the defaults: metric units, no time zone of their own (UTC; the local account of `rideport up` gets
 * the machine's zone when it is created), and no FTP or heart rates (the ride page then says where to
 * set them). The CHECKs hold the ranges the preferences page accepts, so no other writer stores what
 * the analysis cannot use (a zero FTP would divide by zero).
 *
 * trip_power_curves: each ride's best power over 5 s, 1 min, 5 min, 20 min and 1 h (ridefile's
 * POWER_CURVE_SECONDS), computed once per ride so the overview's best curve over all rides reads one
 * short row per ride instead of every point (store/power-curves.ts). Filled when the overview first
 * needs a ride's curve; a ride's row goes when its points are replaced or it is deleted.
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
  await sql`
    CREATE TABLE trip_power_curves (
      trip_id INTEGER PRIMARY KEY REFERENCES trips(id) ON DELETE CASCADE,
      curve TEXT NOT NULL
    ) STRICT`.execute(db);
}

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
import { sql } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  const { integer, text } = dialect;
  await dialect
    .createTable(db, 'user_preferences')
    .addColumn('user_id', integer, (column) => column.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('units', text, (column) =>
      column
        .notNull()
        .defaultTo('metric')
        .check(sql`units IN ('metric', 'imperial')`),
    )
    .addColumn('time_zone', text)
    .addColumn('ftp_watts', integer, (column) => column.check(sql`ftp_watts BETWEEN 1 AND 2000`))
    .addColumn('threshold_hr', integer, (column) => column.check(sql`threshold_hr BETWEEN 1 AND 250`))
    .addColumn('max_hr', integer, (column) => column.check(sql`max_hr BETWEEN 1 AND 250`))
    .addColumn('updated_at', integer, (column) => column.notNull())
    .execute();
  await dialect
    .createTable(db, 'trip_power_curves')
    .addColumn('trip_id', integer, (column) => column.primaryKey().references('trips.id').onDelete('cascade'))
    .addColumn('curve', text, (column) => column.notNull())
    .execute();
}

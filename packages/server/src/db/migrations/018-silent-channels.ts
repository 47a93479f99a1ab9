/**
 * Migration 18 (issue 40, "a channel that is all zeros is no channel"): a ride whose power meter or
 * cadence sensor wrote nothing but zeros was stored with 0 W or 0 rpm as its average, minimum and
 * maximum, and with a power curve of zeros, so it counted among the rider's rides with power. The
 * parser now gives such a ride no power and no cadence; this makes the rides stored before say the
 * same. Their records are rendered again when next read (record_format NULL), and a deleted curve is
 * computed again from the points when the overview next needs it (an empty one, as for any ride
 * without power).
 */
import { sql } from 'kysely';
import type { MigrationDb } from './dialect.js';

export async function up(db: MigrationDb): Promise<void> {
  await sql`DELETE FROM trip_power_curves WHERE trip_id IN (SELECT id FROM trips WHERE max_watts = 0)`.execute(
    db,
  );
  await sql`UPDATE trips SET avg_watts = NULL, min_watts = NULL, max_watts = NULL, record_format = NULL
    WHERE max_watts = 0`.execute(db);
  await sql`UPDATE trips SET avg_cad = NULL, min_cad = NULL, max_cad = NULL, record_format = NULL
    WHERE max_cad = 0`.execute(db);
}

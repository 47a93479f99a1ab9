/**
 * Migration 8 (issue 16, "One ride per ride"): what identifies the recording a trip came from, and its
 * time range, so the upload queue can tell the same recording in other bytes (a `.fit.gz`, a cut-off
 * copy, a TCX or GPX export) and the ride page can name the rides that overlap it
 * (queue/same-recording.ts; store/trip-recordings.ts).
 *
 * - recording_serial: the device's serial number (FIT file_id, TCX Creator/UnitId), as text.
 * - recording_created_at: FIT file_id.time_created, Unix ms.
 * - started_at, ended_at: the first and last timed point, Unix ms (whole seconds). departed_at is the
 *   file's own start (a FIT session's start_time) and duration its elapsed time, which need not be the
 *   points' (a cut-off copy has no session), so the range gets columns of its own.
 *
 * Overlap queries ("which of this user's trips overlap [start, end]?") read the index on (user_id,
 * started_at) between start − 48 h and end; trips longer than 48 h, rare, have a partial index of
 * their own (the expression must be written exactly so in queries for SQLite to use it).
 *
 * Trips stored before this migration get their range from their points here, read as the store read
 * them then (frozen/track-times.ts); their serial number and creation time were never stored and stay
 * unknown (their device name still identifies them).
 */
import { sql } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';
import { jsonTimeRange, packedTimeRange } from './frozen/track-times.js';

/** Trips longer than this are found through trips_user_long (store/trip-recordings.ts). */
export const LONG_TRIP_MS = 48 * 3600 * 1000;

/** Trips whose range is read per query, so a large database never holds all their points at once. */
const BACKFILL_BATCH = 50;

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  await db.schema.alterTable('trips').addColumn('recording_serial', dialect.text).execute();
  for (const column of ['recording_created_at', 'started_at', 'ended_at']) {
    await db.schema.alterTable('trips').addColumn(column, dialect.integer).execute();
  }
  await backfillRanges(db);
  await db.schema
    .createIndex('trips_user_started')
    .on('trips')
    .columns(['user_id', 'started_at'])
    .where('started_at', 'is not', null)
    .execute();
  await db.schema
    .createIndex('trips_user_long')
    .on('trips')
    .columns(['user_id', 'started_at'])
    .where(sql<boolean>`ended_at - started_at > ${sql.lit(LONG_TRIP_MS)}`)
    .execute();
}

/** started_at and ended_at of the trips already stored, from their points (packed or JSON). */
async function backfillRanges(db: MigrationDb): Promise<void> {
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; points: string | null; packed: Buffer | null }>`
      SELECT t.id, p.points, p.packed FROM trips t JOIN trip_track_points p ON p.asset_id = t.id
      WHERE t.id > ${after} ORDER BY t.id LIMIT ${BACKFILL_BATCH}`.execute(db);
    if (rows.length === 0) return;
    for (const row of rows) {
      after = row.id;
      const range = row.packed !== null ? packedTimeRange(row.packed) : jsonTimeRange(row.points ?? '[]');
      if (range === null) continue;
      await sql`UPDATE trips SET started_at = ${range.first * 1000}, ended_at = ${range.last * 1000}
        WHERE id = ${row.id}`.execute(db);
    }
  }
}

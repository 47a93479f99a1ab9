/**
 * Migration 7 (issue 16, "Damaged and partial files, said out loud"): what was wrong with the file a
 * route or trip was read from travels with it, and a failed upload keeps its code for programs.
 *
 * - routes/trips `warnings`: the JSON array of @rideport/ridefile's warnings of the track
 *   (`Track.warnings`, `[{"code","message"}]`, the library's own message); `[]` for a sound file. Null
 *   for rows written before this migration, which read as `[]`: nothing was known then.
 * - routes/trips `last_point_at`: Unix milliseconds of the last point that has a time (null when none
 *   has), so the words for a cut-off file can say "the ride was read up to 14:32" without reading the
 *   points (warning-words.ts).
 * - queued_tasks `error_code`: the stable code of a failed task (a RideFileErrorCode, or the queue's
 *   own, queue/queue.ts); the task's `message` says it in words. Null for every other task.
 */
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  for (const table of ['routes', 'trips']) {
    await db.schema.alterTable(table).addColumn('warnings', dialect.text).execute();
    await db.schema.alterTable(table).addColumn('last_point_at', dialect.integer).execute();
  }
  await db.schema.alterTable('queued_tasks').addColumn('error_code', dialect.text).execute();
}

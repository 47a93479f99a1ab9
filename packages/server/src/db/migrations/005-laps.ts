/**
 * Migration 5 (issue 7, the dashboard's ride page): the laps a file records, as the JSON array of
 * @rideport/ridefile's Lap objects, on trips and routes (routes from files rarely have laps, but a
 * column costs nothing until it is filled). Null for rows written before it, which the ride page
 * shows as "no laps recorded". Also an index for the dashboard's rides list, newest departure first.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE trips ADD COLUMN laps TEXT`.execute(db);
  await sql`ALTER TABLE routes ADD COLUMN laps TEXT`.execute(db);
  await sql`CREATE INDEX trips_user_departed ON trips (user_id, departed_at DESC, id DESC)`.execute(db);
}

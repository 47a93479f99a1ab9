/**
 * Migration 5 (issue 7, the dashboard's ride page): the laps a file records, as the JSON array of
 * @rideport/ridefile's Lap objects, on trips and routes (routes from files rarely have laps, but a
 * column costs nothing until it is filled). Null for rows written before it, which the ride page
 * shows as "no laps recorded". Also an index for the dashboard's rides list, newest departure first.
 */
import type { MigrationDb, MigrationDialect } from './dialect.js';

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  await db.schema.alterTable('trips').addColumn('laps', dialect.text).execute();
  await db.schema.alterTable('routes').addColumn('laps', dialect.text).execute();
  await db.schema
    .createIndex('trips_user_departed')
    .on('trips')
    .columns(['user_id', 'departed_at desc', 'id desc'])
    .execute();
}

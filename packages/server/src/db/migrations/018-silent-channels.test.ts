/**
 * Migration 18 (issue 40): rides stored while a power meter or cadence sensor that wrote nothing but
 * zeros counted as power and cadence lose those zeros, their records and their power curve with them;
 * rides with real power and cadence keep theirs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trackFromPoints, type TrackPoint } from '@rideport/ridefile';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPerson, credentialsFor, testServer } from '../../test-support/server.js';
import { up as silentChannels } from './018-silent-channels.js';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'rideport-018-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

const START = Date.parse('2025-05-01T08:00:00Z') / 1000;
const ride = (start: number, watts: number, rpm: number): TrackPoint[] =>
  Array.from({ length: 600 }, (_, i) => ({ t: start + i, p: watts, c: rpm, h: 130 }));

interface TripFields {
  id: number;
  avg_watts: number | null;
  max_watts: number | null;
  avg_cad: number | null;
  max_cad: number | null;
  avg_hr: number | null;
}

describe('migration 018: channels of nothing but zeros', () => {
  it('takes the zeros of silent power meters and cadence sensors out of rides stored before', async () => {
    const databasePath = join(directory, 'rideport.sqlite');
    const first = await testServer({ databasePath });
    const rider = await createPerson(first, 'Rider');
    const credentials = await credentialsFor(first, rider);
    const { assets, powerCurves } = first.store;
    const silent = await assets.createFromTrack(
      rider.id,
      trackFromPoints(ride(START, 0, 0), { sport: 'cycling' }),
    );
    const powered = await assets.createFromTrack(
      rider.id,
      trackFromPoints(ride(START + 3600, 210, 85), { sport: 'cycling' }),
    );
    expect((await powerCurves.ofRider(rider.id)).rides.map((row) => row.tripId)).toEqual([powered.row.id]);
    await first.close();

    // What the parser before this version stored for the silent ride: zeros, and a curve of zeros.
    const sqlite = new SqliteDatabase(databasePath);
    sqlite.exec(`
      UPDATE trips SET avg_watts = 0, min_watts = 0, max_watts = 0, avg_cad = 0, min_cad = 0, max_cad = 0,
        record_json = json_set(record_json, '$.avg_watts', 0, '$.min_watts', 0, '$.max_watts', 0,
          '$.avg_cad', 0, '$.min_cad', 0, '$.max_cad', 0)
        WHERE id = ${silent.row.id};
      UPDATE trip_power_curves SET curve = '[0,0,0,0,null]' WHERE trip_id = ${silent.row.id};`);
    // Migration 18 again over those rows, as an upgrade runs it (it is recorded already, so the
    // migrator would not run it again: it is called directly).
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    await silentChannels(db);
    await db.destroy();

    const second = await testServer({ databasePath });
    try {
      const answer = await second.app.inject({
        url: '/api/v1/trips.json',
        headers: { authorization: credentials.basic },
      });
      expect(answer.statusCode).toBe(200);
      const trips = answer.json<{ trips: TripFields[] }>().trips;
      expect(trips.find((trip) => trip.id === silent.row.id)).toMatchObject({
        avg_watts: null,
        max_watts: null,
        avg_cad: null,
        max_cad: null,
        avg_hr: 130,
      });
      expect(trips.find((trip) => trip.id === powered.row.id)).toMatchObject({
        avg_watts: 210,
        max_watts: 210,
        avg_cad: 85,
        max_cad: 85,
      });
      const curves = await second.store.powerCurves.ofRider(rider.id);
      expect(curves.rides.map((row) => row.tripId)).toEqual([powered.row.id]);
      const stored = await second.store.transaction((db) =>
        db.selectFrom('trip_power_curves').select(['trip_id', 'curve']).orderBy('trip_id').execute(),
      );
      // The silent ride's curve was computed again from its points: none.
      expect(stored).toEqual([
        { trip_id: silent.row.id, curve: '[]' },
        { trip_id: powered.row.id, curve: '[210,210,210,null,null]' },
      ]);
    } finally {
      await second.close();
    }
  });
});

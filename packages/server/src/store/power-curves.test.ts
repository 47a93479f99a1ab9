/**
 * Each ride's power curve, computed once and kept (store/power-curves.ts, issue 19): computed from the
 * stored points the first time, read back after; measured again when a more complete copy replaces a
 * ride's points; gone with the ride.
 */
import { lastPointTime, trackFromPoints, type TrackPoint } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';
import { timeRange } from './track-columns.js';
import { packTrackPoints } from '../codec/track-points.js';

let server: TestServer;
let rider: Person;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Curve');
});
afterEach(async () => {
  await server.close();
});

const START = Date.parse('2025-05-01T08:00:00Z') / 1000;
const steady = (seconds: number, watts: number): TrackPoint[] =>
  Array.from({ length: seconds }, (_, i) => ({ t: START + i, p: watts }));

describe('PowerCurves', () => {
  it('computes a ride’s curve once, keeps it, and leaves rides without power out', async () => {
    const { assets, powerCurves } = server.store;
    const ride = await assets.createFromTrack(
      rider.id,
      trackFromPoints(steady(400, 210), { sport: 'cycling' }),
    );
    await assets.createFromTrack(
      rider.id,
      trackFromPoints(
        Array.from({ length: 100 }, (_, i) => ({ t: START + 5000 + i, h: 120 })),
        { sport: 'cycling' },
      ),
    );
    const first = await powerCurves.ofRider(rider.id);
    expect(first).toEqual({
      rides: [
        {
          tripId: ride.row.id,
          name: ride.row.name,
          departedAt: START * 1000,
          timeZone: null,
          curve: [210, 210, 210, null, null],
        },
      ],
      pending: 0,
    });
    const rows = await server.store.transaction((db) =>
      db.selectFrom('trip_power_curves').selectAll().execute(),
    );
    expect(rows).toHaveLength(2);
    await expect(powerCurves.ofRider(rider.id)).resolves.toEqual(first);
  });

  it('measures a ride again when its points are replaced, and forgets it when it is deleted', async () => {
    const { assets, powerCurves } = server.store;
    const ride = await assets.createFromTrack(
      rider.id,
      trackFromPoints(steady(100, 150), { sport: 'cycling' }),
    );
    expect((await powerCurves.ofRider(rider.id)).rides[0]!.curve).toEqual([150, 150, null, null, null]);
    const whole = trackFromPoints(steady(400, 300), { sport: 'cycling' });
    const points = steady(400, 300);
    await server.store.transaction((db) =>
      assets.completeTrip(
        ride.row.id,
        whole,
        {
          packedPoints: {
            bytes: packTrackPoints(points),
            count: points.length,
            lastTime: lastPointTime(points),
            timeRange: timeRange(points),
          },
          sourceSha256: 'a'.repeat(64),
        },
        db,
      ),
    );
    expect((await powerCurves.ofRider(rider.id)).rides[0]!.curve).toEqual([300, 300, 300, null, null]);
    await assets.delete('trip', ride.row.id, rider.id);
    await expect(powerCurves.ofRider(rider.id)).resolves.toEqual({ rides: [], pending: 0 });
    const rows = await server.store.transaction((db) =>
      db.selectFrom('trip_power_curves').selectAll().execute(),
    );
    expect(rows).toEqual([]);
  });
});

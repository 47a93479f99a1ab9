import { trackFromPoints } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LONG_TRIP_MS } from '../db/migrations/008-recordings.js';
import { openSqlite, type OpenSqliteDatabase } from '../db/sqlite.js';
import { Assets } from './assets.js';
import { PointsRenderer } from './points-renderer.js';
import { rangeQuery, TripRecordings } from './trip-recordings.js';
import { Users } from './users.js';

/**
 * Trips by time range (issue 16; migration 8): which trips a range takes in, and that the query reads
 * the indexes, so an upload compares itself with a handful of trips however many its rider has.
 */

const HOUR = 3600;
const T0 = 1_714_809_600;

let database: OpenSqliteDatabase;
let assets: Assets;
let recordings: TripRecordings;
let userId: number;

beforeEach(async () => {
  database = await openSqlite(':memory:');
  const context = { ...database, clock: () => Date.now() };
  assets = new Assets(context, new PointsRenderer());
  recordings = new TripRecordings(context);
  userId = (await new Users(context).createPerson({ email: 'r@example.com', password: 'long enough' })).id;
});

afterEach(async () => {
  await database.close();
});

/** A trip whose points run from `from` to `to` (Unix seconds), one point a minute. */
async function trip(name: string, from: number, to: number, owner = userId): Promise<number> {
  const points = [];
  for (let t = from; t < to; t += 60) points.push({ x: 8.5, y: 47.4, t });
  points.push({ x: 8.5, y: 47.4, t: to });
  return (await assets.createFromTrack(owner, trackFromPoints(points), { name })).row.id;
}

const names = async (from: number, to: number, meet: 'touching' | 'overlapping', exceptId?: number) =>
  (
    await recordings.inRange(userId, {
      fromMs: from * 1000,
      toMs: to * 1000,
      meet,
      ...(exceptId === undefined ? {} : { exceptId }),
    })
  ).map((row) => row.name);

describe('TripRecordings.inRange', () => {
  it('stores each trip’s first and last timed point as its range', async () => {
    const id = await trip('Morning', T0, T0 + HOUR);
    expect(await assets.find('trip', id)).toMatchObject({
      started_at: T0 * 1000,
      ended_at: (T0 + HOUR) * 1000,
    });
  });

  it('finds the trips that overlap a range, by start; a trip ending as the range begins only touches it', async () => {
    await trip('Before', T0 - 2 * HOUR, T0);
    await trip('Morning', T0, T0 + HOUR);
    await trip('Watch', T0 + 60, T0 + HOUR + 60);
    await trip('Later', T0 + 3 * HOUR, T0 + 4 * HOUR);
    expect(await names(T0, T0 + HOUR, 'overlapping')).toEqual(['Morning', 'Watch']);
    expect(await names(T0, T0 + HOUR, 'touching')).toEqual(['Before', 'Morning', 'Watch']);
    expect(await names(T0 + 2 * HOUR, T0 + 2.5 * HOUR, 'overlapping')).toEqual([]);
  });

  it('leaves out the trip asked about, and other riders’ trips', async () => {
    const morning = await trip('Morning', T0, T0 + HOUR);
    await trip('Watch', T0 + 60, T0 + HOUR + 60);
    const other = await new Users({ ...database, clock: () => Date.now() }).createPerson({
      email: 'o@example.com',
      password: 'long enough',
    });
    await trip('Someone else', T0, T0 + HOUR, other.id);
    expect(await names(T0, T0 + HOUR, 'overlapping', morning)).toEqual(['Watch']);
  });

  it('finds a trip longer than 48 hours that began long before the range', async () => {
    await trip('Audax', T0 - 3 * 24 * HOUR, T0 + HOUR);
    await trip('Short', T0 - 3 * 24 * HOUR, T0 - 3 * 24 * HOUR + HOUR);
    expect(LONG_TRIP_MS).toBe(48 * HOUR * 1000);
    expect(await names(T0, T0 + 60, 'overlapping')).toEqual(['Audax']);
  });

  it('reads the indexes of migration 8, never the whole table', () => {
    const compiled = rangeQuery(database.db, userId, {
      fromMs: T0 * 1000,
      toMs: (T0 + HOUR) * 1000,
      meet: 'touching',
    }).compile();
    const plan = database.sqlite
      .prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`)
      .all(...(compiled.parameters as unknown[])) as { detail: string }[];
    const details = plan.map((row) => row.detail).join('\n');
    // Both halves seek by user and start time: no trip outside the window is read.
    expect(details).toMatch(
      /SEARCH trips USING INDEX trips_user_started \(user_id=\? AND started_at>\? AND started_at<\?\)/,
    );
    expect(details).toMatch(/SEARCH trips USING INDEX trips_user_long \(user_id=\? AND started_at<\?\)/);
    expect(details).not.toMatch(/SCAN trips(?! USING)/);
  });
});

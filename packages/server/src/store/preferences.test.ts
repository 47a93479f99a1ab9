/**
 * Riders' preferences in the data-access layer (store/preferences.ts, issue 19): defaults, what is
 * refused in words, and the name a ride without positions gets in
 * the rider's zone.
 */
import { trackFromPoints } from '@rideport/ridefile';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';
import { DEFAULT_PREFERENCES, preferenceProblems, type Preferences } from './preferences.js';

let server: TestServer;
let rider: Person;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Pia');
});
afterEach(async () => {
  await server.close();
});

const valid: Preferences = {
  units: 'imperial',
  timeZone: 'America/Denver',
  ftpWatts: 280,
  thresholdHeartRate: 168,
  maxHeartRate: 188,
};

describe('UserPreferences', () => {
  it('gives the defaults to a rider who saved none, and keeps what is saved', async () => {
    await expect(server.store.preferences.get(rider.id)).resolves.toEqual(DEFAULT_PREFERENCES);
    await server.store.preferences.save(rider.id, valid);
    await expect(server.store.preferences.get(rider.id)).resolves.toEqual(valid);
    await server.store.preferences.save(rider.id, { ...DEFAULT_PREFERENCES, units: 'imperial' });
    await expect(server.store.preferences.get(rider.id)).resolves.toEqual({
      ...DEFAULT_PREFERENCES,
      units: 'imperial',
    });
  });

  it('refuses what the page would refuse, and stores nothing', async () => {
    await expect(server.store.preferences.save(rider.id, { ...valid, ftpWatts: 0 })).rejects.toThrow(/FTP/);
    await expect(server.store.preferences.get(rider.id)).resolves.toEqual(DEFAULT_PREFERENCES);
  });

  it("names a ride without positions by the rider's zone", async () => {
    // 2025-03-10 04:30 UTC: night in UTC, evening (17:30) in Auckland.
    const start = Date.parse('2025-03-10T04:30:00Z') / 1000;
    const track = () =>
      trackFromPoints(
        Array.from({ length: 30 }, (_, i) => ({ t: start + i * 60, p: 200 })),
        { sport: 'cycling' },
      );
    await server.store.preferences.save(rider.id, { ...DEFAULT_PREFERENCES, timeZone: 'Pacific/Auckland' });
    expect((await server.store.assets.createFromTrack(rider.id, track())).row.name).toBe('Evening Ride');
  });

  it('names such rides again when the rider changes zone, and leaves the names given (issue 40)', async () => {
    const { assets, preferences } = server.store;
    const start = Date.parse('2025-03-10T04:30:00Z') / 1000;
    const indoors = (name?: string) =>
      trackFromPoints(
        Array.from({ length: 30 }, (_, i) => ({ t: start + i * 60, p: 200 })),
        { sport: 'cycling', ...(name === undefined ? {} : { name }) },
      );
    await preferences.save(rider.id, { ...DEFAULT_PREFERENCES, timeZone: 'UTC' });
    const made = (await assets.createFromTrack(rider.id, indoors())).row.id;
    const given = (await assets.createFromTrack(rider.id, indoors('Trainer intervals'))).row.id;
    const outdoors = (
      await assets.createFromTrack(
        rider.id,
        trackFromPoints(
          Array.from({ length: 30 }, (_, i) => ({ x: 7.44, y: 46.95 + i * 1e-4, t: start + i * 60 })),
          { sport: 'cycling' },
        ),
      )
    ).row.id;
    const names = async () =>
      Promise.all([made, given, outdoors].map(async (id) => (await assets.find('trip', id))!.name));
    // 04:30 UTC; in Bern, where the outdoor ride began, 05:30.
    await expect(names()).resolves.toEqual(['Night Ride', 'Trainer intervals', 'Morning Ride']);
    await preferences.save(rider.id, { ...DEFAULT_PREFERENCES, timeZone: 'Pacific/Auckland' });
    await expect(names()).resolves.toEqual(['Evening Ride', 'Trainer intervals', 'Morning Ride']);
    // The record the API answers with says the same.
    const record = JSON.parse((await assets.find('trip', made))!.record_json!) as { name: string };
    expect(record.name).toBe('Evening Ride');
    // The same zone again changes nothing; back to UTC, back to the first name.
    await preferences.save(rider.id, {
      ...DEFAULT_PREFERENCES,
      timeZone: 'Pacific/Auckland',
      units: 'imperial',
    });
    await expect(names()).resolves.toEqual(['Evening Ride', 'Trainer intervals', 'Morning Ride']);
    await preferences.save(rider.id, { ...DEFAULT_PREFERENCES, timeZone: 'UTC' });
    await expect(names()).resolves.toEqual(['Night Ride', 'Trainer intervals', 'Morning Ride']);
  });
});

describe('preferenceProblems', () => {
  it('says each problem in a sentence', () => {
    expect(
      preferenceProblems({
        units: 'furlongs' as Preferences['units'],
        timeZone: 'Nowhere/Special',
        ftpWatts: 2.5,
        thresholdHeartRate: 300,
        maxHeartRate: 0,
      }),
    ).toEqual([
      'Choose metric or imperial units.',
      '"Nowhere/Special" is not a time zone this server knows; write one such as Europe/Zurich.',
      'The FTP must be a whole number of watts from 1 to 2000.',
      'The threshold heart rate must be a whole number of beats a minute from 1 to 250.',
      'The maximum heart rate must be a whole number of beats a minute from 1 to 250.',
    ]);
  });

  it('accepts every zone the runtime lists, as it spells them', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Intl.supportedValuesOf('timeZone')), (zone) => {
        expect(preferenceProblems({ ...DEFAULT_PREFERENCES, timeZone: zone })).toEqual([]);
      }),
    );
  });

  it('accepts whole numbers in range and refuses the rest', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -10, max: 3000 }), fc.double()), (value) => {
        const ok = Number.isInteger(value) && value >= 1 && value <= 2000;
        expect(preferenceProblems({ ...DEFAULT_PREFERENCES, ftpWatts: value })).toHaveLength(ok ? 0 : 1);
      }),
    );
  });
});

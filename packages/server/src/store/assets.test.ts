import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { jsonTextString, onlyTrack, storedAsset, storeFile, tracksOf } from '../test-support/assets.js';
import {
  createPerson,
  START_TIME,
  testServer,
  type Person,
  type TestServer,
} from '../test-support/server.js';
import { UNDO_MIGRATIONS_AFTER_009 } from '../test-support/later-migrations.js';
import { onPostgres } from '../test-support/test-database.js';
import { routeRecordFields, tripRecordFields } from './asset-records.js';
import type { SyncedAsset } from './changes.js';

let server: TestServer;
let rider: Person;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
});
afterEach(async () => {
  await server.close();
});

const sampleRide = () => onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
/** "Planned loop", the GPX rte of tracks-and-routes.gpx: a route (docs/contributors/decisions.md §5). */
const plannedLoop = () =>
  tracksOf(readFixture('gpx', 'tracks-and-routes.gpx'), 'x.gpx').find(
    (t) => t.kind === 'route' && t.name === 'Planned loop',
  )!;

/** The changes of the rider's library since `sinceMs` (default: all), as sync.json lists them. */
const changes = (sinceMs = 0): Promise<SyncedAsset[]> =>
  server.store.changes.since(rider.id, sinceMs, ['route', 'trip']);

/**
 * What migrations 7 (warnings) and 8 (recordings) added, taken out again to stand for an older database,
 * with migration 11 (preferences), which Kysely then runs again after them.
 */
const UNDO_MIGRATIONS_7_AND_8 = `
  ${UNDO_MIGRATIONS_AFTER_009}
  DROP INDEX trips_user_started;
  DROP INDEX trips_user_long;
  ALTER TABLE trips DROP COLUMN recording_serial;
  ALTER TABLE trips DROP COLUMN recording_created_at;
  ALTER TABLE trips DROP COLUMN started_at;
  ALTER TABLE trips DROP COLUMN ended_at;
  ALTER TABLE trips DROP COLUMN warnings;
  ALTER TABLE trips DROP COLUMN last_point_at;
  ALTER TABLE routes DROP COLUMN warnings;
  ALTER TABLE routes DROP COLUMN last_point_at;
  ALTER TABLE queued_tasks DROP COLUMN error_code;`;

describe('Assets.createFromTrack', () => {
  it('splits rides and routes (docs/contributors/decisions.md §5): each timed trk a trip, untimed trk and rte routes', async () => {
    const created = await storeFile(server, rider.id, readFixture('gpx', 'tracks-and-routes.gpx'), 'x.gpx');
    expect(created.map(({ type, row }) => [type, row.name])).toEqual([
      ['trip', 'Morning ride'],
      ['route', 'Untitled route'],
      ['route', 'Planned loop'],
    ]);
  });

  it('fills the row from the summary, keeps the rendered record in step, and logs "created" in the same transaction', async () => {
    const track = sampleRide();
    const { type, row } = await server.store.assets.createFromTrack(rider.id, track, {
      description: '  After work  ',
      visibility: 'public',
    });
    expect(type).toBe('trip');
    expect(row).toMatchObject({
      user_id: rider.id,
      name: track.name,
      description: 'After work',
      visibility: 'public',
      created_at: START_TIME,
      updated_at: START_TIME,
      point_count: track.points.length,
      distance: track.summary.distanceMeters,
    });
    if (type !== 'trip') throw new Error('expected a trip');
    expect(JSON.parse(row.record_json!)).toEqual({ id: row.id, ...tripRecordFields(row) });
    expect(await changes()).toEqual([
      { itemType: 'trip', itemId: row.id, itemUserId: rider.id, action: 'created', at: START_TIME },
    ]);
    const stored = await storedAsset(server, 'trip', row.id);
    expect(JSON.parse(stored!.points)).toEqual(track.points);
  });

  it('defaults: private; a made-up name when neither the caller nor the file gives one', async () => {
    const track = { ...sampleRide(), name: null, sport: 'running' };
    const trip = await server.store.assets.createFromTrack(rider.id, track);
    // Began 17:12 UTC: 19:12 in Zürich, where it began (activity-words.ts).
    expect(trip.row).toMatchObject({ name: 'Evening Run', visibility: 'private' });
    const route = await server.store.assets.createFromTrack(rider.id, { ...plannedLoop(), name: '  ' });
    expect(route.row.name).toBe('Untitled route');
    const named = await server.store.assets.createFromTrack(rider.id, plannedLoop(), { name: 'Sunday loop' });
    expect(named.row.name).toBe('Sunday loop');
  });

  it("joins the caller's transaction: when it fails, no row, no points and no change remain", async () => {
    const failure = new Error('the task could not be marked');
    // The upload queue's shape (issue 5): its own transaction around the store's work.
    await expect(
      server.store.transaction(async (trx) => {
        await server.store.assets.createFromTrack(rider.id, sampleRide(), {}, trx);
        await server.store.assets.createFromTrack(rider.id, plannedLoop(), {}, trx);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect((await server.store.assets.listByOwner('trip', rider.id, { offset: 0, limit: 20 })).total).toBe(0);
    expect((await server.store.assets.listByOwner('route', rider.id, { offset: 0, limit: 20 })).total).toBe(
      0,
    );
    expect(await changes()).toEqual([]);

    await server.store.transaction(async (trx) => {
      await server.store.assets.createFromTrack(rider.id, sampleRide(), {}, trx);
    });
    expect((await changes()).map((change) => change.action)).toEqual(['created']);
  });

  it('never hands out the id of a deleted asset again, even the newest one', async () => {
    const first = await server.store.assets.createFromTrack(rider.id, plannedLoop());
    const second = await server.store.assets.createFromTrack(rider.id, plannedLoop());
    expect(await server.store.assets.delete('route', second.row.id, rider.id)).toBe(true);
    const third = await server.store.assets.createFromTrack(rider.id, plannedLoop());
    expect(third.row.id).toBe(second.row.id + 1);
    expect(first.row.id).toBeLessThan(second.row.id);
  });
});

describe('Assets.update and Assets.delete', () => {
  it('update changes the given fields, re-renders the record and logs "updated" as the actor', async () => {
    const { row } = await server.store.assets.createFromTrack(rider.id, plannedLoop());
    const helper = await createPerson(server, 'Helper');
    server.clock.advance(60_000);
    const updated = await server.store.assets.update('route', row.id, helper.id, {
      name: '  ',
      description: 'Coffee stop at the lake',
      visibility: 'friends_only',
    });
    expect(updated).toMatchObject({
      name: 'Planned loop',
      description: 'Coffee stop at the lake',
      visibility: 'friends_only',
      updated_at: START_TIME + 60_000,
      created_at: START_TIME,
    });
    expect(JSON.parse(updated!.record_json!)).toEqual({ id: row.id, ...routeRecordFields(updated!) });
    expect(await changes(START_TIME + 1)).toEqual([
      { itemType: 'route', itemId: row.id, itemUserId: rider.id, action: 'updated', at: START_TIME + 60_000 },
    ]);
    expect(await server.store.assets.update('route', 999, rider.id, { name: 'x' })).toBeUndefined();
  });

  it('delete removes the row and its points and logs "deleted"; a second delete finds nothing', async () => {
    const { row } = await server.store.assets.createFromTrack(rider.id, sampleRide());
    server.clock.advance(1000);
    expect(await server.store.assets.delete('trip', row.id, rider.id)).toBe(true);
    expect(await server.store.assets.find('trip', row.id)).toBeUndefined();
    expect(await storedAsset(server, 'trip', row.id)).toBeUndefined();
    expect(await server.store.assets.findRecordWithPoints('trip', row.id)).toBeUndefined();
    expect(await changes()).toEqual([
      { itemType: 'trip', itemId: row.id, itemUserId: rider.id, action: 'deleted', at: START_TIME + 1000 },
    ]);
    expect(await server.store.assets.delete('trip', row.id, rider.id)).toBe(false);
  });
});

describe('Assets lists', () => {
  it('orders by updated_at descending, then id descending', async () => {
    const a = await server.store.assets.createFromTrack(rider.id, plannedLoop());
    const b = await server.store.assets.createFromTrack(rider.id, plannedLoop());
    server.clock.advance(1000);
    const c = await server.store.assets.createFromTrack(rider.id, plannedLoop());
    server.clock.advance(1000);
    await server.store.assets.update('route', a.row.id, rider.id, { name: 'touched' });
    const { rows, total } = await server.store.assets.listByOwner('route', rider.id, {
      offset: 0,
      limit: 10,
    });
    expect(total).toBe(3);
    expect(rows.map((row) => row.id)).toEqual([a.row.id, c.row.id, b.row.id]);
    const url = { prefix: 'https://x.test/api/v1/routes/', suffix: '.json' };
    const page = await server.store.assets.listRecordsJson('route', rider.id, { offset: 1, limit: 1 }, url);
    expect(page.total).toBe(3);
    expect(JSON.parse(`[${page.items}]`)).toEqual([
      { id: c.row.id, url: `https://x.test/api/v1/routes/${c.row.id}.json`, ...routeRecordFields(c.row) },
    ]);
  });
});

// SQLite's file, read beside the server, and rows as older SQLite versions stored them.
describe.skipIf(onPostgres)('a SQLite database file', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'rideport-assets-'));
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('a deleted asset leaves no points behind (foreign-key cascade)', async () => {
    const databasePath = join(directory, 'rideport.sqlite');
    const file = await testServer({ databasePath });
    const owner = await createPerson(file, 'Owner');
    const trip = await file.store.assets.createFromTrack(owner.id, sampleRide());
    const route = await file.store.assets.createFromTrack(owner.id, plannedLoop());
    await file.store.assets.delete('trip', trip.row.id, owner.id);
    await file.store.assets.delete('route', route.row.id, owner.id);
    await file.close();
    const sqlite = new SqliteDatabase(databasePath, { readonly: true });
    const count = (table: string): unknown => sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
    expect([
      count('trip_track_points'),
      count('route_track_points'),
      count('trips'),
      count('routes'),
    ]).toEqual([0, 0, 0, 0]);
    sqlite.close();
  });

  it('stores points packed, renders their JSON at the first read and keeps it in place of them', async () => {
    const databasePath = join(directory, 'rideport.sqlite');
    const file = await testServer({ databasePath });
    const owner = await createPerson(file, 'Owner');
    const track = sampleRide();
    const { row } = await file.store.assets.createFromTrack(owner.id, track);
    const stored = (): { points: string | null; packed: Buffer | null } => {
      const sqlite = new SqliteDatabase(databasePath, { readonly: true });
      try {
        return sqlite
          .prepare('SELECT points, packed FROM trip_track_points WHERE asset_id = ?')
          .get(row.id) as {
          points: string | null;
          packed: Buffer | null;
        };
      } finally {
        sqlite.close();
      }
    };
    try {
      expect(stored().points).toBeNull();
      expect(stored().packed).toBeInstanceOf(Buffer);
      const first = await file.store.assets.findRecordWithPoints('trip', row.id);
      expect(JSON.parse(jsonTextString(first!.points))).toEqual(track.points);
      expect(stored()).toEqual({ points: jsonTextString(first!.points), packed: null });
      const again = await file.store.assets.findRecordWithPoints('trip', row.id);
      expect(jsonTextString(again!.points)).toBe(jsonTextString(first!.points));
    } finally {
      await file.close();
    }
  });

  it('keeps the JSON of points written before migration 004', async () => {
    const databasePath = join(directory, 'rideport.sqlite');
    const first = await testServer({ databasePath });
    const owner = await createPerson(first, 'Owner');
    const track = sampleRide();
    const { row } = await first.store.assets.createFromTrack(owner.id, track);
    const json = (await storedAsset(first, 'trip', row.id))!.points;
    await first.close();
    // The points table as migration 001 made it, holding that text, and 004 not yet applied: the
    // migrations after it are undone too (Kysely runs migrations only in order).
    const sqlite = new SqliteDatabase(databasePath);
    sqlite.exec(`
      DROP TABLE trip_track_points;
      CREATE TABLE trip_track_points (
        asset_id INTEGER PRIMARY KEY REFERENCES trips(id) ON DELETE CASCADE,
        points TEXT NOT NULL
      ) STRICT;
      DROP INDEX trips_user_departed;
      ALTER TABLE trips DROP COLUMN laps;
      ALTER TABLE routes DROP COLUMN laps;
      DROP TABLE IF EXISTS sign_in_links;
      ${UNDO_MIGRATIONS_7_AND_8}
      DELETE FROM kysely_migration WHERE name >= '004';`);
    sqlite.prepare('INSERT INTO trip_track_points (asset_id, points) VALUES (?, ?)').run(row.id, json);
    sqlite.close();

    const second = await testServer({ databasePath });
    try {
      const found = await second.store.assets.findRecordWithPoints('trip', row.id);
      expect(jsonTextString(found!.points)).toBe(json);
      expect(JSON.parse(json)).toEqual(track.points);
      // Migration 008 gave the trip its time range from that JSON (issue 16).
      const timed = track.points.filter((point) => point.t !== undefined);
      expect(await second.store.assets.find('trip', row.id)).toMatchObject({
        started_at: timed[0]!.t! * 1000,
        ended_at: timed.at(-1)!.t! * 1000,
      });
    } finally {
      await second.close();
    }
  });

  it('keeps the warnings of a damaged file, and reads rides stored before migration 7 as sound', async () => {
    const databasePath = join(directory, 'rideport.sqlite');
    const first = await testServer({ databasePath });
    const owner = await createPerson(first, 'Owner');
    const cut = onlyTrack(readFixture('fit', 'truncated.fit'), 'truncated.fit');
    const damaged = await first.store.assets.createFromTrack(owner.id, cut);
    const sound = await first.store.assets.createFromTrack(owner.id, sampleRide());
    // Stored as the library gave them; the record says them in words, with the code.
    expect(JSON.parse(damaged.row.warnings!)).toEqual(cut.warnings);
    expect(damaged.row.last_point_at).toBe(cut.points.at(-1)!.t! * 1000);
    expect(JSON.parse(sound.row.warnings!)).toEqual([]);
    const recordOf = async (server: TestServer, id: number): Promise<Record<string, unknown>> =>
      JSON.parse((await server.store.assets.findRecordWithPoints('trip', id))!.json) as Record<
        string,
        unknown
      >;
    expect((await recordOf(first, damaged.row.id))['warnings']).toEqual([
      { code: 'RIDEFILE_TRUNCATED', message: 'This file ends early: the ride was read up to 10:00.' },
    ]);
    expect((await recordOf(first, sound.row.id))['warnings']).toEqual([]);
    await first.close();

    // The database as it was before migration 7: no warnings columns, records in format 1 (and
    // nothing of migration 8 after it, which runs again).
    const sqlite = new SqliteDatabase(databasePath);
    sqlite.exec(`
      ${UNDO_MIGRATIONS_7_AND_8}
      UPDATE trips SET record_format = 1, record_json = json_remove(record_json, '$.warnings');
      DELETE FROM kysely_migration WHERE name >= '007';`);
    sqlite.close();

    const second = await testServer({ databasePath });
    try {
      for (const id of [damaged.row.id, sound.row.id]) {
        expect((await second.store.assets.find('trip', id))!.warnings).toBeNull();
        expect((await recordOf(second, id))['warnings']).toEqual([]);
      }
      const url = { prefix: 'https://x.test/api/v1/trips/', suffix: '.json' };
      const page = await second.store.assets.listRecordsJson('trip', owner.id, { offset: 0, limit: 20 }, url);
      for (const record of JSON.parse(`[${page.items}]`) as Record<string, unknown>[]) {
        expect(record['warnings']).toEqual([]);
      }
    } finally {
      await second.close();
    }
  });

  it('with records rendered in an older format renders them again from their columns', async () => {
    const databasePath = join(directory, 'rideport.sqlite');
    const first = await testServer({ databasePath });
    const owner = await createPerson(first, 'Owner');
    const { row } = await first.store.assets.createFromTrack(owner.id, plannedLoop());
    await first.close();
    // As a database written before migration 002's record_json, or by an older RECORD_FORMAT, has it.
    const sqlite = new SqliteDatabase(databasePath);
    sqlite.prepare('UPDATE routes SET record_json = NULL, record_format = NULL').run();
    sqlite.close();

    const second = await testServer({ databasePath });
    try {
      const url = { prefix: 'https://x.test/api/v1/routes/', suffix: '.json' };
      const page = await second.store.assets.listRecordsJson(
        'route',
        owner.id,
        { offset: 0, limit: 20 },
        url,
      );
      const expected = {
        id: row.id,
        url: `https://x.test/api/v1/routes/${row.id}.json`,
        ...routeRecordFields(row),
      };
      expect(JSON.parse(`[${page.items}]`)).toEqual([expected]);
      const one = await second.store.assets.findRecordWithPoints('route', row.id);
      expect(JSON.parse(one!.json)).toEqual({ id: row.id, ...routeRecordFields(row) });
    } finally {
      await second.close();
    }
  });
});

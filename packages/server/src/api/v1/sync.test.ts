import type { Track } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../../test/support/corpus.js';
import { onlyTrack, tracksOf } from '../../test-support/assets.js';
import {
  BASE_URL,
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from '../../test-support/server.js';
import { CLOCK_SKEW_MS } from '../../db/postgres.js';
import { isoTime } from '../../iso-time.js';
import { databaseOptions } from '../../test-support/database-options.js';
import { onPostgres, reopenableDatabase } from '../../test-support/test-database.js';
import { parseIsoTime } from './sync.js';

/**
 * How far before the server's clock an answer's window ends when nothing is being written: on
 * PostgreSQL, the servers' possible clock skew (db/postgres.ts, settledBefore); SQLite has one clock.
 */
const SETTLED_MS = onPostgres ? CLOCK_SKEW_MS : 0;
const serviceTime = (): string => isoTime(server.clock.now - SETTLED_MS);

let server: TestServer;
let rider: Person;
let auth: { authorization: string };

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
  auth = { authorization: (await credentialsFor(server, rider)).basic };
});
afterEach(async () => {
  await server.close();
});

const ride = (): Track => onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
const route = (): Track =>
  tracksOf(readFixture('gpx', 'tracks-and-routes.gpx'), 'x.gpx').find((t) => t.name === 'Planned loop')!;

interface SyncAnswer {
  items: Array<{
    item_type: string;
    item_id: number;
    item_user_id: number;
    item_url: string;
    action: string;
    datetime: string;
    collection: null;
  }>;
  meta: { service_datetime: string; next_sync_url: string };
}

const sync = async (query: string, headers = auth) => {
  const response = await server.app.inject({ url: `/api/v1/sync.json?${query}`, headers });
  return { status: response.statusCode, json: () => response.json<SyncAnswer>() };
};

const item = (type: 'route' | 'trip', id: number, action: string, datetime: string) => ({
  item_type: type,
  item_id: id,
  item_user_id: rider.id,
  item_url: `${BASE_URL}/api/v1/${type}s/${id}.json`,
  action,
  datetime,
  collection: null,
});

describe('GET /api/v1/sync.json', () => {
  it('reports what changed since a time: created, updated and deleted, one item per asset, oldest first', async () => {
    // 12:00:00 a trip and a route; 12:01:00 another trip; 12:02:00 the first trip renamed;
    // 12:03:00 the route deleted; 12:04:00 a route created and deleted at once.
    const trip = await server.store.assets.createFromTrack(rider.id, ride());
    const oldRoute = await server.store.assets.createFromTrack(rider.id, route());
    server.clock.advance(60_000);
    const newTrip = await server.store.assets.createFromTrack(rider.id, ride());
    server.clock.advance(60_000);
    await server.store.assets.update('trip', trip.row.id, rider.id, { name: 'Renamed' });
    server.clock.advance(60_000);
    await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/routes/${oldRoute.row.id}.json`,
      headers: auth,
    });
    server.clock.advance(60_000);
    const shortLived = await server.store.assets.createFromTrack(rider.id, route());
    await server.store.assets.delete('route', shortLived.row.id, rider.id);
    server.clock.advance(60_000);

    // Since 12:00:30: the first trip was created before, so its rename is an update.
    const answer = await sync('since=2026-03-01T12:00:30Z&assets=routes,trips');
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({
      items: [
        item('trip', newTrip.row.id, 'created', '2026-03-01T12:01:00Z'),
        item('trip', trip.row.id, 'updated', '2026-03-01T12:02:00Z'),
        item('route', oldRoute.row.id, 'deleted', '2026-03-01T12:03:00Z'),
        item('route', shortLived.row.id, 'deleted', '2026-03-01T12:04:00Z'),
      ],
      meta: {
        service_datetime: serviceTime(),
        next_sync_url: `${BASE_URL}/api/v1/sync.json?since=${encodeURIComponent(serviceTime())}&assets=routes%2Ctrips`,
      },
    });

    // The whole library: the first trip is new to such a client, so "created" (at its last change).
    const all = await sync('since=1970-01-01');
    expect(all.json().items).toEqual([
      item('trip', newTrip.row.id, 'created', '2026-03-01T12:01:00Z'),
      item('trip', trip.row.id, 'created', '2026-03-01T12:02:00Z'),
      item('route', oldRoute.row.id, 'deleted', '2026-03-01T12:03:00Z'),
      item('route', shortLived.row.id, 'deleted', '2026-03-01T12:04:00Z'),
    ]);
  });

  it('follows next_sync_url: the next answer has only what changed after the last one', async () => {
    await server.store.assets.createFromTrack(rider.id, ride());
    server.clock.advance(2500);
    const first = await sync('since=1970-01-01&assets=trips&apikey=kept');
    const { next_sync_url: next, service_datetime: at } = first.json().meta;
    expect(at).toBe(serviceTime());
    expect(next).toBe(
      `${BASE_URL}/api/v1/sync.json?since=${encodeURIComponent(serviceTime())}&assets=trips&apikey=kept`,
    );
    // Nothing since: the window starts at the last answer's time (whole seconds, inclusive).
    const url = new URL(next);
    expect((await sync(url.search.slice(1))).json().items).toEqual([]);

    server.clock.advance(10_000);
    const later = await server.store.assets.createFromTrack(rider.id, ride());
    expect((await sync(url.search.slice(1))).json().items).toEqual([
      item('trip', later.row.id, 'created', '2026-03-01T12:00:12Z'),
    ]);
  });

  it('counts a change made in the same second as the previous answer again rather than losing it', async () => {
    server.clock.advance(400);
    const first = await sync('since=1970-01-01');
    expect(first.json().meta.service_datetime).toBe(serviceTime());
    server.clock.advance(300);
    const sameSecond = await server.store.assets.createFromTrack(rider.id, ride());
    const next = new URL(first.json().meta.next_sync_url);
    expect((await sync(next.search.slice(1))).json().items.map((entry) => entry.item_id)).toEqual([
      sameSecond.row.id,
    ]);
  });

  it("filters by asset kind; without `assets`, the API client's webhook asset kinds", async () => {
    const trip = await server.store.assets.createFromTrack(rider.id, ride());
    const planned = await server.store.assets.createFromTrack(rider.id, route());
    const ids = async (query: string, headers = auth) =>
      (await sync(query, headers)).json().items.map((entry) => `${entry.item_type} ${entry.item_id}`);
    expect(await ids('since=1970-01-01&assets=routes')).toEqual([`route ${planned.row.id}`]);
    expect(await ids('since=1970-01-01&assets=trip')).toEqual([`trip ${trip.row.id}`]);
    expect(await ids('since=1970-01-01')).toEqual([`trip ${trip.row.id}`, `route ${planned.row.id}`]);

    const tripsOnly = await server.store.apiClients.create(rider.id, {
      name: 'Trip hook',
      webhookAssets: ['trip'],
    });
    const { token } = await server.store.authTokens.issue(rider.id, tripsOnly.id);
    const headers = { 'x-service-api-key': tripsOnly.apiKey, 'x-service-auth-token': token };
    expect(await ids('since=1970-01-01', headers as unknown as typeof auth)).toEqual([`trip ${trip.row.id}`]);
  });

  it("shows the caller's library only", async () => {
    const other = await createPerson(server, 'Bob Other');
    await server.store.assets.createFromTrack(other.id, ride(), { visibility: 'public' });
    expect((await sync('since=1970-01-01')).json().items).toEqual([]);
  });

  it('accepts ISO 8601 dates and times with offsets, and a "+" that arrived as a space', async () => {
    const trip = await server.store.assets.createFromTrack(rider.id, ride());
    for (const since of [
      '2026-03-01T12:00:00Z',
      '2026-03-01T13:00:00%2B01:00',
      '2026-03-01T13:00:00+01:00',
      '2026-03-01T07:00-05:00',
      '2026-03-01T12:00:00.000Z',
      '2026-03-01T12:00:00',
      '2026-03-01',
    ]) {
      const answer = await sync(`since=${since}`);
      expect(answer.status, since).toBe(200);
      expect(
        answer.json().items.map((entry) => entry.item_id),
        since,
      ).toEqual([trip.row.id]);
    }
    expect((await sync('since=2026-03-01T12:00:01Z')).json().items).toEqual([]);
  });

  it.each([
    ['', ['since is required']],
    ['since=yesterday', ['since must be an ISO 8601 date or time, e.g. 2026-03-01T12:00:00Z']],
    ['since=2026-02-30', ['since must be an ISO 8601 date or time, e.g. 2026-03-01T12:00:00Z']],
    ['since=1970-01-01&assets=rides', ['assets must be a comma-separated list of routes, trips']],
    [
      'since=never&assets=',
      [
        'since must be an ISO 8601 date or time, e.g. 2026-03-01T12:00:00Z',
        'assets must be a comma-separated list of routes, trips',
      ],
    ],
  ])('answers ?%s with 400 naming every bad parameter', async (query, errors) => {
    const answer = await sync(query);
    expect(answer.status).toBe(400);
    // Each problem's code beside it (issue 35): a missing parameter, or one that breaks its rule.
    const codes = errors.map((error) =>
      error.endsWith('is required') ? 'SERVER_MISSING_FIELD' : 'SERVER_INVALID_FIELD',
    );
    expect(answer.json()).toEqual({ errors, error_codes: codes });
  });

  it('answers 401 without credentials', async () => {
    expect((await sync('since=1970-01-01', {} as typeof auth)).status).toBe(401);
  });
});

describe('parseIsoTime', () => {
  it.each([
    ['1970-01-01', 0],
    ['2026-03-01T12:00:00Z', Date.parse('2026-03-01T12:00:00Z')],
    ['2026-03-01T12:00:00.250Z', Date.parse('2026-03-01T12:00:00.250Z')],
    ['2026-03-01T12:00:00.123456789Z', Date.parse('2026-03-01T12:00:00.123Z')],
    ['2026-03-01T14:30:00+02:30', Date.parse('2026-03-01T12:00:00Z')],
    ['2026-03-01T14:30:00+0230', Date.parse('2026-03-01T12:00:00Z')],
    ['2026-03-01T10:00:00-02', Date.parse('2026-03-01T12:00:00Z')],
    ['2026-03-01T14:30:00 02:30', Date.parse('2026-03-01T12:00:00Z')],
    ['2026-03-01 12:00', Date.parse('2026-03-01T12:00:00Z')],
    ['2024-02-29', Date.parse('2024-02-29T00:00:00Z')],
  ])('%s', (text, expected) => {
    expect(parseIsoTime(text)).toBe(expected);
  });

  it.each(['', 'now', '2026-3-1', '2025-02-29', '2026-03-01T24:00:00Z', '2026-03-01T12:60Z', '1772366400'])(
    'rejects %j',
    (text) => {
      expect(parseIsoTime(text)).toBeNull();
    },
  );
});

describe('sync.json with several servers on one database (issue 18)', () => {
  // On SQLite one server runs on a database, and a read waits for the write in progress.
  it.runIf(onPostgres)('never misses a change that commits after a later answer was given', async () => {
    const database = await reopenableDatabase();
    // The real clock: the watermark compares the servers' stamps with the database's transactions.
    const writer = await testServer({ ...databaseOptions(database.location), clock: Date.now });
    const reader = await testServer({ ...databaseOptions(database.location), clock: Date.now });
    try {
      const person = await createPerson(writer, 'Late Rider');
      const headers = { authorization: (await credentialsFor(writer, person)).basic };
      const get = async (query: string) =>
        (await reader.app.inject({ url: `/api/v1/sync.json?${query}`, headers })).json<SyncAnswer>();
      let commit = (): void => undefined;
      let announce: (id: number) => void = () => undefined;
      const written = new Promise<number>((resolve) => (announce = resolve));
      // A ride stored on one server, in a transaction that commits late (a slow upload's transaction).
      const storing = writer.store.transaction(async (trx) => {
        const created = await writer.store.assets.createFromTrack(person.id, ride(), {}, trx);
        announce(created.row.id);
        await new Promise<void>((resolve) => (commit = resolve));
      });
      const id = await written;
      // Long enough that an answer ending at the reader's clock would start its next window after the stamp.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const first = await get('since=1970-01-01');
      expect(first.items).toEqual([]);
      commit();
      await storing;
      const next = new URL(first.meta.next_sync_url);
      expect((await get(next.search.slice(1))).items.map((entry) => entry.item_id)).toEqual([id]);
    } finally {
      await writer.close();
      await reader.close();
      database.remove();
    }
  });
});

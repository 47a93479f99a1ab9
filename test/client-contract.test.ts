/**
 * The client against the real server (issue: "A contract test suite runs the client against the real
 * server for every endpoint it wraps"). Every test runs twice: through `app.inject()` (injectTransport)
 * and through undici over a real socket to the same server listening on 127.0.0.1 port 0. The server's
 * configured public base URL (http://rideport.test) is not where the socket is, so the undici run also
 * shows the client following `next_page_url` on its own origin.
 */
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClientError,
  ClientErrorCode,
  injectTransport,
  RideportClient,
  undiciTransport,
  type ClientOptions,
  type Credentials,
  type TrackPoint,
  type Transport,
} from '@rideport/client';
import { storeFile } from '../packages/server/src/test-support/assets.js';
import {
  createPerson,
  credentialsFor,
  START_TIME,
  testServer,
  type Person,
  type TestServer,
} from '../packages/server/src/test-support/server.js';
import { CORPUS_SKIP_REASON, corpusAvailable, readCorpus, readFixture } from './support/corpus.js';

type Mode = 'inject' | 'undici';

interface World {
  server: TestServer;
  mode: Mode;
  baseUrl: string;
  transport: Transport;
  apiKey: string;
  alice: Person & { authToken: string };
  bob: Person & { authToken: string };
  aliceAccessToken: string;
}

async function makeWorld(mode: Mode, server: TestServer): Promise<World> {
  const alice = await createPerson(server, 'Alice Contract');
  const bob = await createPerson(server, 'Bob Contract');
  const aliceCredentials = await credentialsFor(server, alice);
  const client = aliceCredentials.client;
  const bobToken = (await server.store.authTokens.issue(bob.id, client.id)).token;
  const { token: aliceAccessToken } = await server.store.oauth.issueToken(client.id, alice.id, null, 'user');
  let baseUrl = 'http://rideport.test';
  let transport: Transport;
  if (mode === 'undici') {
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = server.app.server.address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    transport = undiciTransport();
  } else {
    transport = injectTransport(server.app.inject.bind(server.app));
  }
  return {
    server,
    mode,
    baseUrl,
    transport,
    apiKey: aliceCredentials.apiKey,
    alice: { ...alice, authToken: aliceCredentials.authToken },
    bob: { ...bob, authToken: bobToken },
    aliceAccessToken,
  };
}

function clientOf(
  world: World,
  credentials: Credentials,
  options: Partial<ClientOptions> = {},
): RideportClient {
  return new RideportClient({ baseUrl: world.baseUrl, credentials, transport: world.transport, ...options });
}

/** A club Alice runs and Bob is in, and a private route of Bob's, not shared yet. */
async function clubWithBobsRoute(world: World, name: string, description: string) {
  const { store } = world.server;
  const club = await store.users.createOrganization(name, world.alice.id, description);
  await store.users.setMembership(club.id, world.bob.id, 'member');
  const [route] = await storeFile(
    world.server,
    world.bob.id,
    readFixture('fit', 'course.fit'),
    'course.fit',
    {
      visibility: 'private',
    },
  );
  return { club, routeId: route!.row.id };
}

/** A client for a new person, in no club, through the world's API client. */
async function outsiderClient(world: World, name: string): Promise<RideportClient> {
  const { store } = world.server;
  const outsider = await createPerson(world.server, name);
  const client = await store.apiClients.findByApiKey(world.apiKey);
  const authToken = (await store.authTokens.issue(outsider.id, client!.id)).token;
  return clientOf(world, { kind: 'auth-token', apiKey: world.apiKey, authToken });
}

const asAlice = (world: World): Credentials => ({
  kind: 'auth-token',
  apiKey: world.apiKey,
  authToken: world.alice.authToken,
});
const asBob = (world: World): Credentials => ({
  kind: 'auth-token',
  apiKey: world.apiKey,
  authToken: world.bob.authToken,
});

/** A short ride of raw points, `seed` making each one's bytes and times its own. */
function points(seed: number): TrackPoint[] {
  const startSeconds = Math.floor(START_TIME / 1000) - 2 * 86_400 + seed * 60;
  return Array.from({ length: 5 }, (_, i) => ({
    x: 7.44 + i * 0.001 + seed * 0.0001,
    y: 46.95 + i * 0.001,
    e: 540 + i,
    t: startSeconds + i * 10,
    h: 120 + i,
  }));
}

async function rejection(promise: Promise<unknown>): Promise<ClientError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ClientError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

describe.each<Mode>(['inject', 'undici'])('client ↔ server contract through %s', (mode) => {
  let world: World;

  beforeAll(async () => {
    world = await makeWorld(mode, await testServer());
  });
  afterAll(async () => {
    await world.transport.close();
    await world.server.close();
  });

  describe('v1 credentials (docs/integrators/api.md, Authentication)', () => {
    it('creates an auth token with the API key alone, and every scheme then reads the same user', async () => {
      const keyOnly = clientOf(world, { kind: 'api-key', apiKey: world.apiKey });
      const record = await keyOnly.v1.createAuthToken(world.alice.email, world.alice.password);
      expect(record).toMatchObject({
        api_key: world.apiKey,
        user: { id: world.alice.id, email: world.alice.email },
      });
      expect(keyOnly.credentials).toEqual({ kind: 'api-key', apiKey: world.apiKey });

      const schemes: Credentials[] = [
        { kind: 'auth-token', apiKey: world.apiKey, authToken: record.auth_token },
        { kind: 'auth-token', apiKey: world.apiKey, authToken: record.auth_token, scheme: 'headers' },
        { kind: 'oauth', apiKey: world.apiKey, accessToken: world.aliceAccessToken },
      ];
      for (const credentials of schemes) {
        const user = await clientOf(world, credentials).v1.currentUser();
        expect(user).toMatchObject({ id: world.alice.id, name: 'Alice Contract', email: world.alice.email });
      }
    });

    it('maps 401s: a wrong password, an unknown token, a revoked access token, a key without a user', async () => {
      const keyOnly = clientOf(world, { kind: 'api-key', apiKey: world.apiKey });
      const wrong = await rejection(keyOnly.v1.createAuthToken(world.alice.email, 'not the password'));
      expect(wrong).toMatchObject({ code: ClientErrorCode.UNAUTHORIZED, status: 401 });
      expect(wrong.serverMessages).toEqual(['invalid email or password']);
      expect(wrong.serverCodes).toEqual(['SERVER_NOT_AUTHORIZED']);

      const unknown = await rejection(
        clientOf(world, { kind: 'auth-token', apiKey: world.apiKey, authToken: 'nope' }).v1.currentUser(),
      );
      expect(unknown).toMatchObject({ code: ClientErrorCode.UNAUTHORIZED, status: 401 });
      expect(unknown.serverMessages[0]).toContain('log in again');

      const client = await world.server.store.apiClients.findByApiKey(world.apiKey);
      const { token } = await world.server.store.oauth.issueToken(client!.id, world.alice.id, null, 'user');
      const oauth = clientOf(world, { kind: 'oauth', apiKey: world.apiKey, accessToken: token });
      expect((await oauth.v1.currentUser()).id).toBe(world.alice.id);
      await world.server.store.oauth.revokeToken(token, client!.id);
      expect(await rejection(oauth.v1.currentUser())).toMatchObject({ code: ClientErrorCode.UNAUTHORIZED });

      expect(await rejection(keyOnly.v1.currentUser())).toMatchObject({ code: ClientErrorCode.UNAUTHORIZED });
      const badKey = clientOf(world, { kind: 'api-key', apiKey: 'no-such-key' });
      expect(
        await rejection(badKey.v1.createAuthToken(world.alice.email, world.alice.password)),
      ).toMatchObject({
        code: ClientErrorCode.UNAUTHORIZED,
        serverMessages: ['unknown API key'],
      });
    });
  });

  describe('v1 trips and routes, pagination (docs/contributors/decisions.md §2)', () => {
    let tripIds: number[];

    beforeAll(async () => {
      // More than two pages of 20: made through the legacy points upload, each ride its own.
      const alice = clientOf(world, asAlice(world));
      tripIds = [];
      for (let seed = 0; seed < 45; seed += 1) {
        const trip = await alice.legacy.uploadPoints(points(seed), { name: `Points ride ${seed}` });
        tripIds.push(trip.id);
      }
    });

    it('iterates every trip across pages of 20 by next_page_url', async () => {
      const alice = clientOf(world, asAlice(world));
      const first = await alice.v1.trips.list({ pageSize: 20 });
      expect(first.items).toHaveLength(20);
      expect(first.pagination).toMatchObject({ page_size: 20, page_count: 3 });
      expect(first.pagination.record_count).toBeGreaterThanOrEqual(45);
      expect(first.pagination.next_page_url).toMatch(/\/api\/v1\/trips\.json\?page=2&page_size=20$/);
      const last = await alice.v1.trips.list({ page: 3, pageSize: 20 });
      expect(last.pagination.next_page_url).toBeNull();

      const all = await collect(alice.v1.trips.all({ pageSize: 20 }));
      const ids = all.map((trip) => trip.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expect.arrayContaining(tripIds));
      expect(ids).toHaveLength(first.pagination.record_count);
      // newest change first (docs/contributors/decisions.md §2)
      expect(ids.slice(0, 3)).toEqual([...tripIds].reverse().slice(0, 3));
      expect(all[0]).not.toHaveProperty('track_points');
    });

    it('a page size outside 20..200 is REJECTED (400) naming the parameter', async () => {
      const error = await rejection(clientOf(world, asAlice(world)).v1.trips.list({ pageSize: 5 }));
      expect(error).toMatchObject({ code: ClientErrorCode.REJECTED, status: 400 });
      expect(error.serverMessages.join(' ')).toContain('page_size');
    });

    it('gets one trip with its points, maps 403 and 404, and deletes', async () => {
      const alice = clientOf(world, asAlice(world));
      const bob = clientOf(world, asBob(world));
      const trip = await alice.v1.trips.get(tripIds[0]!);
      expect(trip).toMatchObject({
        id: tripIds[0],
        name: 'Points ride 0',
        user_id: world.alice.id,
        visibility: 'private',
      });
      expect(trip.track_points).toHaveLength(5);
      expect(typeof trip.track_points[0]!.x).toBe('number');
      expect(trip.track_points[0]).toMatchObject({
        y: 46.95,
        t: points(0)[0]!.t,
        h: 120,
      });

      const forbidden = await rejection(bob.v1.trips.get(tripIds[0]!));
      expect(forbidden).toMatchObject({ code: ClientErrorCode.FORBIDDEN, status: 403 });
      expect(forbidden.serverMessages[0]).toContain('not public');
      expect(await rejection(bob.v1.trips.delete(tripIds[0]!))).toMatchObject({
        code: ClientErrorCode.FORBIDDEN,
      });
      expect(await rejection(alice.v1.trips.get(999_999))).toMatchObject({
        code: ClientErrorCode.NOT_FOUND,
        status: 404,
        serverMessages: ['trip 999999 not found'],
        serverCodes: ['SERVER_NOT_FOUND'],
      });

      const doomed = await alice.legacy.uploadPoints(points(100), { name: 'Doomed' });
      await alice.v1.trips.delete(doomed.id);
      expect(await rejection(alice.v1.trips.get(doomed.id))).toMatchObject({
        code: ClientErrorCode.NOT_FOUND,
      });
      expect(await rejection(alice.v1.trips.delete(doomed.id))).toMatchObject({
        code: ClientErrorCode.NOT_FOUND,
      });
    });

    it('lists, gets and deletes routes', async () => {
      const [route] = await storeFile(
        world.server,
        world.alice.id,
        readFixture('fit', 'course.fit'),
        'course.fit',
      );
      const alice = clientOf(world, asAlice(world));
      const listed = await collect(alice.v1.routes.all());
      expect(listed.map((item) => item.id)).toContain(route!.row.id);
      const page = await alice.v1.routes.list({ page: 1, pageSize: 20 });
      expect(page.pagination.next_page_url).toBeNull();
      const full = await alice.v1.routes.get(route!.row.id);
      expect(full).toMatchObject({ id: route!.row.id, user_id: world.alice.id });
      expect(full.track_points.length).toBeGreaterThan(0);
      expect(await rejection(clientOf(world, asBob(world)).v1.routes.get(route!.row.id))).toMatchObject({
        code: ClientErrorCode.FORBIDDEN,
      });
      await alice.v1.routes.delete(route!.row.id);
      expect(await rejection(alice.v1.routes.get(route!.row.id))).toMatchObject({
        code: ClientErrorCode.NOT_FOUND,
      });
    });

    it('sync.json lists what changed since a time, deletions included', async () => {
      const alice = clientOf(world, asAlice(world));
      const whole = await alice.v1.sync({ since: new Date(0), assets: ['routes', 'trips'] });
      const byId = new Map(
        whole.items.filter((item) => item.item_type === 'trip').map((item) => [item.item_id, item]),
      );
      for (const id of tripIds)
        expect(byId.get(id)).toMatchObject({ action: 'created', item_user_id: world.alice.id });
      expect(whole.items.some((item) => item.action === 'deleted')).toBe(true);
      expect(whole.meta.next_sync_url).toContain('/api/v1/sync.json?');
      const routesOnly = await alice.v1.sync({ since: '1970-01-01', assets: ['routes'] });
      expect(routesOnly.items.every((item) => item.item_type === 'route')).toBe(true);
      expect(await rejection(alice.v1.sync({ since: 'yesterday' }))).toMatchObject({
        code: ClientErrorCode.REJECTED,
        status: 400,
      });
    });
  });

  describe('v1 events (docs/contributors/decisions.md §2)', () => {
    it('creates, reads, lists, updates and deletes, with 422 messages for every missing field', async () => {
      const alice = clientOf(world, asAlice(world));
      const bob = clientOf(world, asBob(world));
      const created = await alice.v1.events.create({
        name: 'Gurten hill climb',
        start_date: '2026-05-02',
        location: 'Bern',
      });
      expect(created).toMatchObject({
        name: 'Gurten hill climb',
        start_date: '2026-05-02',
        end_date: null,
        location: 'Bern',
        visibility: 'private',
        user_id: world.alice.id,
      });
      expect(await alice.v1.events.get(created.id)).toEqual(created);

      const missing = await rejection(alice.v1.events.create({ description: 'no name, no date' }));
      expect(missing).toMatchObject({ code: ClientErrorCode.REJECTED, status: 422 });
      expect(missing.serverMessages).toEqual(['name is required', 'start_date is required']);
      // Issue 35: the server's code of each message, at the same index.
      expect(missing.serverCodes).toEqual(['SERVER_MISSING_FIELD', 'SERVER_MISSING_FIELD']);
      expect(missing.serverCode).toBe('SERVER_MISSING_FIELD');

      const invalid = await rejection(
        alice.v1.events.update(created.id, { end_date: '2026-05-01', url: 'ftp://x' }),
      );
      expect(invalid).toMatchObject({ code: ClientErrorCode.REJECTED, status: 422 });
      expect(invalid.serverMessages).toEqual([
        'end_date must not be before start_date',
        'url must be an http or https URL',
      ]);

      const updated = await alice.v1.events.update(created.id, {
        end_date: '2026-05-03',
        visibility: 'public',
      });
      expect(updated).toMatchObject({
        id: created.id,
        name: 'Gurten hill climb',
        end_date: '2026-05-03',
        visibility: 'public',
      });
      expect(await bob.v1.events.get(created.id)).toMatchObject({ id: created.id });
      expect(await rejection(bob.v1.events.update(created.id, { name: 'Mine now' }))).toMatchObject({
        code: ClientErrorCode.FORBIDDEN,
      });
      const hidden = await bob.v1.events.create({ name: 'Bob only', start_date: '2026-06-01' });
      expect(await rejection(alice.v1.events.get(hidden.id))).toMatchObject({
        code: ClientErrorCode.FORBIDDEN,
      });

      for (let i = 0; i < 21; i += 1)
        await alice.v1.events.create({ name: `Event ${i}`, start_date: '2026-07-01' });
      const page = await alice.v1.events.list({ pageSize: 20 });
      expect(page.items).toHaveLength(20);
      expect(page.pagination.next_page_url).not.toBeNull();
      const all = await collect(alice.v1.events.all());
      expect(all).toHaveLength(22);

      await alice.v1.events.delete(created.id);
      expect(await rejection(alice.v1.events.get(created.id))).toMatchObject({
        code: ClientErrorCode.NOT_FOUND,
      });
      expect(await rejection(bob.v1.events.delete(hidden.id + 1000))).toMatchObject({
        code: ClientErrorCode.NOT_FOUND,
      });
    });
  });

  describe('v1 clubs (issue 20)', () => {
    it('reads a club, shares a route (201, then 200), lists it for members only, and takes it out', async () => {
      const { club, routeId } = await clubWithBobsRoute(world, `Limmat Riders ${mode}`, 'Sundays');
      const alice = clientOf(world, asAlice(world));
      const bob = clientOf(world, asBob(world));

      expect(await bob.v1.clubs.get(club.id)).toMatchObject({
        id: club.id,
        name: `Limmat Riders ${mode}`,
        description: 'Sundays',
        member_count: 2,
      });
      // Bob's own clubs, this one among them; an outsider's list has none of them.
      const mine = await collect(bob.v1.clubs.all());
      expect(mine.map((each) => each.id)).toContain(club.id);
      expect(mine.map((each) => each.name)).toEqual([...mine.map((each) => each.name)].sort());
      const first = await bob.v1.clubs.shareRoute(club.id, routeId);
      expect(first).toMatchObject({ sharedNow: true, route: { id: routeId, visibility: 'private' } });
      expect(await bob.v1.clubs.shareRoute(club.id, routeId)).toMatchObject({ sharedNow: false });

      const page = await alice.v1.clubs.routes(club.id).list({ pageSize: 20 });
      expect(page.items.map((item) => item.id)).toEqual([routeId]);
      expect(page.pagination).toMatchObject({ record_count: 1, next_page_url: null });
      expect((await collect(alice.v1.clubs.routes(club.id).all())).map((item) => item.id)).toEqual([routeId]);

      // Alice's own route is not Bob's to share; an outsider sees no private route of the club.
      const [alices] = await storeFile(
        world.server,
        world.alice.id,
        readFixture('fit', 'course.fit'),
        'course.fit',
      );
      expect(await rejection(bob.v1.clubs.shareRoute(club.id, alices!.row.id))).toMatchObject({
        code: ClientErrorCode.FORBIDDEN,
      });
      const dora = await outsiderClient(world, 'Dora Outsider');
      expect((await dora.v1.clubs.routes(club.id).list()).items).toEqual([]);
      expect((await dora.v1.clubs.list()).items).toEqual([]);

      await alice.v1.clubs.removeRoute(club.id, routeId);
      expect((await bob.v1.clubs.routes(club.id).list()).items).toEqual([]);
      expect(await rejection(bob.v1.clubs.removeRoute(club.id, routeId))).toMatchObject({
        code: ClientErrorCode.NOT_FOUND,
      });
    });
  });

  describe('legacy interface (docs/contributors/decisions.md §5)', () => {
    it('logs in with email and password and uses the new token from then on', async () => {
      const client = clientOf(world, { kind: 'api-key', apiKey: world.apiKey });
      const user = await client.legacy.login(world.bob.email, world.bob.password);
      expect(user).toMatchObject({ id: world.bob.id, email: world.bob.email });
      expect(user.auth_token).toEqual(expect.any(String));
      expect(client.credentials).toEqual({
        kind: 'auth-token',
        apiKey: world.apiKey,
        authToken: user.auth_token,
      });
      expect(await client.legacy.currentUser()).toMatchObject({
        id: world.bob.id,
        auth_token: user.auth_token,
      });
      // The token works on v1 too (docs/contributors/decisions.md §1: one token, both interfaces).
      expect((await client.v1.currentUser()).id).toBe(world.bob.id);
    });

    it('maps a failed login and an unknown token to UNAUTHORIZED with the server’s "log in again"', async () => {
      const client = clientOf(world, { kind: 'api-key', apiKey: world.apiKey });
      const failed = await rejection(client.legacy.login(world.bob.email, 'wrong'));
      expect(failed).toMatchObject({ code: ClientErrorCode.UNAUTHORIZED, status: 401 });
      expect(failed.serverMessages[0]).toContain('log in again');
      // Legacy error bodies stay `{"error"}` (issue 35): no codes, as before.
      expect(failed).toMatchObject({ serverCodes: [], serverCode: null });
      expect(client.credentials.kind).toBe('api-key');
      const stale = clientOf(world, { kind: 'auth-token', apiKey: world.apiKey, authToken: 'expired' });
      expect((await rejection(stale.legacy.currentUser())).serverMessages[0]).toContain('log in again');
    });

    it('reads users, their routes and trips as version-2 lists, with offset and limit', async () => {
      const alice = clientOf(world, asAlice(world));
      const bob = clientOf(world, asBob(world));
      expect(await alice.legacy.user(world.bob.id)).toMatchObject({ id: world.bob.id, name: 'Bob Contract' });
      expect(await alice.legacy.user(world.bob.id)).not.toHaveProperty('email');
      expect(await rejection(alice.legacy.user(999_999))).toMatchObject({ code: ClientErrorCode.NOT_FOUND });

      const publicTrip = await bob.legacy.uploadPoints(points(200), {
        name: 'Bob public',
        visibility: 'public',
      });
      const privateTrip = await bob.legacy.uploadPoints(points(201), {
        name: 'Bob private',
        visibility: 'private',
      });
      expect(publicTrip.visibility).toBe('public');
      const mine = await bob.legacy.userTrips(world.bob.id, { limit: 1 });
      expect(mine.results).toHaveLength(1);
      expect(mine.results_count).toBeGreaterThanOrEqual(2);
      const offset = await bob.legacy.userTrips(world.bob.id, { offset: 1, limit: 1 });
      expect(offset.results[0]!.id).not.toBe(mine.results[0]!.id);
      const seenByAlice = await alice.legacy.userTrips(world.bob.id);
      expect(seenByAlice.results.map((trip) => trip.id)).toContain(publicTrip.id);
      expect(seenByAlice.results.map((trip) => trip.id)).not.toContain(privateTrip.id);
      expect(await rejection(alice.legacy.userTrips(world.bob.id, { limit: 500 }))).toMatchObject({
        code: ClientErrorCode.REJECTED,
        status: 400,
      });

      const trip = await alice.legacy.trip(publicTrip.id);
      expect(trip).toMatchObject({ id: publicTrip.id, name: 'Bob public' });
      expect(trip.track_points).toHaveLength(5);
      expect(await rejection(alice.legacy.trip(privateTrip.id))).toMatchObject({
        code: ClientErrorCode.FORBIDDEN,
      });

      const [route] = await storeFile(
        world.server,
        world.bob.id,
        readFixture('fit', 'course.fit'),
        'course.fit',
        {
          visibility: 'public',
        },
      );
      expect((await alice.legacy.userRoutes(world.bob.id)).results.map((item) => item.id)).toContain(
        route!.row.id,
      );
      expect((await alice.legacy.route(route!.row.id)).track_points.length).toBeGreaterThan(0);
    });

    it('reads clubs, a user’s clubs and a club’s routes', async () => {
      const { store } = world.server;
      const { club, routeId } = await clubWithBobsRoute(world, `Aare Riders ${mode}`, 'Thursday rides');
      expect(await store.clubs.shareRoute(club.id, routeId, world.bob.id)).toBe('shared');

      const alice = clientOf(world, asAlice(world));
      expect(await alice.legacy.club(club.id)).toMatchObject({
        id: club.id,
        name: `Aare Riders ${mode}`,
        description: 'Thursday rides',
        member_count: 2,
      });
      const clubs = await alice.legacy.userClubs(world.bob.id);
      expect(clubs.results.map((item) => item.id)).toContain(club.id);
      const routes = await alice.legacy.clubRoutes(club.id, { offset: 0, limit: 10 });
      expect(routes).toMatchObject({ results_count: 1, results: [{ id: routeId }] });
      const carol = await outsiderClient(world, 'Carol Outsider');
      expect(await carol.legacy.clubRoutes(club.id)).toEqual({ results: [], results_count: 0 });
      expect(await rejection(alice.legacy.club(world.alice.id))).toMatchObject({
        code: ClientErrorCode.NOT_FOUND,
      });
    });

    it('uploads raw points, and the server’s 422 names every bad point', async () => {
      const alice = clientOf(world, asAlice(world));
      const trip = await alice.legacy.uploadPoints(points(300), {
        name: 'From points',
        description: 'five points',
        visibility: 'friends_only',
      });
      expect(trip).toMatchObject({
        name: 'From points',
        description: 'five points',
        visibility: 'friends_only',
      });
      expect(trip).not.toHaveProperty('track_points');
      const bad = await rejection(
        alice.legacy.uploadPoints([
          { x: 7.4, y: 46.9, t: Math.floor(START_TIME / 1000) * 1000 },
          { x: 200, y: 46.9, t: Math.floor(START_TIME / 1000) - 100 },
        ]),
      );
      expect(bad).toMatchObject({ code: ClientErrorCode.REJECTED, status: 422 });
      expect(bad.serverMessages[0]).toContain('milliseconds');
      expect(bad.serverMessages[0]).toContain('track_points[1]');
    });
  });

  describe('uploadRide and the queue (docs/contributors/decisions.md §5)', () => {
    it('uploads a file, polls, and answers the created trip; the same bytes again are a duplicate', async () => {
      const alice = clientOf(world, asAlice(world));
      const bytes = readFixture('gpx', 'sample-ride.gpx');
      const tasks: number[] = [];
      const created = await alice.uploadRide(
        {
          bytes,
          filename: 'sample-ride.gpx',
          name: 'Sample ride',
          description: 'from the fixture',
          visibility: 'public',
        },
        { onTask: (taskId) => tasks.push(taskId) },
      );
      expect(created.outcome).toBe('created');
      expect(tasks).toEqual([created.taskId]);
      expect(created.trips).toHaveLength(1);
      expect(created.trips[0]).toMatchObject({
        name: 'Sample ride',
        description: 'from the fixture',
        visibility: 'public',
        user_id: world.alice.id,
      });
      const again = await alice.uploadRide({ bytes, filename: 'renamed.gpx' });
      expect(again.outcome).toBe('duplicate');
      expect(again.taskId).not.toBe(created.taskId);
      expect(again.trips.map((trip) => trip.id)).toEqual(created.trips.map((trip) => trip.id));

      const [status] = await alice.legacy.taskStatus([created.taskId]);
      expect(status).toMatchObject({
        id: created.taskId,
        status: 1,
        response_code: 'success',
        associated_objects: [],
      });
      const [withObjects] = await alice.legacy.taskStatus([created.taskId], { includeObjects: true });
      expect(withObjects!.associated_objects).toHaveLength(1);
      expect(withObjects!.associated_objects[0]).toMatchObject({
        type: 'trip',
        trip: { id: created.trips[0]!.id },
      });
      // Another user's task is left out of the answer.
      expect(await clientOf(world, asBob(world)).legacy.taskStatus([created.taskId])).toEqual([]);
    });

    it('uploads FIT and TCX files, and a file with trips and routes', async () => {
      const alice = clientOf(world, asAlice(world));
      const fit = await alice.uploadRide({
        bytes: readFixture('fit', 'wheel-ble-speed.fit'),
        filename: 'ride.fit',
      });
      expect(fit).toMatchObject({ outcome: 'created', routes: [] });
      expect(fit.trips).toHaveLength(1);
      const tcx = await alice.uploadRide({
        bytes: readFixture('tcx', 'activity.tcx'),
        filename: 'activity.tcx',
      });
      expect(tcx.trips.length).toBeGreaterThanOrEqual(1);
      const mixed = await alice.uploadRide({
        bytes: readFixture('gpx', 'tracks-and-routes.gpx'),
        filename: 'tracks-and-routes.gpx',
      });
      expect(mixed.trips.length).toBeGreaterThanOrEqual(1);
      expect(mixed.routes.length).toBeGreaterThanOrEqual(1);
      const course = await alice.uploadRide({
        bytes: readFixture('fit', 'course.fit'),
        filename: 'course.fit',
      });
      expect(course.trips).toEqual([]);
      expect(course.routes).toHaveLength(1);
    });

    it('uploadFile answers a task id at once, and waitForTask follows it to the end', async () => {
      const alice = clientOf(world, asAlice(world));
      // The FIT fixtures share one device and start (fixtures/fit/generate.ts), so the server takes them
      // for one recording (issue 16) and alice has it already; the watch's file is another device's.
      const { taskId } = await alice.legacy.uploadFile({
        bytes: readFixture('fit', 'two-devices-watch.fit'),
        filename: 'watch.fit',
        visibility: 'friends_only',
      });
      const [task] = await alice.legacy.taskStatus([taskId]);
      expect(task).toMatchObject({ id: taskId, user_id: world.alice.id });
      const ride = await alice.waitForTask(taskId);
      expect(ride).toMatchObject({ taskId, outcome: 'created' });
      expect(ride.trips[0]).toMatchObject({ visibility: 'friends_only' });
      expect(await rejection(alice.waitForTask(999_999))).toMatchObject({
        code: ClientErrorCode.NOT_FOUND,
        taskId: 999_999,
      });
    });

    it('uploadFile of a ZIP of rides answers a task per ride and the entries it skipped (issue 20)', async () => {
      const alice = clientOf(world, asAlice(world));
      const archive = zipSync({
        export: {
          'a.tcx': readFixture('tcx', 'multisport-and-courses.tcx'),
          'b.gpx.gz': gzipSync(readFixture('gpx', 'bom-utf8.gpx')),
          'notes.txt': new TextEncoder().encode('not a ride'),
        },
      });
      const uploaded = await alice.legacy.uploadFile({ bytes: archive, filename: 'export.zip' });
      expect(uploaded.taskIds).toHaveLength(2);
      expect(uploaded.taskId).toBe(uploaded.taskIds[0]);
      expect(uploaded.skipped).toEqual([
        { name: 'export/notes.txt', reason: 'not a ride file (FIT, TCX, GPX, KML or KMZ, or a .gz of one)' },
      ]);
      expect(uploaded.skippedCount).toBe(1);
      for (const taskId of uploaded.taskIds) {
        expect((await alice.waitForTask(taskId)).outcome).toBe('created');
      }
      const single = await alice.legacy.uploadFile({
        bytes: readFixture('gpx', 'latin1.gpx'),
        filename: 'l.gpx',
      });
      expect(single).toEqual({
        taskId: single.taskId,
        taskIds: [single.taskId],
        skipped: [],
        skippedCount: 0,
      });
    });

    it('a corrupt file ends as REJECTED with the server’s message and the task id', async () => {
      const alice = clientOf(world, asAlice(world));
      const error = await rejection(
        alice.uploadRide({
          bytes: new TextEncoder().encode('this is not a ride file at all'),
          filename: 'x.fit',
        }),
      );
      expect(error.code).toBe(ClientErrorCode.REJECTED);
      expect(error.taskId).toEqual(expect.any(Number));
      expect(error.serverMessages).toHaveLength(1);
      const [task] = await alice.legacy.taskStatus([error.taskId!]);
      expect(task).toMatchObject({ status: -1, response_code: 'failed', message: error.serverMessages[0] });
    });

    it('recovers an upload whose answer was lost by uploading the same bytes again', async () => {
      let dropped = 0;
      const lossy: Transport = {
        async request(request) {
          const response = await world.transport.request(request);
          if (request.method === 'POST' && dropped === 0) {
            dropped += 1; // the server stored the file; its answer never arrives
            throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          }
          return response;
        },
        close: () => Promise.resolve(),
      };
      const alice = clientOf(world, asAlice(world), { transport: lossy });
      const bytes = readFixture('fit', 'hr-messages.fit');
      const ride = await alice.uploadRide({ bytes, filename: 'hr.fit' });
      expect(dropped).toBe(1);
      expect(ride.trips).toHaveLength(1);
      // Either upload may finish first; one task made the trip, the other found it.
      const trips = await collect(alice.v1.trips.all({ pageSize: 200 }));
      expect(trips.filter((trip) => trip.id === ride.trips[0]!.id)).toHaveLength(1);
      const again = await alice.uploadRide({ bytes, filename: 'hr.fit' });
      expect(again).toMatchObject({ outcome: 'duplicate' });
      expect(again.trips.map((trip) => trip.id)).toEqual(ride.trips.map((trip) => trip.id));
    });

    it('an upload without valid credentials is UNAUTHORIZED at once', async () => {
      const stale = clientOf(world, { kind: 'auth-token', apiKey: world.apiKey, authToken: 'expired' });
      const error = await rejection(
        stale.uploadRide({ bytes: readFixture('gpx', 'positions.gpx'), filename: 'p.gpx' }),
      );
      expect(error).toMatchObject({ code: ClientErrorCode.UNAUTHORIZED, status: 401, taskId: null });
    });

    it.skipIf(!corpusAvailable)(
      corpusAvailable
        ? 'uploads real-world corpus files'
        : `uploads real-world corpus files (skipped: ${CORPUS_SKIP_REASON})`,
      async () => {
        const alice = clientOf(world, asAlice(world));
        for (const name of ['fit-parser__road-with-power.fit', 'togeojson__run.gpx']) {
          const ride = await alice.uploadRide({ bytes: readCorpus(name), filename: name });
          expect(ride.outcome, name).toBe('created');
          expect(ride.trips.length, name).toBeGreaterThanOrEqual(1);
          const full = await alice.v1.trips.get(ride.trips[0]!.id);
          expect(full.track_points.length, name).toBeGreaterThan(10);
        }
      },
    );
  });
});

describe.each<Mode>(['inject', 'undici'])(
  'rate limits through %s (docs/contributors/decisions.md §7)',
  (mode) => {
    let world: World;

    beforeAll(async () => {
      world = await makeWorld(
        mode,
        await testServer({
          rateLimits: {
            perIp: 3,
            windowSeconds: 60,
            failuresPerAccountAndAddress: 2,
            failuresPerAccount: 5,
            failureWindowSeconds: 60,
          },
        }),
      );
    });
    afterAll(async () => {
      await world.transport.close();
      await world.server.close();
    });

    /** A sleep that moves the server's clock instead of waiting: the window ends as Retry-After says. */
    const serverSleep = (slept: number[]) => (ms: number) => {
      slept.push(ms);
      world.server.clock.advance(ms);
      return Promise.resolve();
    };

    it('waits out a throttled legacy login by its Retry-After and then logs in', async () => {
      const slept: number[] = [];
      const client = clientOf(
        world,
        { kind: 'api-key', apiKey: world.apiKey },
        { sleep: serverSleep(slept) },
      );
      for (let i = 0; i < 2; i += 1) {
        expect(await rejection(client.legacy.login(world.alice.email, 'wrong'))).toMatchObject({
          code: ClientErrorCode.UNAUTHORIZED,
        });
      }
      const user = await client.legacy.login(world.alice.email, world.alice.password);
      expect(user.id).toBe(world.alice.id);
      expect(slept).toHaveLength(1);
      expect(slept[0]).toBeGreaterThan(0);
      expect(slept[0]).toBeLessThanOrEqual(60_000);
    });

    it('throws RATE_LIMITED with retryAfterMs once the allowed waits are used up', async () => {
      const keyOnly = clientOf(world, { kind: 'api-key', apiKey: world.apiKey }, { maxRateLimitRetries: 0 });
      world.server.clock.advance(61_000);
      for (let i = 0; i < 3; i += 1) await keyOnly.v1.createAuthToken(world.bob.email, world.bob.password);
      const error = await rejection(keyOnly.v1.createAuthToken(world.bob.email, world.bob.password));
      expect(error).toMatchObject({ code: ClientErrorCode.RATE_LIMITED, status: 429 });
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
      expect(error.serverMessages[0]).toContain('too many requests');

      const slept: number[] = [];
      const patient = clientOf(
        world,
        { kind: 'api-key', apiKey: world.apiKey },
        { sleep: serverSleep(slept) },
      );
      expect(await patient.v1.createAuthToken(world.bob.email, world.bob.password)).toMatchObject({
        user: { id: world.bob.id },
      });
      expect(slept).toEqual([error.retryAfterMs]);
    });
  },
);

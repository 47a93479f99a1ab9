/**
 * Legacy clubs (docs/contributors/decisions.md §5): a user's clubs, a club's details, and the routes its members share
 * with it. Alice runs the club, Bob is a member, Carol is not; routes are real course files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { storeFile } from '../test-support/assets.js';
import {
  errorOf,
  jsonOf,
  legacy,
  legacySetup,
  type LegacySetup,
  type Query,
} from '../test-support/legacy.js';
import { BASE_URL, createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';

let server: TestServer;
let setup: LegacySetup;
let carol: Person & { authToken: string };
let clubId: number;
let otherClubId: number;
/** shared with the club, most recently shared first */
let shared: { bobsPrivate: number; alicesPublic: number; alicesPrivate: number };
let unshared: number;

type RouteRecord = { id: number; url: string; visibility: string; user_id: number };

beforeAll(async () => {
  server = await testServer();
  setup = await legacySetup(server);
  const person = await createPerson(server, 'Carol Rider');
  carol = { ...person, authToken: (await server.store.authTokens.issue(person.id, setup.client.id)).token };
  clubId = (await server.store.users.createOrganization('Allmend Riders', setup.alice.id, 'Tuesday laps')).id;
  await server.store.users.setMembership(clubId, setup.bob.id, 'member');
  otherClubId = (await server.store.users.createOrganization('Aare Cyclists', carol.id)).id;
  await server.store.users.setMembership(otherClubId, setup.bob.id, 'member');

  const course = readFixture('fit', 'course.fit');
  const route = async (owner: number, visibility: 'public' | 'private') =>
    (await storeFile(server, owner, course, 'course.fit', { visibility }))[0]!.row.id;
  shared = {
    bobsPrivate: await route(setup.bob.id, 'private'),
    alicesPublic: await route(setup.alice.id, 'public'),
    alicesPrivate: await route(setup.alice.id, 'private'),
  };
  unshared = await route(setup.alice.id, 'public');
  for (const [id, owner] of [
    [shared.bobsPrivate, setup.bob.id],
    [shared.alicesPublic, setup.alice.id],
    [shared.alicesPrivate, setup.alice.id],
  ] as const) {
    expect(await server.store.clubs.shareRoute(clubId, id, owner)).toBe('shared');
    server.clock.advance(1000);
  }
});
afterAll(async () => {
  await server.close();
});

const as = (who: 'alice' | 'bob' | 'carol' | null, extra: Query = {}): Query => ({
  apikey: setup.apiKey,
  ...(who === null ? {} : { auth_token: who === 'carol' ? carol.authToken : setup[who].authToken }),
  ...extra,
});

const club = () => ({
  id: clubId,
  url: `${BASE_URL}/clubs/${clubId}.json`,
  name: 'Allmend Riders',
  description: 'Tuesday laps',
  member_count: 2,
  created_at: '2026-03-01T12:00:00Z',
  updated_at: '2026-03-01T12:00:00Z',
});

describe('GET /clubs/{id}.json', () => {
  it('shows name, description and member count to anyone with an API key', async () => {
    for (const who of ['alice', 'carol', null] as const) {
      const response = await legacy(server, { url: `/clubs/${clubId}.json`, query: as(who) });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ club: club() });
    }
    const script = await legacy(server, {
      url: `/clubs/${clubId}.js`,
      query: as(null, { callback: 'club' }),
    });
    expect(script.callback).toBe('club');
    expect(script.json).toEqual({ club: club() });
  });

  it("answers 404 for an unknown id and for a person's id, 400 for a bad id", async () => {
    for (const id of [9999, setup.alice.id]) {
      const response = await legacy(server, { url: `/clubs/${id}.json`, query: as('alice') });
      expect(response.status).toBe(404);
      expect(response.json).toEqual({ error: `club ${id} not found` });
    }
    const bad = await legacy(server, { url: '/clubs/club.json', query: as('alice') });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toBe('the club id in the path must be a whole number from 1 to 9007199254740991');
  });
});

describe('GET /users/{id}/clubs.json', () => {
  it('lists the clubs a user belongs to, by name, in the version 2 and version 1 shapes', async () => {
    const v2 = await legacy(server, { url: `/users/${setup.bob.id}/clubs.json`, query: as('carol') });
    expect(v2.status).toBe(200);
    expect(v2.json).toEqual({
      results: [expect.objectContaining({ id: otherClubId, name: 'Aare Cyclists', member_count: 2 }), club()],
      results_count: 2,
    });
    const v1 = await legacy(server, {
      url: `/users/${setup.alice.id}/clubs.js`,
      query: as(null, { version: 1 }),
    });
    expect(v1.callback).toBe('callback');
    expect(v1.json).toEqual([club()]);
  });

  it('answers an empty list for a user in no club, 404 for an unknown user', async () => {
    const none = await legacy(server, {
      url: `/users/${clubId}/clubs.json`,
      query: as('alice', { version: 1 }),
    });
    expect(none.json).toEqual([]);
    const unknown = await legacy(server, { url: '/users/9999/clubs.json', query: as('alice') });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'user 9999 not found' });
  });
});

describe('GET /clubs/{id}/routes.json', () => {
  const list = async (who: 'alice' | 'bob' | 'carol' | null, extra: Query = {}) => {
    const response = await legacy(server, { url: `/clubs/${clubId}/routes.json`, query: as(who, extra) });
    expect(response.status, response.body).toBe(200);
    return jsonOf<{ results: RouteRecord[]; results_count: number }>(response);
  };

  it('shows members every shared route, whatever its visibility, most recently shared first', async () => {
    for (const who of ['alice', 'bob'] as const) {
      const { results, results_count } = await list(who);
      expect(results.map((route) => route.id)).toEqual([
        shared.alicesPrivate,
        shared.alicesPublic,
        shared.bobsPrivate,
      ]);
      expect(results_count).toBe(3);
      expect(results[0]).toMatchObject({
        url: `${BASE_URL}/routes/${shared.alicesPrivate}.json`,
        visibility: 'private',
        user_id: setup.alice.id,
      });
      expect(results[0]).not.toHaveProperty('track_points');
    }
  });

  it('shows anyone else only the shared routes that are public', async () => {
    for (const who of ['carol', null] as const) {
      expect(await list(who)).toEqual({
        results: [expect.objectContaining({ id: shared.alicesPublic, visibility: 'public' })],
        results_count: 1,
      });
    }
    // Alice's other public route is hers, not the club's: it was never shared.
    expect((await list('alice')).results.map((route) => route.id)).not.toContain(unshared);
  });

  it('pages with offset and limit, counts them all, and answers version 1 as a bare array', async () => {
    expect(await list('bob', { limit: 1, offset: 1 })).toEqual({
      results: [expect.objectContaining({ id: shared.alicesPublic })],
      results_count: 3,
    });
    expect(await list('bob', { offset: 3 })).toEqual({ results: [], results_count: 3 });
    const v1 = await legacy(server, {
      url: `/clubs/${clubId}/routes.js`,
      query: as('bob', { version: 1, limit: 2, callback: 'Club.routes' }),
    });
    expect(v1.callback).toBe('Club.routes');
    expect(jsonOf<RouteRecord[]>(v1).map((route) => route.id)).toEqual([
      shared.alicesPrivate,
      shared.alicesPublic,
    ]);
    for (const extra of [{ limit: 0 }, { limit: 201 }, { offset: -1 }]) {
      const response = await legacy(server, { url: `/clubs/${clubId}/routes.json`, query: as('bob', extra) });
      expect(response.status).toBe(400);
    }
  });

  it('opens a private shared route for members (403 for others), as the club list shows it to them', async () => {
    const member = await legacy(server, { url: `/routes/${shared.bobsPrivate}.json`, query: as('alice') });
    expect(member.status).toBe(200);
    expect(jsonOf<{ route: { track_points: unknown[] } }>(member).route.track_points).toHaveLength(50);
    const outsider = await legacy(server, { url: `/routes/${shared.bobsPrivate}.json`, query: as('carol') });
    expect(outsider.status).toBe(403);
    const anonymous = await legacy(server, { url: `/routes/${shared.bobsPrivate}.json`, query: as(null) });
    expect(anonymous.status).toBe(401);
    // Sharing shows the route in the club, not in its owner's public list.
    const bobsList = await legacy(server, { url: `/users/${setup.bob.id}/routes.json`, query: as('alice') });
    expect(bobsList.json).toEqual({ results: [], results_count: 0 });
  });

  it('answers 404 for an unknown club and 401 for an expired token', async () => {
    const unknown = await legacy(server, { url: '/clubs/9999/routes.json', query: as('alice') });
    expect(unknown.status).toBe(404);
    const notAClub = await legacy(server, { url: `/clubs/${setup.bob.id}/routes.json`, query: as('alice') });
    expect(notAClub.status).toBe(404);
    const badToken = await legacy(server, {
      url: `/clubs/${clubId}/routes.json`,
      query: { apikey: setup.apiKey, auth_token: 'expired' },
    });
    expect(badToken.status).toBe(401);
    expect(errorOf(badToken)).toMatch(/log in again/);
  });
});

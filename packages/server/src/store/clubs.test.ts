/**
 * Clubs in the data-access layer (store/clubs.ts): who may share a route, and which shared routes a
 * club has (those of its current members) and shows to whom.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { storeFile } from '../test-support/assets.js';
import { createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';

let server: TestServer;
let alice: Person;
let bob: Person;
let carol: Person;
let clubId: number;

beforeEach(async () => {
  server = await testServer();
  [alice, bob, carol] = [
    await createPerson(server, 'Alice'),
    await createPerson(server, 'Bob'),
    await createPerson(server, 'Carol'),
  ];
  clubId = (await server.store.users.createOrganization('Allmend Riders', alice.id, 'Tuesday laps')).id;
  await server.store.users.setMembership(clubId, bob.id, 'member');
});
afterEach(async () => {
  await server.close();
});

async function route(owner: Person, visibility: 'public' | 'private' = 'private'): Promise<number> {
  const [created] = await storeFile(server, owner.id, readFixture('fit', 'course.fit'), 'course.fit', {
    visibility,
  });
  return created!.row.id;
}

const page = { offset: 0, limit: 20 };

describe('Clubs', () => {
  it('finds a club with its member count, and not a person', async () => {
    expect(await server.store.clubs.find(clubId)).toEqual({
      id: clubId,
      name: 'Allmend Riders',
      description: 'Tuesday laps',
      created_at: server.clock.now,
      updated_at: server.clock.now,
      member_count: 2,
    });
    expect(await server.store.clubs.find(alice.id)).toBeUndefined();
    expect(await server.store.clubs.find(9999)).toBeUndefined();
  });

  it('lists the clubs of a member by name', async () => {
    const other = await server.store.users.createOrganization('Zurich Gravel', carol.id);
    await server.store.users.setMembership(other.id, bob.id, 'admin');
    const first = await server.store.users.createOrganization('Aare Cyclists', carol.id);
    await server.store.users.setMembership(first.id, bob.id, 'member');
    const clubs = await server.store.clubs.ofMember(bob.id);
    expect(clubs.map((club) => [club.name, club.member_count])).toEqual([
      ['Aare Cyclists', 2],
      ['Allmend Riders', 2],
      ['Zurich Gravel', 2],
    ]);
    expect(await server.store.clubs.ofMember(carol.id)).toHaveLength(2);
    expect(await server.store.clubs.ofMember(clubId)).toEqual([]);
  });

  it('lets a member share their own route, once; refuses non-members and routes of others', async () => {
    const bobs = await route(bob);
    const carols = await route(carol, 'public');
    expect(await server.store.clubs.shareRoute(clubId, bobs, bob.id)).toBe('shared');
    expect(await server.store.clubs.shareRoute(clubId, bobs, bob.id)).toBe('already_shared');
    expect(await server.store.clubs.shareRoute(clubId, carols, carol.id)).toBe('not_member');
    expect(await server.store.clubs.shareRoute(clubId, carols, bob.id)).toBe('not_owner');
    expect(await server.store.clubs.shareRoute(clubId, 9999, bob.id)).toBe('no_such_route');
    expect(await server.store.clubs.shareRoute(alice.id, bobs, bob.id)).toBe('no_such_club');
  });

  it('lists every shared route to members and the public ones to others, most recently shared first', async () => {
    const bobsPrivate = await route(bob);
    const alicesPublic = await route(alice, 'public');
    const alicesPrivate = await route(alice);
    await route(alice, 'public'); // not shared
    expect(await server.store.clubs.shareRoute(clubId, bobsPrivate, bob.id)).toBe('shared');
    server.clock.advance(1000);
    expect(await server.store.clubs.shareRoute(clubId, alicesPublic, alice.id)).toBe('shared');
    server.clock.advance(1000);
    expect(await server.store.clubs.shareRoute(clubId, alicesPrivate, alice.id)).toBe('shared');

    expect(await server.store.clubs.listRouteIds(clubId, page, 'members')).toEqual({
      ids: [alicesPrivate, alicesPublic, bobsPrivate],
      total: 3,
    });
    expect(await server.store.clubs.listRouteIds(clubId, page, 'public')).toEqual({
      ids: [alicesPublic],
      total: 1,
    });
    expect(await server.store.clubs.listRouteIds(clubId, { offset: 1, limit: 1 }, 'members')).toEqual({
      ids: [alicesPublic],
      total: 3,
    });
    expect(await server.store.clubs.listRouteIds(clubId, { offset: 3, limit: 1 }, 'members')).toEqual({
      ids: [],
      total: 3,
    });
  });

  it('drops the routes of a member who leaves, and shows shared routes to members only', async () => {
    const bobsPrivate = await route(bob);
    expect(await server.store.clubs.shareRoute(clubId, bobsPrivate, bob.id)).toBe('shared');
    expect(await server.store.clubs.routeSharedWith(bobsPrivate, alice.id)).toBe(true);
    expect(await server.store.clubs.routeSharedWith(bobsPrivate, clubId)).toBe(true);
    expect(await server.store.clubs.routeSharedWith(bobsPrivate, carol.id)).toBe(false);
    expect(await server.store.clubs.seesAsMember(clubId, alice.id)).toBe(true);
    expect(await server.store.clubs.seesAsMember(clubId, clubId)).toBe(true);
    expect(await server.store.clubs.seesAsMember(clubId, carol.id)).toBe(false);

    await server.store.users.setMembership(clubId, carol.id, 'member');
    expect(await server.store.clubs.routeSharedWith(bobsPrivate, carol.id)).toBe(true);
    expect(await server.store.clubs.removeMember(clubId, bob.id)).toBe(true);
    expect(await server.store.clubs.removeMember(clubId, bob.id)).toBe(false);
    expect(await server.store.clubs.listRouteIds(clubId, page, 'members')).toEqual({ ids: [], total: 0 });
    expect(await server.store.clubs.routeSharedWith(bobsPrivate, alice.id)).toBe(false);
    expect((await server.store.clubs.find(clubId))!.member_count).toBe(2);
  });
});

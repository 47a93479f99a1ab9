/**
 * Sharing routes with a club through the legacy interface, over a real socket (issue 20, "Clubs":
 * `ClubStore.shareRoute` had no caller, so `/clubs/{id}/routes.json` was always empty). Alice runs the
 * club, Bob is a member, Carol is not; routes are a real course file.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { storeFile } from '../test-support/assets.js';
import { legacySetup, type LegacySetup } from '../test-support/legacy.js';
import { createPerson, testServer, type TestServer } from '../test-support/server.js';

let server: TestServer;
let origin: string;
let setup: LegacySetup;
let carolToken: string;
let clubId: number;
let routes: { bobs: number; bobsOther: number; alices: number; carols: number };

beforeAll(async () => {
  server = await testServer();
  origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
  setup = await legacySetup(server);
  const carol = await createPerson(server, 'Carol Rider');
  carolToken = (await server.store.authTokens.issue(carol.id, setup.client.id)).token;
  clubId = (await server.store.users.createOrganization('Allmend Riders', setup.alice.id)).id;
  await server.store.users.setMembership(clubId, setup.bob.id, 'member');
  const course = readFixture('fit', 'course.fit');
  const route = async (owner: number) =>
    (await storeFile(server, owner, course, 'course.fit', { visibility: 'private' }))[0]!.row.id;
  routes = {
    bobs: await route(setup.bob.id),
    bobsOther: await route(setup.bob.id),
    alices: await route(setup.alice.id),
    carols: await route(carol.id),
  };
});
afterAll(async () => {
  await server.close();
});

type Who = 'alice' | 'bob' | 'carol';
const tokenOf = (who: Who) => (who === 'carol' ? carolToken : setup[who].authToken);

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  who: Who,
  form: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const query = new URLSearchParams({ apikey: setup.apiKey, auth_token: tokenOf(who) });
  const response = await request(`${origin}${path}?${query.toString()}`, {
    method,
    ...(method === 'POST'
      ? {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form).toString(),
        }
      : {}),
  });
  return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
}

const clubRouteIds = async (who: Who): Promise<number[]> => {
  const list = await call('GET', `/clubs/${clubId}/routes.json`, who);
  expect(list.status).toBe(200);
  return (list.json['results'] as Array<{ id: number }>).map((route) => route.id);
};

describe('sharing routes with a club (legacy)', () => {
  it('lets a member share their own route, once, and every member then sees it', async () => {
    expect(await clubRouteIds('alice')).toEqual([]);
    const shared = await call('POST', `/clubs/${clubId}/routes.json`, 'bob', {
      route_id: String(routes.bobs),
    });
    expect(shared.status).toBe(201);
    expect(shared.json).toMatchObject({ success: 1, route: { id: routes.bobs, user_id: setup.bob.id } });
    const again = await call('POST', `/clubs/${clubId}/routes.json`, 'bob', {
      route_id: String(routes.bobs),
    });
    expect(again.status).toBe(200);
    expect(await clubRouteIds('alice')).toEqual([routes.bobs]);
    expect(await clubRouteIds('bob')).toEqual([routes.bobs]);
    // Private, so someone outside the club does not see it in the list.
    expect(await clubRouteIds('carol')).toEqual([]);
  });

  it("refuses someone else's route and a non-member in words (403), unknown things with 404", async () => {
    const notOwner = await call('POST', `/clubs/${clubId}/routes.json`, 'bob', {
      route_id: String(routes.alices),
    });
    expect(notOwner).toEqual({
      status: 403,
      json: { error: `only the owner of route ${routes.alices} can share it with a club` },
    });
    const notMember = await call('POST', `/clubs/${clubId}/routes.json`, 'carol', {
      route_id: String(routes.carols),
    });
    expect(notMember).toEqual({
      status: 403,
      json: { error: `only members of club ${clubId} can share routes with it` },
    });
    const noRoute = await call('POST', `/clubs/${clubId}/routes.json`, 'bob', { route_id: '999999' });
    expect(noRoute).toEqual({ status: 404, json: { error: 'route 999999 not found' } });
    const noClub = await call('POST', `/clubs/${setup.bob.id}/routes.json`, 'bob', {
      route_id: String(routes.bobs),
    });
    expect(noClub.status).toBe(404);
    const missing = await call('POST', `/clubs/${clubId}/routes.json`, 'bob');
    expect(missing.status).toBe(400);
    expect(String(missing.json['error'])).toContain('route_id');
    expect(await clubRouteIds('alice')).not.toContain(routes.alices);
  });

  it('lets the member who shared it or an administrator take a route out, and nobody else', async () => {
    await call('POST', `/clubs/${clubId}/routes.json`, 'bob', { route_id: String(routes.bobsOther) });
    expect(new Set(await clubRouteIds('bob'))).toEqual(new Set([routes.bobs, routes.bobsOther]));

    const outsider = await call('DELETE', `/clubs/${clubId}/routes/${routes.bobs}.json`, 'carol');
    expect(outsider.status).toBe(403);
    expect(outsider.json['error']).toBe(
      `only the member who shared route ${routes.bobs} or an administrator of club ${clubId} can remove it`,
    );
    const byAdmin = await call('DELETE', `/clubs/${clubId}/routes/${routes.bobs}.json`, 'alice');
    expect(byAdmin).toEqual({ status: 200, json: { success: 1 } });
    const byOwner = await call('DELETE', `/clubs/${clubId}/routes/${routes.bobsOther}.json`, 'bob');
    expect(byOwner).toEqual({ status: 200, json: { success: 1 } });
    expect(await clubRouteIds('alice')).toEqual([]);
    const gone = await call('DELETE', `/clubs/${clubId}/routes/${routes.bobs}.json`, 'alice');
    expect(gone).toEqual({
      status: 404,
      json: { error: `route ${routes.bobs} is not shared with club ${clubId}` },
    });
  });

  it('needs a signed-in user to share or remove (401)', async () => {
    const response = await request(`${origin}/clubs/${clubId}/routes.json?apikey=${setup.apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `route_id=${routes.bobs}`,
    });
    expect(response.statusCode).toBe(401);
    await response.body.dump();
  });
});

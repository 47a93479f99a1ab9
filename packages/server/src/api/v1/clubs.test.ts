/**
 * v1 clubs (issue 20, "Clubs"; api/v1/clubs.ts): a club, the routes its members share with it, sharing
 * and taking out, in v1's conventions and with the legacy API's rules and words. Alice runs the club,
 * Bob is a member, Carol is not; routes are real course files.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../../test/support/corpus.js';
import { storeFile } from '../../test-support/assets.js';
import { legacy } from '../../test-support/legacy.js';
import {
  BASE_URL,
  createPerson,
  credentialsFor,
  testServer,
  type Credentials,
  type Person,
  type TestServer,
} from '../../test-support/server.js';

type Who = 'alice' | 'bob' | 'carol';

let server: TestServer;
const people = {} as Record<Who, Person & { credentials: Credentials }>;
let clubId: number;
/** routes by owner and visibility; none shared before a test shares it */
const routes = {} as Record<
  'alicePublic' | 'alicePrivate' | 'bobPrivate' | 'bobPublic' | 'carolPublic',
  number
>;

beforeAll(async () => {
  server = await testServer();
  for (const [who, name] of [
    ['alice', 'Alice Admin'],
    ['bob', 'Bob Member'],
    ['carol', 'Carol Outsider'],
  ] as const) {
    const person = await createPerson(server, name);
    people[who] = { ...person, credentials: await credentialsFor(server, person) };
  }
  clubId = (await server.store.users.createOrganization('Allmend Riders', people.alice.id, 'Tuesday laps'))
    .id;
  await server.store.users.setMembership(clubId, people.bob.id, 'member');
  const course = readFixture('fit', 'course.fit');
  const route = async (owner: Who, visibility: 'public' | 'private') =>
    (await storeFile(server, people[owner].id, course, 'course.fit', { visibility }))[0]!.row.id;
  routes.alicePublic = await route('alice', 'public');
  routes.alicePrivate = await route('alice', 'private');
  routes.bobPrivate = await route('bob', 'private');
  routes.bobPublic = await route('bob', 'public');
  routes.carolPublic = await route('carol', 'public');
});
afterAll(async () => {
  await server.close();
});

function call(who: Who | null, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  return server.app.inject({
    method,
    url,
    headers: who === null ? {} : { authorization: people[who].credentials.basic },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const share = (who: Who, routeId: number, club = clubId) =>
  call(who, 'POST', `/api/v1/clubs/${club}/routes.json`, { route_id: routeId });
const unshare = (who: Who, routeId: number, club = clubId) =>
  call(who, 'DELETE', `/api/v1/clubs/${club}/routes/${routeId}.json`);

async function listed(who: Who, query = ''): Promise<{ ids: number[]; meta: Record<string, unknown> }> {
  const response = await call(who, 'GET', `/api/v1/clubs/${clubId}/routes.json${query}`);
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<{ routes: { id: number }[]; meta: { pagination: Record<string, unknown> } }>();
  return { ids: body.routes.map((route) => route.id), meta: body.meta.pagination };
}

async function unshareAll(): Promise<void> {
  for (const id of Object.values(routes)) await server.store.clubs.unshareRoute(clubId, id, people.alice.id);
}

describe('GET /api/v1/clubs.json', () => {
  async function clubsOf(who: Who, query = ''): Promise<{ names: string[]; meta: Record<string, unknown> }> {
    const response = await call(who, 'GET', `/api/v1/clubs.json${query}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<{
      clubs: { name: string }[];
      meta: { pagination: Record<string, unknown> };
    }>();
    return { names: body.clubs.map((club) => club.name), meta: body.meta.pagination };
  }

  it("lists the caller's clubs by name, a page at a time, and none of anyone else's", async () => {
    const dora = await createPerson(server, 'Dora Many Clubs');
    const doraCredentials = await credentialsFor(server, dora);
    // 21 clubs, made out of name order: a page of 20 (the smallest page) and one more.
    const names = Array.from({ length: 21 }, (_, index) => `Club ${String(index + 1).padStart(2, '0')}`);
    for (const name of [...names].reverse()) {
      const club = await server.store.users.createOrganization(name, people.alice.id, null);
      await server.store.users.setMembership(club.id, dora.id, 'member');
    }
    const page = async (query: string) => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/api/v1/clubs.json${query}`,
        headers: { authorization: doraCredentials.basic },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{
        clubs: { name: string; member_count: number }[];
        meta: { pagination: Record<string, unknown> };
      }>();
    };
    const first = await page('?page_size=20');
    expect(first.clubs.map((club) => club.name)).toEqual(names.slice(0, 20));
    expect(first.clubs[0]!.member_count).toBe(2);
    expect(first.meta.pagination).toEqual({
      record_count: 21,
      page_count: 2,
      page_size: 20,
      next_page_url: `${BASE_URL}/api/v1/clubs.json?page=2&page_size=20`,
    });
    const second = await page('?page=2&page_size=20');
    expect(second.clubs.map((club) => club.name)).toEqual(['Club 21']);
    expect(second.meta.pagination['next_page_url']).toBeNull();
    expect((await page('?page=3&page_size=20')).clubs).toEqual([]);
    // Alice administers every club here; Bob belongs to one; Carol to none.
    expect((await clubsOf('alice', '?page_size=200')).names).toEqual(['Allmend Riders', ...names].sort());
    expect((await clubsOf('bob')).names).toEqual(['Allmend Riders']);
    expect(await clubsOf('carol')).toEqual({
      names: [],
      meta: { record_count: 0, page_count: 0, page_size: 20, next_page_url: null },
    });
  });

  it('is refused without a user, and with a page that is no page', async () => {
    expect((await call(null, 'GET', '/api/v1/clubs.json')).statusCode).toBe(401);
    expect((await call('bob', 'GET', '/api/v1/clubs.json?page=0')).statusCode).toBe(400);
    expect((await call('bob', 'GET', '/api/v1/clubs.json?page_size=abc')).statusCode).toBe(400);
  });
});

describe('GET /api/v1/clubs/{id}.json', () => {
  it('shows the club to any user, under the root key club, with its v1 url', async () => {
    for (const who of ['alice', 'carol'] as const) {
      const response = await call(who, 'GET', `/api/v1/clubs/${clubId}.json`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        club: {
          id: clubId,
          url: `${BASE_URL}/api/v1/clubs/${clubId}.json`,
          name: 'Allmend Riders',
          description: 'Tuesday laps',
          member_count: 2,
          created_at: expect.any(String) as unknown,
          updated_at: expect.any(String) as unknown,
        },
      });
    }
    // and without the extension, as every v1 path
    expect((await call('bob', 'GET', `/api/v1/clubs/${clubId}`)).statusCode).toBe(200);
  });

  it("answers 404 for an unknown id and a person's id, 400 for a bad id, 401 without credentials", async () => {
    expect((await call('bob', 'GET', '/api/v1/clubs/999999.json')).json()).toEqual({
      errors: ['club 999999 not found'],
      error_codes: ['SERVER_NOT_FOUND'],
    });
    expect((await call('bob', 'GET', `/api/v1/clubs/${people.alice.id}.json`)).statusCode).toBe(404);
    expect((await call('bob', 'GET', '/api/v1/clubs/abc.json')).statusCode).toBe(400);
    expect((await call(null, 'GET', `/api/v1/clubs/${clubId}.json`)).statusCode).toBe(401);
  });
});

describe('sharing routes with a club on v1', () => {
  it('a member shares their own route: 201 with the v1 route record, 200 when shared already', async () => {
    await unshareAll();
    const first = await share('bob', routes.bobPrivate);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toEqual({
      route: expect.objectContaining({
        id: routes.bobPrivate,
        url: `${BASE_URL}/api/v1/routes/${routes.bobPrivate}.json`,
        user_id: people.bob.id,
        visibility: 'private',
      }) as unknown,
    });
    expect(first.json<{ route: object }>().route).not.toHaveProperty('track_points');
    const again = await share('bob', routes.bobPrivate);
    expect(again.statusCode).toBe(200);
    expect(again.json<{ route: { id: number } }>().route.id).toBe(routes.bobPrivate);
    expect((await listed('alice')).ids).toEqual([routes.bobPrivate]);
  });

  it('refuses in words: a non-member, another one’s route, an unknown club or route, no route_id', async () => {
    await unshareAll();
    const refused = (response: Awaited<ReturnType<typeof share>>, status: number) => {
      expect(response.statusCode, response.body).toBe(status);
      return response.json<{ errors: string[] }>().errors;
    };
    expect(refused(await share('carol', routes.carolPublic), 403)).toEqual([
      `only members of club ${clubId} can share routes with it`,
    ]);
    expect(refused(await share('bob', routes.alicePublic), 403)).toEqual([
      `only the owner of route ${routes.alicePublic} can share it with a club`,
    ]);
    expect(refused(await share('bob', 999999), 404)).toEqual(['route 999999 not found']);
    expect(refused(await share('bob', routes.bobPublic, 999999), 404)).toEqual(['club 999999 not found']);
    const missing = refused(await call('bob', 'POST', `/api/v1/clubs/${clubId}/routes.json`, {}), 400);
    expect(missing.join(' ')).toMatch(/route_id/);
    expect(
      refused(await share('bob', -3), 400).join(' '),
      'a route_id that is not a positive whole number',
    ).toMatch(/route_id/);
    expect((await listed('alice')).ids).toEqual([]);
  });

  it('answers the same refusals as the legacy API, in the same words', async () => {
    const v1 = await share('carol', routes.carolPublic);
    const old = await legacy(server, {
      method: 'POST',
      url: `/clubs/${clubId}/routes.json`,
      query: {
        apikey: people.carol.credentials.apiKey,
        auth_token: people.carol.credentials.authToken,
        route_id: String(routes.carolPublic),
      },
    });
    expect(old.status).toBe(v1.statusCode);
    expect(old.body).toContain(v1.json<{ errors: string[] }>().errors[0]);
  });

  it('the sharer or an administrator takes a route out (204); anyone else is refused; then it is gone', async () => {
    await unshareAll();
    expect((await share('bob', routes.bobPublic)).statusCode).toBe(201);
    expect((await share('alice', routes.alicePublic)).statusCode).toBe(201);
    const refusedOther = await unshare('bob', routes.alicePublic);
    expect(refusedOther.statusCode).toBe(403);
    expect(refusedOther.json()).toEqual({
      errors: [
        `only the member who shared route ${routes.alicePublic} or an administrator of club ${clubId} can remove it`,
      ],
      error_codes: ['SERVER_FORBIDDEN'],
    });
    expect((await unshare('carol', routes.bobPublic)).statusCode).toBe(403);
    // Alice administers the club: she may take out Bob's route; Bob his own.
    const removed = await unshare('alice', routes.bobPublic);
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect((await unshare('bob', routes.bobPublic)).json()).toEqual({
      errors: [`route ${routes.bobPublic} is not shared with club ${clubId}`],
      error_codes: ['SERVER_NOT_FOUND'],
    });
    expect((await unshare('alice', routes.alicePublic)).statusCode).toBe(204);
    expect((await unshare('alice', routes.alicePublic, 999999)).statusCode).toBe(404);
    expect((await listed('alice')).ids).toEqual([]);
  });
});

describe('GET /api/v1/clubs/{id}/routes.json', () => {
  it('pages with page and page_size, most recently shared first, with meta.pagination', async () => {
    await unshareAll();
    for (const id of [routes.alicePublic, routes.alicePrivate]) {
      expect((await share('alice', id)).statusCode).toBe(201);
      server.clock.advance(1000);
    }
    expect((await share('bob', routes.bobPublic)).statusCode).toBe(201);
    expect(await listed('bob')).toEqual({
      ids: [routes.bobPublic, routes.alicePrivate, routes.alicePublic],
      meta: { record_count: 3, page_count: 1, page_size: 20, next_page_url: null },
    });
    const response = await call('bob', 'GET', `/api/v1/clubs/${clubId}/routes.json?page_size=10`);
    expect(response.statusCode).toBe(400);
    expect((await call('bob', 'GET', '/api/v1/clubs/999999/routes.json')).statusCode).toBe(404);
  });

  // Model-based: whatever members share and take out, in any order, members see exactly what is
  // shared now and others exactly the public part of it (docs/contributors/decisions.md §5).
  it('shows members every route shared now and others only the public ones, after any sequence of changes', async () => {
    const owned: [Who, number, boolean][] = [
      ['alice', routes.alicePublic, true],
      ['alice', routes.alicePrivate, false],
      ['bob', routes.bobPrivate, false],
      ['bob', routes.bobPublic, true],
    ];
    const step = fc.record({
      route: fc.integer({ min: 0, max: owned.length - 1 }),
      share: fc.boolean(),
      by: fc.constantFrom<Who>('alice', 'bob', 'carol'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        await unshareAll();
        const model = new Map<number, Who>();
        for (const { route, share: sharing, by } of steps) {
          const [owner, id] = owned[route]!;
          if (sharing) {
            const status = (await share(by, id)).statusCode;
            const allowed = by === owner && by !== 'carol';
            expect(status).toBe(allowed ? (model.has(id) ? 200 : 201) : 403);
            if (allowed && !model.has(id)) model.set(id, by);
          } else {
            const status = (await unshare(by, id)).statusCode;
            const allowed = model.has(id) && (by === 'alice' || model.get(id) === by);
            expect(status).toBe(allowed ? 204 : model.has(id) ? 403 : 404);
            if (allowed) model.delete(id);
          }
        }
        const shared = owned.filter(([, id]) => model.has(id));
        for (const member of ['alice', 'bob'] as const) {
          expect((await listed(member)).ids.sort()).toEqual(shared.map(([, id]) => id).sort());
        }
        expect((await listed('carol')).ids.sort()).toEqual(
          shared
            .filter(([, , isPublic]) => isPublic)
            .map(([, id]) => id)
            .sort(),
        );
      }),
      { numRuns: 25 },
    );
  });
});

/**
 * What every legacy endpoint of docs/contributors/decisions.md §5 shares, tried on each of them: JSON with `.json`,
 * JSONP with `.js` or `callback` (`/**\/cb(json);`, application/javascript, nosniff), unsafe callbacks
 * refused with a 400 that reflects nothing, the API key required even for public data (docs/contributors/decisions.md
 * §1), unsupported versions refused, and credentials taken from the query, a form body or a JSON body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { onlyTrack, storeFile } from '../test-support/assets.js';
import {
  errorOf,
  jsonOf,
  legacy,
  legacySetup,
  type LegacySetup,
  type Query,
} from '../test-support/legacy.js';
import { testServer, type TestServer } from '../test-support/server.js';

let server: TestServer;
let setup: LegacySetup;
const points = onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx').points;

interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  /** without extension */
  path: () => string;
  /** a JSON body for POST */
  json?: Record<string, unknown>;
}

let ids: { club: number; route: number; trip: number };

const ENDPOINTS: Endpoint[] = [
  { name: 'login', method: 'GET', path: () => '/users/current' },
  { name: 'user', method: 'GET', path: () => `/users/${setup.alice.id}` },
  { name: 'route', method: 'GET', path: () => `/routes/${ids.route}` },
  { name: 'trip', method: 'GET', path: () => `/trips/${ids.trip}` },
  { name: 'user routes', method: 'GET', path: () => `/users/${setup.alice.id}/routes` },
  { name: 'user trips', method: 'GET', path: () => `/users/${setup.alice.id}/trips` },
  { name: 'user clubs', method: 'GET', path: () => `/users/${setup.alice.id}/clubs` },
  { name: 'club', method: 'GET', path: () => `/clubs/${ids.club}` },
  { name: 'club routes', method: 'GET', path: () => `/clubs/${ids.club}/routes` },
  { name: 'ride from points', method: 'POST', path: () => '/trips', json: { track_points: points } },
];

beforeAll(async () => {
  server = await testServer();
  setup = await legacySetup(server);
  const club = await server.store.users.createOrganization('Allmend Riders', setup.alice.id, 'Tuesday laps');
  const [route] = await storeFile(server, setup.alice.id, readFixture('fit', 'course.fit'), 'course.fit', {
    visibility: 'public',
  });
  const [trip] = await storeFile(
    server,
    setup.alice.id,
    readFixture('gpx', 'sample-ride.gpx'),
    'sample-ride.gpx',
    {
      visibility: 'public',
    },
  );
  expect(await server.store.clubs.shareRoute(club.id, route!.row.id, setup.alice.id)).toBe('shared');
  ids = { club: club.id, route: route!.row.id, trip: trip!.row.id };
});
afterAll(async () => {
  await server.close();
});

function call(endpoint: Endpoint, extension: '.json' | '.js', query: Query) {
  return legacy(server, {
    method: endpoint.method,
    url: `${endpoint.path()}${extension}`,
    query,
    ...(endpoint.json === undefined ? {} : { json: endpoint.json }),
  });
}

const credentials = (): Query => ({ apikey: setup.apiKey, auth_token: setup.alice.authToken });

describe.each(ENDPOINTS)('legacy $method $name', (endpoint) => {
  it('answers JSON with .json, and JSONP with .js (default callback) or a callback parameter', async () => {
    const json = await call(endpoint, '.json', credentials());
    expect(json.status, json.body).toBe(200);
    expect(json.contentType).toBe('application/json; charset=utf-8');
    expect(json.callback).toBeNull();

    const script = await call(endpoint, '.js', credentials());
    expect(script.status).toBe(200);
    expect(script.contentType).toBe('application/javascript; charset=utf-8');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect(script.body.startsWith('/**/callback(')).toBe(true);
    expect(script.body.endsWith(');')).toBe(true);

    for (const extension of ['.json', '.js'] as const) {
      const named = await call(endpoint, extension, { ...credentials(), callback: 'app.legacy.handle_1$' });
      expect(named.status).toBe(200);
      expect(named.callback).toBe('app.legacy.handle_1$');
      expect(named.headers['x-content-type-options']).toBe('nosniff');
    }
    // The same data, whichever way it is asked for (the login's token aside, new on each password login).
    if (endpoint.method === 'GET') expect(script.json).toEqual(json.json);
  });

  it('refuses an unsafe callback with a 400 in plain JSON that reflects none of it', async () => {
    const attempts = [
      'alert(1)//',
      '</script><script>alert(1)</script>',
      'a;alert(1)',
      'x=1,alert',
      'a..b',
      '.a',
      'a.',
      '1abc',
      'a b',
      'a\u2028b',
      'cb\n',
      'ünïcode',
      `a${'b'.repeat(128)}`,
    ];
    for (const callback of attempts) {
      for (const extension of ['.json', '.js'] as const) {
        const response = await call(endpoint, extension, { ...credentials(), callback });
        expect(response.status, callback).toBe(400);
        expect(response.contentType, callback).toBe('application/json; charset=utf-8');
        expect(errorOf(response)).toMatch(/^callback must be a JavaScript name/);
        expect(response.body).not.toContain('alert');
        expect(response.body).not.toContain('script');
        expect(response.body).not.toContain('b'.repeat(100));
      }
    }
    // 128 characters is the longest name taken.
    const longest = await call(endpoint, '.json', { ...credentials(), callback: `a${'b'.repeat(127)}` });
    expect(longest.status).toBe(200);
    expect(longest.callback).toHaveLength(128);
  });

  it('answers 401 without an API key or with an unknown one, even where no user is needed', async () => {
    const withoutKey: Query = { auth_token: setup.alice.authToken };
    const missing = await call(endpoint, '.json', withoutKey);
    expect(missing.status).toBe(401);
    expect(errorOf(missing)).toBe('the apikey parameter is required');
    const unknown = await call(endpoint, '.json', { ...withoutKey, apikey: 'not-a-key' });
    expect(unknown.status).toBe(401);
    expect(errorOf(unknown)).toBe('unknown apikey');
    // JSONP errors keep the status and come as JSONP when the callback is safe.
    const script = await call(endpoint, '.js', { ...withoutKey, callback: 'onError' });
    expect(script.status).toBe(401);
    expect(script.body).toMatch(/^\/\*\*\/onError\(\{"error":"the apikey parameter is required"\}\);$/);
  });

  it('answers 400 for an unsupported version, naming the supported ones', async () => {
    for (const version of ['3', '0', '-1', 'two', 'Infinity', '1e309', '2.5']) {
      const response = await call(endpoint, '.json', { ...credentials(), version });
      expect(response.status, version).toBe(400);
      expect(response.json).toEqual({ error: `unsupported version ${version}; supported: 1, 2` });
    }
    for (const version of ['1', '2']) {
      const response = await call(endpoint, '.json', { ...credentials(), version });
      expect(response.status, version).toBe(200);
    }
  });

  it('answers 401 saying to log in again for an unknown or expired auth token', async () => {
    const unknown = await call(endpoint, '.json', { apikey: setup.apiKey, auth_token: 'no-such-token' });
    expect(unknown.status).toBe(401);
    expect(errorOf(unknown)).toMatch(/log in again/);
  });
});

describe('legacy credentials', () => {
  it('takes apikey and auth_token from the query, a form body and a JSON body', async () => {
    const query = await legacy(server, {
      method: 'POST',
      url: '/trips.json',
      query: credentials(),
      json: { track_points: points },
    });
    const form = await legacy(server, {
      method: 'POST',
      url: '/trips.json',
      form: { ...(credentials() as Record<string, string>), track_points: JSON.stringify(points) },
    });
    const json = await legacy(server, {
      method: 'POST',
      url: '/trips.json',
      json: { ...credentials(), track_points: points },
    });
    for (const response of [query, form, json]) {
      expect(response.status, response.body).toBe(200);
      expect(jsonOf<{ trip: { user_id: number } }>(response).trip.user_id).toBe(setup.alice.id);
    }
  });

  it('takes email and password from the query, a form body and a JSON body', async () => {
    const signIn = { apikey: setup.apiKey, email: setup.bob.email, password: setup.bob.password };
    const query = await legacy(server, { url: '/users/current.json', query: signIn });
    const form = await legacy(server, {
      method: 'POST',
      url: '/trips.json',
      form: { ...signIn, 'trip[track_points]': JSON.stringify(points) },
    });
    const json = await legacy(server, {
      method: 'POST',
      url: '/trips.json',
      json: { ...signIn, trip: { track_points: points } },
    });
    expect(jsonOf<{ user: { id: number } }>(query).user.id).toBe(setup.bob.id);
    for (const response of [form, json]) {
      expect(response.status, response.body).toBe(200);
      expect(jsonOf<{ trip: { user_id: number } }>(response).trip.user_id).toBe(setup.bob.id);
    }
  });

  it("refuses a token at once when it is revoked, and with another client's key", async () => {
    const { token } = await server.store.authTokens.issue(setup.bob.id, setup.client.id);
    const current = (apikey: string) =>
      legacy(server, { url: '/users/current.json', query: { apikey, auth_token: token } });
    // Twice: the second answer comes from the lookup the store keeps (store/callers.ts).
    expect((await current(setup.apiKey)).status).toBe(200);
    expect((await current(setup.apiKey)).status).toBe(200);
    const other = await server.store.apiClients.create(setup.bob.id, { name: 'Another client' });
    const wrongKey = await current(other.apiKey);
    expect(wrongKey.status).toBe(401);
    expect(errorOf(wrongKey)).toBe('the auth token is invalid: log in again to get a new one');

    const check = await server.store.authTokens.check(token, setup.client.id);
    if (!check.ok) throw new Error('the token should be live');
    await server.store.authTokens.revoke(check.row.id);
    const revoked = await current(setup.apiKey);
    expect(revoked.status).toBe(401);
    expect(errorOf(revoked)).toMatch(/log in again/);
  });

  it('takes the x-service-api-key and x-service-auth-token headers too', async () => {
    const response = await legacy(server, {
      url: '/users/current.json',
      headers: { 'x-service-api-key': setup.apiKey, 'x-service-auth-token': setup.bob.authToken },
    });
    expect(response.status).toBe(200);
    expect(jsonOf<{ user: { id: number; auth_token: string } }>(response).user).toMatchObject({
      id: setup.bob.id,
      auth_token: setup.bob.authToken,
    });
  });

  it('prefers a value in the body over the same name in the query', async () => {
    const response = await legacy(server, {
      method: 'POST',
      url: '/trips.json',
      query: { apikey: 'not-a-key', auth_token: 'not-a-token' },
      json: { ...credentials(), track_points: points },
    });
    expect(response.status).toBe(200);
  });

  it('answers a body that is not JSON with a 400 {"error"}', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/trips.json',
      query: credentials() as Record<string, string>,
      headers: { 'content-type': 'application/json' },
      payload: '{"track_points": [',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ error: string }>().error).toEqual(expect.any(String));
  });
});

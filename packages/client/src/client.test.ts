/**
 * The request layer through RideportClient with a scripted transport: headers and credentials,
 * 429 waits, error mapping, bodies that are not JSON, pagination, the legacy login.
 */
import { describe, expect, it } from 'vitest';
import { RideportClient, DEFAULT_USER_AGENT } from './client.js';
import type { Credentials } from './credentials.js';
import { ClientErrorCode } from './errors.js';
import {
  fakeClock,
  fakeTransport,
  jsonResponse,
  pathOf,
  queryOf,
  textResponse,
  type Handler,
} from './test-support/fake-transport.js';

const AUTH: Credentials = { kind: 'auth-token', apiKey: 'key-1', authToken: 'token-1' };

function clientWith(
  handler: Handler,
  credentials: Credentials = AUTH,
  baseUrl = 'https://rides.example.com',
) {
  const transport = fakeTransport(handler);
  const clock = fakeClock();
  const client = new RideportClient({
    baseUrl,
    credentials,
    transport,
    sleep: clock.sleep,
    now: clock.now,
    random: () => 0.5,
  });
  return { client, transport, clock };
}

const USER = {
  id: 3,
  name: 'Alice',
  display_name: 'Alice',
  first_name: null,
  last_name: null,
  created_at: 'x',
  updated_at: 'x',
};

const route = (id: number) => ({ id, name: `Route ${id}` });

describe('credentials and headers', () => {
  it('sends accept, the user agent and Basic auth by default', async () => {
    const { client, transport } = clientWith(() => jsonResponse(200, { user: USER }));
    expect(await client.v1.currentUser()).toEqual(USER);
    const [request] = transport.requests;
    expect(request).toMatchObject({
      method: 'GET',
      url: 'https://rides.example.com/api/v1/users/current.json',
    });
    expect(request!.headers).toEqual({
      accept: 'application/json',
      'user-agent': DEFAULT_USER_AGENT,
      authorization: `Basic ${Buffer.from('key-1:token-1').toString('base64')}`,
    });
  });

  it('sends the x-service header pair, or a Bearer token, as the credentials say', async () => {
    const { client, transport } = clientWith(() => jsonResponse(200, { user: USER }), {
      ...AUTH,
      scheme: 'headers',
    });
    await client.v1.currentUser();
    expect(transport.requests[0]!.headers).toMatchObject({
      'x-service-api-key': 'key-1',
      'x-service-auth-token': 'token-1',
    });
    expect(transport.requests[0]!.headers['authorization']).toBeUndefined();
    client.setCredentials({ kind: 'oauth', apiKey: 'key-1', accessToken: 'access-1' });
    await client.v1.currentUser();
    expect(transport.requests[1]!.headers['authorization']).toBe('Bearer access-1');
  });

  it('keeps a path prefix of the base URL and a custom user agent', async () => {
    const transport = fakeTransport(() => jsonResponse(200, { user: USER }));
    const client = new RideportClient({
      baseUrl: 'https://example.com/rides/',
      credentials: AUTH,
      transport,
      userAgent: 'sync/1',
    });
    await client.v1.currentUser();
    expect(transport.requests[0]!.url).toBe('https://example.com/rides/api/v1/users/current.json');
    expect(transport.requests[0]!.headers['user-agent']).toBe('sync/1');
    await client.close();
    expect(transport.closed).toBe(false); // the caller's transport stays open
  });

  it('creates an auth token with the API key alone and leaves the credentials as they were', async () => {
    const record = { auth_token: 'new', api_key: 'key-1', created_at: 'x', updated_at: 'x', user: USER };
    const { client, transport } = clientWith(() => jsonResponse(201, { auth_token: record }), {
      kind: 'oauth',
      apiKey: 'key-1',
      accessToken: 'access-1',
    });
    expect(await client.v1.createAuthToken('a@example.com', 'pw')).toEqual(record);
    const [request] = transport.requests;
    expect(request!.headers).toMatchObject({
      'x-service-api-key': 'key-1',
      'content-type': 'application/json',
    });
    expect(request!.headers['authorization']).toBeUndefined();
    expect(JSON.parse(request!.body as string)).toEqual({ user: { email: 'a@example.com', password: 'pw' } });
    expect(client.credentials.kind).toBe('oauth');
  });

  it('logs in on the legacy interface and uses the new token from then on', async () => {
    const { client, transport } = clientWith((request) =>
      jsonResponse(200, {
        user: { ...USER, auth_token: queryOf(request).has('password') ? 'fresh' : 'same' },
      }),
    );
    const user = await client.legacy.login('a@example.com', 'pw');
    expect(user.auth_token).toBe('fresh');
    const login = queryOf(transport.requests[0]!);
    expect(Object.fromEntries(login)).toEqual({
      apikey: 'key-1',
      version: '2',
      email: 'a@example.com',
      password: 'pw',
    });
    expect(client.credentials).toEqual({ kind: 'auth-token', apiKey: 'key-1', authToken: 'fresh' });
    await client.legacy.currentUser();
    expect(Object.fromEntries(queryOf(transport.requests[1]!))).toEqual({
      apikey: 'key-1',
      auth_token: 'fresh',
      version: '2',
    });
  });
});

describe('errors', () => {
  it('maps a 401 at once, without retrying, and never puts the query in the message', async () => {
    const { client, transport } = clientWith(() =>
      jsonResponse(401, { error: 'invalid email or password: log in again' }),
    );
    const error = await client.legacy.login('a@example.com', 'secret-password').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ClientErrorCode.UNAUTHORIZED,
      status: 401,
      serverMessages: ['invalid email or password: log in again'],
    });
    expect((error as Error).message).not.toContain('secret-password');
    expect(transport.requests).toHaveLength(1);
    expect(client.credentials).toEqual(AUTH);
  });

  it('maps 403, 404, 422 and 5xx, with the server’s messages', async () => {
    const answers = [
      jsonResponse(403, { errors: ['trip 5 belongs to another user and is not public'] }),
      jsonResponse(404, { errors: ['trip 6 not found'] }),
      jsonResponse(422, { errors: ['name is required', 'start_date is required'] }),
      textResponse(503, 'upstream unavailable'),
    ];
    const { client, transport } = clientWith((_request, index) => answers[index]!);
    await expect(client.v1.trips.get(5)).rejects.toMatchObject({
      code: ClientErrorCode.FORBIDDEN,
      status: 403,
    });
    await expect(client.v1.trips.get(6)).rejects.toMatchObject({ code: ClientErrorCode.NOT_FOUND });
    await expect(client.v1.events.create({})).rejects.toMatchObject({
      code: ClientErrorCode.REJECTED,
      serverMessages: ['name is required', 'start_date is required'],
    });
    await expect(client.v1.events.delete(1)).rejects.toMatchObject({
      code: ClientErrorCode.SERVER,
      serverMessages: [],
    });
    expect(transport.requests).toHaveLength(4);
  });

  it('calls a body that is not JSON a BAD_RESPONSE, quoting its start', async () => {
    const { client } = clientWith(() => textResponse(200, '<html><body>Captive portal</body></html>'));
    const error = await client.v1.currentUser().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ClientErrorCode.BAD_RESPONSE, status: 200 });
    expect((error as Error).message).toContain('<html><body>Captive portal');
  });

  it('calls JSON without the expected root key a BAD_RESPONSE', async () => {
    const { client } = clientWith(() => jsonResponse(200, { something: 'else' }));
    await expect(client.v1.currentUser()).rejects.toMatchObject({ code: ClientErrorCode.BAD_RESPONSE });
  });

  it('refuses ids that are not positive integers before sending anything', async () => {
    const { client, transport } = clientWith(() => jsonResponse(200, {}));
    await expect(client.v1.routes.get(0)).rejects.toThrow(TypeError);
    await expect(client.legacy.trip(1.5)).rejects.toThrow(TypeError);
    expect(transport.requests).toHaveLength(0);
  });

  it('reports an aborted signal as ABORTED without sending', async () => {
    const { client, transport } = clientWith(() => jsonResponse(200, { user: USER }));
    const controller = new AbortController();
    controller.abort();
    await expect(client.v1.currentUser({ signal: controller.signal })).rejects.toMatchObject({
      code: ClientErrorCode.ABORTED,
    });
    expect(transport.requests).toHaveLength(0);
  });
});

describe('429 Retry-After', () => {
  it('waits as long as Retry-After says and sends the same request again, even a POST', async () => {
    const { client, transport, clock } = clientWith((_request, index) =>
      index < 2
        ? jsonResponse(429, { errors: ['too many requests'] }, { 'retry-after': index === 0 ? '2' : '5' })
        : jsonResponse(201, { auth_token: { auth_token: 't' } }),
    );
    await client.v1.createAuthToken('a@example.com', 'pw');
    expect(clock.sleeps).toEqual([2000, 5000]);
    expect(transport.requests).toHaveLength(3);
    expect(new Set(transport.requests.map((request) => request.body)).size).toBe(1);
  });

  it('waits a second when Retry-After is missing, and reads an HTTP date', async () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const { client, clock } = clientWith((_request, index) =>
      index === 0
        ? jsonResponse(429, {})
        : index === 1
          ? jsonResponse(429, {}, { 'retry-after': inTenSeconds })
          : jsonResponse(200, { user: USER }),
    );
    await client.v1.currentUser();
    expect(clock.sleeps[0]).toBe(1000);
    expect(clock.sleeps[1]).toBeGreaterThan(7000);
    expect(clock.sleeps[1]).toBeLessThanOrEqual(10_000);
  });

  it('gives up after maxRateLimitRetries waits with RATE_LIMITED and the last Retry-After', async () => {
    const { client, transport, clock } = clientWith(() =>
      jsonResponse(
        429,
        { errors: ['too many failed sign-ins for this account: try again in 3 seconds'] },
        {
          'retry-after': '3',
        },
      ),
    );
    const error = await client.v1.currentUser().catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ClientErrorCode.RATE_LIMITED,
      status: 429,
      retryAfterMs: 3000,
      serverMessages: ['too many failed sign-ins for this account: try again in 3 seconds'],
    });
    expect(transport.requests).toHaveLength(4); // the first try and 3 retries (the default)
    expect(clock.sleeps).toEqual([3000, 3000, 3000]);
  });

  it('does not sit out a Retry-After longer than maxRateLimitWaitMs: it is the caller’s to schedule', async () => {
    const transport = fakeTransport(() => jsonResponse(429, {}, { 'retry-after': '3600' }));
    const clock = fakeClock();
    const client = new RideportClient({
      baseUrl: 'https://rides.example.com',
      credentials: AUTH,
      transport,
      sleep: clock.sleep,
      maxRateLimitRetries: 5,
    });
    await expect(client.v1.currentUser()).rejects.toMatchObject({
      code: ClientErrorCode.RATE_LIMITED,
      retryAfterMs: 3_600_000,
    });
    expect(clock.sleeps).toEqual([]);
  });
});

describe('503 Service Unavailable', () => {
  const problem = 'the server cannot reach its database just now; try again in a few seconds';

  it('is not sent again (the server may have acted), and carries the Retry-After for the caller', async () => {
    const { client, transport, clock } = clientWith(() =>
      jsonResponse(503, { errors: [problem] }, { 'retry-after': '5' }),
    );
    const error = await client.v1.createAuthToken('a@example.com', 'pw').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: ClientErrorCode.SERVER,
      status: 503,
      retryAfterMs: 5000,
      serverMessages: [problem],
    });
    expect(transport.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('carries no wait when the server names none', async () => {
    const { client } = clientWith(() => jsonResponse(503, { errors: [problem] }));
    await expect(client.v1.currentUser()).rejects.toMatchObject({ status: 503, retryAfterMs: null });
  });
});

describe('pagination', () => {
  it('follows next_page_url until it is null, on the client’s own origin', async () => {
    const { client, transport } = clientWith((request) => {
      const page = Number(queryOf(request).get('page') ?? '1');
      const next = page < 3 ? `http://127.0.0.1/api/v1/routes.json?page=${page + 1}&page_size=20` : null;
      return jsonResponse(200, {
        routes: page < 3 ? [route(page * 10), route(page * 10 + 1)] : [route(99)],
        meta: { pagination: { record_count: 5, page_count: 3, page_size: 20, next_page_url: next } },
      });
    });
    const ids: number[] = [];
    for await (const item of client.v1.routes.all({ pageSize: 20 })) ids.push(item.id);
    expect(ids).toEqual([10, 11, 20, 21, 99]);
    expect(transport.requests.map((request) => request.url)).toEqual([
      'https://rides.example.com/api/v1/routes.json?page_size=20',
      // the server named another origin: the path and query are followed, credentials stay here
      'https://rides.example.com/api/v1/routes.json?page=2&page_size=20',
      'https://rides.example.com/api/v1/routes.json?page=3&page_size=20',
    ]);
    expect(
      transport.requests.every((request) => request.headers['authorization']?.startsWith('Basic ')),
    ).toBe(true);
  });

  it('list() answers one page with its pagination', async () => {
    const pagination = { record_count: 1, page_count: 1, page_size: 50, next_page_url: null };
    const { client, transport } = clientWith(() =>
      jsonResponse(200, { trips: [route(1)], meta: { pagination } }),
    );
    expect(await client.v1.trips.list({ page: 2, pageSize: 50 })).toEqual({ items: [route(1)], pagination });
    expect(Object.fromEntries(queryOf(transport.requests[0]!))).toEqual({ page: '2', page_size: '50' });
  });

  it('stops with BAD_RESPONSE when next_page_url points back at a page already read', async () => {
    const { client } = clientWith(() =>
      jsonResponse(200, {
        events: [route(1)],
        meta: {
          pagination: {
            record_count: 9,
            page_count: 9,
            page_size: 20,
            next_page_url: 'https://rides.example.com/api/v1/events.json?page=2&page_size=20',
          },
        },
      }),
    );
    const seen: number[] = [];
    const iterate = async () => {
      for await (const item of client.v1.events.all()) seen.push(item.id);
    };
    await expect(iterate()).rejects.toMatchObject({ code: ClientErrorCode.BAD_RESPONSE });
    expect(seen).toEqual([1, 1]);
  });
});

describe('legacy requests', () => {
  it('sends points as JSON with the trip fields, visibility as the legacy number', async () => {
    const { client, transport } = clientWith(() => jsonResponse(200, { success: 1, trip: { id: 4 } }));
    const trip = await client.legacy.uploadPoints([{ x: 7.4, y: 46.9, t: 1_772_000_000 }], {
      name: 'Lunch loop',
      visibility: 'friends_only',
    });
    expect(trip).toEqual({ id: 4 });
    const [request] = transport.requests;
    expect(pathOf(request!)).toBe('/trips.json');
    expect(JSON.parse(request!.body as string)).toEqual({
      track_points: [{ x: 7.4, y: 46.9, t: 1_772_000_000 }],
      trip: { name: 'Lunch loop', visibility: 2 },
    });
  });

  it('asks for task statuses with ids and include_objects', async () => {
    const { client, transport } = clientWith(() => jsonResponse(200, { queued_tasks: [] }));
    expect(await client.legacy.taskStatus([3, 4], { includeObjects: true })).toEqual([]);
    expect(Object.fromEntries(queryOf(transport.requests[0]!))).toMatchObject({
      ids: '3,4',
      include_objects: 'true',
    });
  });

  it('reads version-2 lists and calls a bare array a BAD_RESPONSE', async () => {
    const { client } = clientWith((_request, index) =>
      index === 0
        ? jsonResponse(200, { results: [route(1)], results_count: 7 })
        : jsonResponse(200, [route(1)]),
    );
    expect(await client.legacy.userRoutes(3, { offset: 0, limit: 1 })).toEqual({
      results: [route(1)],
      results_count: 7,
    });
    await expect(client.legacy.userTrips(3)).rejects.toMatchObject({ code: ClientErrorCode.BAD_RESPONSE });
  });
});

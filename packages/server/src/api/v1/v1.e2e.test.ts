/**
 * The v1 resources against a real listening server, over HTTP with undici (issue 4, "Tests and
 * figures"): an auth token got with email and password, then the library read page by page through
 * next_page_url, a trip with its points, a delete, and sync.json seeing the delete.
 */
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../../test/support/corpus.js';
import { storeFile } from '../../test-support/assets.js';
import { createPerson, testServer, type Person, type TestServer } from '../../test-support/server.js';

let server: TestServer;
let origin: string;
let rider: Person;
let apiKey: string;

beforeEach(async () => {
  // The server's absolute URLs must name the address it listens on: listen first on a free port,
  // then build the server for that address.
  const probe = await testServer();
  await probe.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = probe.app.server.address() as AddressInfo;
  await probe.close();
  origin = `http://127.0.0.1:${port}`;
  server = await testServer({ baseUrl: origin });
  await server.app.listen({ host: '127.0.0.1', port });
  rider = await createPerson(server, 'Anna Rider');
  apiKey = (await server.store.apiClients.create(rider.id, { name: 'Sync' })).apiKey;
});
afterEach(async () => {
  await server.close();
});

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: unknown }> {
  const response = await request(url.startsWith('http') ? url : `${origin}${url}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    json: text === '' ? null : (JSON.parse(text) as unknown),
  };
}

describe('v1 over a real socket', () => {
  it('signs in, pages through the library, shows a trip, deletes it, and sync.json says so', async () => {
    const token = await call(
      'POST',
      '/api/v1/auth_tokens.json',
      { 'x-service-api-key': apiKey },
      {
        user: { email: rider.email, password: rider.password },
      },
    );
    expect(token.status).toBe(201);
    const authToken = (token.json as { auth_token: { auth_token: string } }).auth_token.auth_token;
    const headers = { authorization: `Basic ${Buffer.from(`${apiKey}:${authToken}`).toString('base64')}` };

    const stored = [];
    for (let i = 0; i < 25; i++) {
      server.clock.advance(1000);
      stored.push(
        ...(await storeFile(server, rider.id, readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx')),
      );
    }
    const seen: number[] = [];
    let next: string | null = `${origin}/api/v1/trips.json?page_size=20`;
    while (next !== null) {
      const page = await call('GET', next, headers);
      expect(page.status).toBe(200);
      expect(page.headers['x-service-datetime']).toMatch(/Z$/);
      const body = page.json as {
        trips: Array<{ id: number }>;
        meta: { pagination: { next_page_url: string | null } };
      };
      seen.push(...body.trips.map((trip) => trip.id));
      next = body.meta.pagination.next_page_url;
    }
    // Newest change first, every trip exactly once.
    expect(seen).toEqual(stored.map((asset) => asset.row.id).reverse());

    const trip = await call('GET', `/api/v1/trips/${seen[0]!}.json`, headers);
    expect(trip.status).toBe(200);
    const record = (trip.json as { trip: { url: string; track_points: unknown[] } }).trip;
    expect(record.url).toBe(`${origin}/api/v1/trips/${seen[0]!}.json`);
    expect(record.track_points).toHaveLength(30);

    const since = new Date(server.clock.now).toISOString();
    server.clock.advance(1000);
    expect((await call('DELETE', `/api/v1/trips/${seen[0]!}.json`, headers)).status).toBe(204);
    expect((await call('GET', `/api/v1/trips/${seen[0]!}.json`, headers)).status).toBe(404);
    const sync = await call(
      'GET',
      `/api/v1/sync.json?since=${encodeURIComponent(since)}&assets=trips`,
      headers,
    );
    expect(sync.status).toBe(200);
    expect((sync.json as { items: Array<{ item_id: number; action: string }> }).items).toEqual([
      expect.objectContaining({ item_type: 'trip', item_id: seen[0], action: 'deleted' }),
    ]);
  });
});

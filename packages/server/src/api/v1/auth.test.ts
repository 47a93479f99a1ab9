import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from '../../test-support/server.js';

let server: TestServer;
let rider: Person;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
});
afterEach(async () => {
  await server.close();
});

describe('POST /api/v1/auth_tokens.json', () => {
  it('answers 201 with the token record and the nested user; the token then works', async () => {
    const { apiKey } = await credentialsFor(server, rider);
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth_tokens.json',
      headers: { 'x-service-api-key': apiKey },
      payload: { user: { email: rider.email, password: rider.password } },
    });
    expect(response.statusCode).toBe(201);
    const { auth_token: record } = response.json<{
      auth_token: Record<string, unknown> & { user: Record<string, unknown> };
    }>();
    expect(record).toMatchObject({
      api_key: apiKey,
      created_at: '2026-03-01T12:00:00Z',
      updated_at: '2026-03-01T12:00:00Z',
    });
    expect(record.auth_token).toMatch(/^[\w-]{43}$/);
    expect(record.user).toEqual({
      id: rider.id,
      name: 'Anna Rider',
      display_name: 'Anna Rider',
      first_name: null,
      last_name: null,
      email: rider.email,
      created_at: '2026-03-01T12:00:00Z',
      updated_at: '2026-03-01T12:00:00Z',
    });
    expect(response.headers['x-service-datetime']).toBe('2026-03-01T12:00:00Z');

    const current = await server.app.inject({
      url: '/api/v1/users/current.json',
      headers: { 'x-service-api-key': apiKey, 'x-service-auth-token': record.auth_token as string },
    });
    expect(current.statusCode).toBe(200);
    expect(current.json<{ user: { id: number } }>().user.id).toBe(rider.id);
  });

  it('answers 401 without telling whether the email exists', async () => {
    const { apiKey } = await credentialsFor(server, rider);
    const wrongPassword = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth_tokens.json',
      headers: { 'x-service-api-key': apiKey },
      payload: { user: { email: rider.email, password: 'wrong' } },
    });
    const unknownEmail = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth_tokens.json',
      headers: { 'x-service-api-key': apiKey },
      payload: { user: { email: 'nobody@example.com', password: 'wrong' } },
    });
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknownEmail.statusCode).toBe(401);
    expect(wrongPassword.json()).toEqual(unknownEmail.json());
  });

  it('answers 401 for a missing or unknown API key, 400 naming a missing field', async () => {
    const body = { user: { email: rider.email, password: rider.password } };
    const none = await server.app.inject({ method: 'POST', url: '/api/v1/auth_tokens.json', payload: body });
    expect(none.statusCode).toBe(401);
    const unknown = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth_tokens.json',
      headers: { 'x-service-api-key': 'nope' },
      payload: body,
    });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toEqual({ errors: ['unknown API key'], error_codes: ['SERVER_NOT_AUTHORIZED'] });
    const { apiKey } = await credentialsFor(server, rider);
    const missing = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth_tokens.json',
      headers: { 'x-service-api-key': apiKey },
      payload: { user: { email: rider.email } },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      errors: ['password is required'],
      error_codes: ['SERVER_MISSING_FIELD'],
    });
  });
});

describe('GET /api/v1/users/current.json', () => {
  it('accepts Basic, the header pair, and the path without .json', async () => {
    const credentials = await credentialsFor(server, rider);
    for (const [url, headers] of [
      ['/api/v1/users/current.json', { authorization: credentials.basic }],
      ['/api/v1/users/current', { authorization: credentials.basic }],
      [
        '/api/v1/users/current.json',
        { 'x-service-api-key': credentials.apiKey, 'x-service-auth-token': credentials.authToken },
      ],
    ] as const) {
      const response = await server.app.inject({ url, headers });
      expect(response.statusCode, url).toBe(200);
      expect(response.json()).toMatchObject({ user: { id: rider.id, email: rider.email } });
    }
  });

  it('answers 401 without credentials, with a bad token, and with an expired one (saying to log in again)', async () => {
    const credentials = await credentialsFor(server, rider);
    expect((await server.app.inject({ url: '/api/v1/users/current.json' })).statusCode).toBe(401);
    const bad = await server.app.inject({
      url: '/api/v1/users/current.json',
      headers: { 'x-service-api-key': credentials.apiKey, 'x-service-auth-token': 'not-a-token' },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({
      errors: ['the auth token is invalid: log in again to get a new one'],
      error_codes: ['SERVER_NOT_AUTHORIZED'],
    });
    server.clock.advance(31 * 24 * 60 * 60 * 1000);
    const expired = await server.app.inject({
      url: '/api/v1/users/current.json',
      headers: { authorization: credentials.basic },
    });
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual({
      errors: ['the auth token has expired: log in again to get a new one'],
      error_codes: ['SERVER_NOT_AUTHORIZED'],
    });
  });

  it('keeps a token in use alive past the lifetime counted from its creation', async () => {
    const credentials = await credentialsFor(server, rider);
    for (let day = 0; day < 40; day += 10) {
      server.clock.advance(10 * 24 * 60 * 60 * 1000);
      const response = await server.app.inject({
        url: '/api/v1/users/current.json',
        headers: { authorization: credentials.basic },
      });
      expect(response.statusCode).toBe(200);
    }
  });

  it("rejects another client's token and a malformed Authorization header", async () => {
    const mine = await credentialsFor(server, rider);
    const other = await credentialsFor(server, rider);
    const crossed = await server.app.inject({
      url: '/api/v1/users/current.json',
      headers: { 'x-service-api-key': other.apiKey, 'x-service-auth-token': mine.authToken },
    });
    expect(crossed.statusCode).toBe(401);
    const malformed = await server.app.inject({
      url: '/api/v1/users/current.json',
      headers: { authorization: 'Token abc' },
    });
    expect(malformed.statusCode).toBe(401);
  });
});

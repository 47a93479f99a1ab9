/**
 * Legacy users (docs/integrators/api.md, "Legacy authentication"; docs/contributors/decisions.md §5): the login through
 * `GET /users/current.json`, and any user's public profile through `GET /users/{id}.json`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, jsonOf, legacy, legacySetup, type LegacySetup } from '../test-support/legacy.js';
import { testServer, type TestServer } from '../test-support/server.js';

let server: TestServer;
let setup: LegacySetup;

beforeEach(async () => {
  server = await testServer();
  setup = await legacySetup(server);
});
afterEach(async () => {
  await server.close();
});

interface LoginAnswer {
  user: {
    id: number;
    email: string;
    name: string;
    created_at: string;
    updated_at: string;
    auth_token: string;
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

describe('GET /users/current.json', () => {
  it('logs in with email and password: the user with a new auth token, which then works', async () => {
    const response = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: setup.apiKey, email: setup.alice.email, password: setup.alice.password, version: 2 },
    });
    expect(response.status).toBe(200);
    const { user } = jsonOf<LoginAnswer>(response);
    expect(user.auth_token).toMatch(/^\S{32,}$/);
    expect(user).toEqual({
      id: setup.alice.id,
      email: setup.alice.email,
      name: 'Alice Rider',
      display_name: 'Alice Rider',
      first_name: null,
      last_name: null,
      created_at: '2026-03-01T12:00:00Z',
      updated_at: '2026-03-01T12:00:00Z',
      auth_token: user.auth_token,
    });
    // A new token each login, not the one the account already had.
    expect(user.auth_token).not.toBe(setup.alice.authToken);
    const again = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: setup.apiKey, email: setup.alice.email, password: setup.alice.password },
    });
    expect(jsonOf<LoginAnswer>(again).user.auth_token).not.toBe(user.auth_token);

    const withToken = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: setup.apiKey, auth_token: user.auth_token },
    });
    expect(withToken.status).toBe(200);
    expect(jsonOf<LoginAnswer>(withToken)).toEqual({ user });
  });

  it('answers the same user object with an auth token, carrying the token sent', async () => {
    const response = await legacy(server, {
      url: '/users/current.js',
      query: { apikey: setup.apiKey, auth_token: setup.bob.authToken, callback: 'onLogin' },
    });
    expect(response.status).toBe(200);
    expect(response.callback).toBe('onLogin');
    expect(jsonOf<LoginAnswer>(response).user).toMatchObject({
      id: setup.bob.id,
      email: setup.bob.email,
      auth_token: setup.bob.authToken,
    });
  });

  it('binds the new token to the API client that logged in', async () => {
    const other = await server.store.apiClients.create(setup.bob.id, { name: 'Another app' });
    const login = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: other.apiKey, email: setup.alice.email, password: setup.alice.password },
    });
    const token = jsonOf<LoginAnswer>(login).user.auth_token;
    const elsewhere = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: setup.apiKey, auth_token: token },
    });
    expect(elsewhere.status).toBe(401);
    expect(errorOf(elsewhere)).toMatch(/log in again/);
  });

  it('answers a failed login with 401 saying to log in again, the same for an unknown email', async () => {
    const wrongPassword = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: setup.apiKey, email: setup.alice.email, password: 'wrong' },
    });
    const unknownEmail = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: setup.apiKey, email: 'nobody@example.com', password: 'wrong' },
    });
    for (const response of [wrongPassword, unknownEmail]) {
      expect(response.status).toBe(401);
      expect(errorOf(response)).toBe('invalid email or password: log in again');
    }
    const noPassword = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: setup.apiKey, email: setup.alice.email },
    });
    expect(noPassword.status).toBe(401);
    expect(errorOf(noPassword)).toMatch(/log in again/);
  });

  it('answers 401 without user credentials, and for an expired token, saying to log in again', async () => {
    const anonymous = await legacy(server, { url: '/users/current.json', query: { apikey: setup.apiKey } });
    expect(anonymous.status).toBe(401);
    expect(errorOf(anonymous)).toMatch(/log in again/);

    server.clock.advance(31 * DAY_MS);
    const expired = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: setup.apiKey, auth_token: setup.alice.authToken },
    });
    expect(expired.status).toBe(401);
    expect(errorOf(expired)).toBe('the auth token has expired: log in again to get a new one');
    // Logging in again gives a working token.
    const login = await legacy(server, {
      url: '/users/current.json',
      query: { apikey: setup.apiKey, email: setup.alice.email, password: setup.alice.password },
    });
    expect(login.status).toBe(200);
  });

  it('throttles an account after repeated failed logins (429 with Retry-After)', async () => {
    const attempt = (password: string) =>
      legacy(server, {
        url: '/users/current.json',
        query: { apikey: setup.apiKey, email: setup.alice.email, password },
      });
    for (let i = 0; i < 10; i++) expect((await attempt('wrong')).status).toBe(401);
    const throttled = await attempt(setup.alice.password);
    expect(throttled.status).toBe(429);
    expect(throttled.headers['retry-after']).toEqual(expect.any(String));
    expect(errorOf(throttled)).toMatch(/too many failed sign-ins/);
  });
});

describe('GET /users/{id}.json', () => {
  it("shows another user's public profile without the email, to anyone with an API key", async () => {
    const expected = {
      user: {
        id: setup.bob.id,
        name: 'Bob Rider',
        display_name: 'Bob Rider',
        first_name: null,
        last_name: null,
        created_at: '2026-03-01T12:00:00Z',
        updated_at: '2026-03-01T12:00:00Z',
      },
    };
    const signedIn = await legacy(server, {
      url: `/users/${setup.bob.id}.json`,
      query: { apikey: setup.apiKey, auth_token: setup.alice.authToken },
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.json).toEqual(expected);
    const anonymous = await legacy(server, {
      url: `/users/${setup.bob.id}.js`,
      query: { apikey: setup.apiKey },
    });
    expect(anonymous.status).toBe(200);
    expect(anonymous.json).toEqual(expected);
  });

  it('includes the email when the caller is that user', async () => {
    const response = await legacy(server, {
      url: `/users/${setup.alice.id}.json`,
      query: { apikey: setup.apiKey, auth_token: setup.alice.authToken },
    });
    expect(jsonOf<LoginAnswer>(response).user.email).toBe(setup.alice.email);
  });

  it('shows an organization as a user without an email', async () => {
    const club = await server.store.users.createOrganization('Allmend Riders', setup.alice.id);
    const response = await legacy(server, { url: `/users/${club.id}.json`, query: { apikey: setup.apiKey } });
    expect(response.status).toBe(200);
    expect(jsonOf<{ user: Record<string, unknown> }>(response).user).toMatchObject({
      id: club.id,
      name: 'Allmend Riders',
    });
    expect(jsonOf<{ user: Record<string, unknown> }>(response).user).not.toHaveProperty('email');
  });

  it('answers 404 for an unknown user and 400 for an id that is not a whole number from 1 up', async () => {
    const unknown = await legacy(server, { url: '/users/999.json', query: { apikey: setup.apiKey } });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'user 999 not found' });
    for (const id of ['abc', '0', '-3', '1.5', '12345678901234567890', 'Infinity', '1e309']) {
      const response = await legacy(server, { url: `/users/${id}.json`, query: { apikey: setup.apiKey } });
      expect(response.status, id).toBe(400);
      expect(errorOf(response)).toBe(
        'the user id in the path must be a whole number from 1 to 9007199254740991',
      );
    }
  });

  it('answers 401 for a bad auth token even though the profile is public', async () => {
    const response = await legacy(server, {
      url: `/users/${setup.bob.id}.json`,
      query: { apikey: setup.apiKey, auth_token: 'expired-or-made-up' },
    });
    expect(response.status).toBe(401);
    expect(errorOf(response)).toMatch(/log in again/);
  });
});

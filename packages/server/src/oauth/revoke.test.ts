import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../store/index.js';
import { createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';

let server: TestServer;
let rider: Person;
let client: ApiClient;
let secret: string;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
  client = await server.store.apiClients.create(rider.id, { name: 'Ride Planner', redirectUris: [] });
  secret = server.store.apiClients.secretOf(client);
});
afterEach(async () => {
  await server.close();
});

/** An access token issued through the data layer, as the token endpoint does (see token.test.ts). */
async function accessToken(forClient: ApiClient = client): Promise<string> {
  const { token } = await server.store.oauth.issueToken(forClient.id, rider.id, null, 'user');
  return token;
}

function revoke(
  body: Record<string, string>,
  options: { url?: string; form?: boolean; headers?: Record<string, string> } = {},
) {
  const { url = '/oauth/revoke.json', form = false, headers = {} } = options;
  return server.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
    payload: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
  });
}

async function bearerStatus(token: string): Promise<number> {
  const response = await server.app.inject({
    url: '/api/v1/users/current.json',
    headers: { authorization: `Bearer ${token}` },
  });
  return response.statusCode;
}

describe('POST /oauth/revoke(.json)', () => {
  it('revokes a token of the client: 200 {} and the token then gets 401', async () => {
    const token = await accessToken();
    expect(await bearerStatus(token)).toBe(200);
    const response = await revoke({ client_id: client.apiKey, client_secret: secret, token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({});
    expect(await bearerStatus(token)).toBe(401);
    // Revoking it again, or an unknown token, is still 200 {} (RFC 7009 §2.2).
    for (const again of [token, 'never-issued']) {
      const repeat = await revoke({ client_id: client.apiKey, client_secret: secret, token: again });
      expect(repeat.statusCode).toBe(200);
      expect(repeat.json()).toEqual({});
    }
  });

  it('takes a form body, the path without .json, and client credentials by HTTP Basic', async () => {
    const first = await accessToken();
    const form = await revoke(
      { client_id: client.apiKey, client_secret: secret, token: first },
      { url: '/oauth/revoke', form: true },
    );
    expect(form.statusCode).toBe(200);
    expect(await bearerStatus(first)).toBe(401);
    const second = await accessToken();
    const basic = await revoke(
      { token: second, token_type_hint: 'access_token' },
      { headers: { authorization: `Basic ${Buffer.from(`${client.apiKey}:${secret}`).toString('base64')}` } },
    );
    expect(basic.statusCode).toBe(200);
    expect(await bearerStatus(second)).toBe(401);
  });

  it("refuses another client's live token with 400 unauthorized_client (RFC 7009 §2.1), revoking nothing", async () => {
    const other = await server.store.apiClients.create(rider.id, { name: 'Other' });
    const theirs = await accessToken(other);
    const response = await revoke({ client_id: client.apiKey, client_secret: secret, token: theirs });
    expect(response.statusCode).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    const description =
      'Unauthorized client: the token was not issued to this client, which may revoke only its own tokens';
    expect(response.json()).toEqual({
      error: 'unauthorized_client',
      error_description: description,
      errors: [description],
    });
    expect(await bearerStatus(theirs)).toBe(200);
    // Once revoked by its own client, it is an invalid token like any other: 200 (RFC 7009 §2.2).
    const ownSecret = server.store.apiClients.secretOf(other);
    expect(
      (await revoke({ client_id: other.apiKey, client_secret: ownSecret, token: theirs })).statusCode,
    ).toBe(200);
    const again = await revoke({ client_id: client.apiKey, client_secret: secret, token: theirs });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({});
  });

  it('answers 401 invalid_client for wrong, missing or unknown client credentials, revoking nothing', async () => {
    const token = await accessToken();
    for (const body of [
      { client_id: client.apiKey, client_secret: 'wrong', token },
      { client_id: client.apiKey, token },
      { client_id: 'unknown', client_secret: secret, token },
      { token },
    ]) {
      const response = await revoke(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(401);
      expect(response.json()).toEqual({
        error: 'invalid_client',
        error_description: 'Invalid client: client is invalid',
        errors: ['Invalid client: client is invalid'],
      });
    }
    const badBasic = await revoke({ token }, { headers: { authorization: 'Basic %%%' } });
    expect(badBasic.statusCode).toBe(401);
    expect(await bearerStatus(token)).toBe(200);
  });

  it('answers 400 invalid_request without a token, or with a body that is not an object', async () => {
    const missing = await revoke({ client_id: client.apiKey, client_secret: secret });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      error: 'invalid_request',
      error_description: 'Missing parameter: `token`',
      errors: ['Missing parameter: `token`'],
    });
    const array = await server.app.inject({
      method: 'POST',
      url: '/oauth/revoke.json',
      headers: { 'content-type': 'application/json' },
      payload: '["token"]',
    });
    expect(array.statusCode).toBe(400);
    expect(array.json()).toMatchObject({ error: 'invalid_request' });
  });
});

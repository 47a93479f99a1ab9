import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../store/index.js';
import { Browser, csrfTokenIn } from '../test-support/browser.js';
import {
  createPerson,
  START_TIME,
  testServer,
  type Person,
  type TestServer,
} from '../test-support/server.js';

const REDIRECT_URI = 'https://app.example.com/callback';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

let server: TestServer;
let rider: Person;
let client: ApiClient;
let secret: string;
let browser: Browser;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
  const owner = await createPerson(server, 'App Developer');
  client = await server.store.apiClients.create(owner.id, {
    name: 'Ride Planner',
    redirectUris: [REDIRECT_URI],
  });
  secret = server.store.apiClients.secretOf(client);
  browser = new Browser(server.app);
  expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
});
afterEach(async () => {
  await server.close();
});

/** A code from the real authorize flow: the consent page, then Approve. */
async function authorizeCode(
  extra: Record<string, string> = {},
  forClient: ApiClient = client,
): Promise<string> {
  const params = new URLSearchParams({
    client_id: forClient.apiKey,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    ...extra,
  });
  const page = await browser.get(`/oauth/authorize?${params.toString()}`);
  expect(page.statusCode).toBe(200);
  const response = await browser.post('/oauth/authorize', {
    ...Object.fromEntries(params),
    _csrf: csrfTokenIn(page.body),
    decision: 'approve',
  });
  expect(response.statusCode).toBe(302);
  return new URL(response.headers.location as string).searchParams.get('code')!;
}

function exchange(
  body: Record<string, string>,
  options: { url?: string; form?: boolean; headers?: Record<string, string> } = {},
) {
  const { url = '/oauth/token.json', form = false, headers = {} } = options;
  return server.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json', ...headers },
    payload: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
  });
}

const tokenRequest = (code: string, extra: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code,
  client_id: client.apiKey,
  client_secret: secret,
  redirect_uri: REDIRECT_URI,
  ...extra,
});

async function currentUserStatus(accessToken: string): Promise<number> {
  const response = await server.app.inject({
    url: '/api/v1/users/current.json',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return response.statusCode;
}

describe('POST /oauth/token(.json): success', () => {
  it('answers the token (JSON body) with exactly the specified fields, and it works as Bearer', async () => {
    server.clock.advance(90_500);
    const response = await exchange(tokenRequest(await authorizeCode()));
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json<Record<string, unknown>>();
    expect(Object.keys(body).sort()).toEqual([
      'access_token',
      'created_at',
      'scope',
      'token_type',
      'user_id',
    ]);
    expect(body).toMatchObject({
      token_type: 'Bearer',
      scope: 'user',
      created_at: Math.floor((START_TIME + 90_500) / 1000),
      user_id: rider.id,
    });
    expect(body.access_token).toMatch(/^[\w-]{43}$/);
    expect(await currentUserStatus(body.access_token as string)).toBe(200);
  });

  it('takes a form body and the path without .json, and client credentials by HTTP Basic', async () => {
    const form = await exchange(tokenRequest(await authorizeCode()), { url: '/oauth/token', form: true });
    expect(form.statusCode).toBe(200);
    const basic = await exchange(
      { grant_type: 'authorization_code', code: await authorizeCode(), redirect_uri: REDIRECT_URI },
      {
        form: true,
        headers: { authorization: `Basic ${Buffer.from(`${client.apiKey}:${secret}`).toString('base64')}` },
      },
    );
    expect(basic.statusCode).toBe(200);
    expect(basic.json()).toMatchObject({ token_type: 'Bearer', user_id: rider.id });
  });

  it('checks PKCE: the right verifier works, a wrong or missing one fails with invalid_grant', async () => {
    const pkce = { code_challenge: CHALLENGE, code_challenge_method: 'S256' };
    const right = await exchange(tokenRequest(await authorizeCode(pkce), { code_verifier: VERIFIER }));
    expect(right.statusCode).toBe(200);

    const wrong = await exchange(
      tokenRequest(await authorizeCode(pkce), { code_verifier: `${VERIFIER.slice(0, -1)}Y` }),
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid grant: code verifier is invalid',
      errors: ['Invalid grant: code verifier is invalid'],
    });

    const missing = await exchange(tokenRequest(await authorizeCode(pkce)));
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: 'Missing parameter: `code_verifier`',
    });

    // A verifier for a code that had no challenge is refused too.
    const unexpected = await exchange(tokenRequest(await authorizeCode(), { code_verifier: VERIFIER }));
    expect(unexpected.statusCode).toBe(400);
    expect(unexpected.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('POST /oauth/token(.json): the code', () => {
  it('is single-use: a replay fails and revokes the token issued from it', async () => {
    const code = await authorizeCode();
    const first = await exchange(tokenRequest(code));
    expect(first.statusCode).toBe(200);
    const accessToken = first.json<{ access_token: string }>().access_token;
    expect(await currentUserStatus(accessToken)).toBe(200);

    const replay = await exchange(tokenRequest(code));
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid grant: authorization code has already been used',
      errors: ['Invalid grant: authorization code has already been used'],
    });
    expect(await currentUserStatus(accessToken)).toBe(401);
  });

  it('expires after 10 minutes on the server clock', async () => {
    const code = await authorizeCode();
    server.clock.advance(11 * 60 * 1000);
    const response = await exchange(tokenRequest(code));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: 'Invalid grant: authorization code has expired',
    });
    const justInTime = await authorizeCode();
    server.clock.advance(10 * 60 * 1000 - 1);
    expect((await exchange(tokenRequest(justInTime))).statusCode).toBe(200);
  });

  it('is bound to its client and its redirect URI (invalid_grant), and an unknown code is invalid_grant', async () => {
    const other = await server.store.apiClients.create(rider.id, {
      name: 'Other',
      redirectUris: [REDIRECT_URI],
    });
    const otherSecret = server.store.apiClients.secretOf(other);
    const stolen = await exchange(
      tokenRequest(await authorizeCode(), { client_id: other.apiKey, client_secret: otherSecret }),
    );
    expect(stolen.statusCode).toBe(400);
    expect(stolen.json()).toMatchObject({ error: 'invalid_grant' });

    const elsewhere = await exchange(
      tokenRequest(await authorizeCode(), { redirect_uri: 'https://app.example.com/other' }),
    );
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: 'Invalid grant: `redirect_uri` does not match the one of the authorization request',
    });

    const noRedirect = await exchange(tokenRequest(await authorizeCode(), { redirect_uri: '' }));
    expect(noRedirect.statusCode).toBe(400);
    expect(noRedirect.json()).toMatchObject({
      error: 'invalid_request',
      error_description: 'Missing parameter: `redirect_uri`',
    });

    const unknown = await exchange(tokenRequest('not-a-code'));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: 'Invalid grant: authorization code is invalid',
    });
  });
});

describe('POST /oauth/token(.json): client authentication', () => {
  it('answers 401 invalid_client for a wrong or missing secret or an unknown client, even with PKCE', async () => {
    const code = await authorizeCode({ code_challenge: CHALLENGE, code_challenge_method: 'S256' });
    for (const body of [
      tokenRequest(code, { client_secret: 'wrong', code_verifier: VERIFIER }),
      tokenRequest(code, { client_id: 'unknown', code_verifier: VERIFIER }),
      {
        grant_type: 'authorization_code',
        code,
        client_id: client.apiKey,
        redirect_uri: REDIRECT_URI,
        code_verifier: VERIFIER,
      },
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
    ]) {
      const response = await exchange(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Basic realm="Rideport OAuth"');
      const error = response.json<{ error: string; error_description: string; errors: string[] }>();
      expect(error.error).toBe('invalid_client');
      expect(error.errors).toEqual([error.error_description]);
    }
    // The code was not spent by the failed attempts.
    expect((await exchange(tokenRequest(code, { code_verifier: VERIFIER }))).statusCode).toBe(200);
  });
});

describe('POST /oauth/token(.json): malformed requests', () => {
  it('answers unsupported_grant_type for any grant but authorization_code', async () => {
    for (const grantType of ['password', 'client_credentials', 'refresh_token', 'urn:example:other']) {
      const response = await exchange({
        grant_type: grantType,
        client_id: client.apiKey,
        client_secret: secret,
      });
      expect(response.statusCode, grantType).toBe(400);
      expect(response.json(), grantType).toMatchObject({ error: 'unsupported_grant_type' });
    }
  });

  it('answers invalid_request for a missing code or grant_type, a repeated field, bad JSON or another body type', async () => {
    const missingCode = await exchange({
      grant_type: 'authorization_code',
      client_id: client.apiKey,
      client_secret: secret,
    });
    expect(missingCode.statusCode).toBe(400);
    expect(missingCode.json()).toEqual({
      error: 'invalid_request',
      error_description: 'Missing parameter: `code`',
      errors: ['Missing parameter: `code`'],
    });
    const missingGrant = await exchange({ client_id: client.apiKey, client_secret: secret });
    expect(missingGrant.json()).toMatchObject({
      error: 'invalid_request',
      error_description: 'Missing parameter: `grant_type`',
    });

    const repeated = await server.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=authorization_code&code=a&code=b&client_id=${client.apiKey}&client_secret=${secret}`,
    });
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json()).toMatchObject({ error: 'invalid_request' });

    const badJson = await server.app.inject({
      method: 'POST',
      url: '/oauth/token.json',
      headers: { 'content-type': 'application/json' },
      payload: '{"grant_type":',
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json()).toMatchObject({ error: 'invalid_request' });

    const text = await server.app.inject({
      method: 'POST',
      url: '/oauth/token.json',
      headers: { 'content-type': 'text/plain' },
      payload: 'grant_type=authorization_code',
    });
    expect(text.statusCode).toBe(400);
    expect(text.json()).toMatchObject({
      error: 'invalid_request',
      error_description: 'Invalid request: the body must be application/x-www-form-urlencoded or JSON',
    });
  });
});

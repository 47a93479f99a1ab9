/**
 * Security properties of issue 4, in one place: one user's credentials never reach another user's
 * private assets; revoked and expired credentials fail; a replayed code fails and takes its tokens
 * with it; an unregistered redirect URI never redirects; a form post without its CSRF token fails;
 * secrets are compared in constant time and never in plain text.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../test/support/corpus.js';
import { constantTimeEqual } from './security/secrets.js';
import { storeFile } from './test-support/assets.js';
import { Browser, csrfTokenIn, hiddenFieldIn } from './test-support/browser.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from './test-support/server.js';

let server: TestServer;
let anna: Person;
let bert: Person;

beforeEach(async () => {
  server = await testServer();
  anna = await createPerson(server, 'Anna');
  bert = await createPerson(server, 'Bert');
});
afterEach(async () => {
  await server.close();
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** Anna's ride (private by default), and her public route. */
async function annasAssets(): Promise<{ tripId: number; routeId: number }> {
  const [trip] = await storeFile(server, anna.id, readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
  const [route] = await storeFile(server, anna.id, readFixture('kml', 'linestrings.kml'), 'linestrings.kml', {
    visibility: 'public',
  });
  expect([trip?.type, route?.type]).toEqual(['trip', 'route']);
  return { tripId: trip!.row.id, routeId: route!.row.id };
}

/** Bert's credentials of every kind: an auth token (Basic) and an OAuth access token (Bearer). */
async function bertsHeaders(): Promise<Array<[string, Record<string, string>]>> {
  const credentials = await credentialsFor(server, bert);
  const { token } = await server.store.oauth.issueToken(credentials.client.id, bert.id, null, 'user');
  return [
    ['Basic', { authorization: credentials.basic }],
    [
      'header pair',
      { 'x-service-api-key': credentials.apiKey, 'x-service-auth-token': credentials.authToken },
    ],
    ['Bearer', { authorization: `Bearer ${token}` }],
  ];
}

describe("one user's credentials and another user's assets", () => {
  it("never read, list or delete another user's private trip", async () => {
    const { tripId } = await annasAssets();
    for (const [scheme, headers] of await bertsHeaders()) {
      const show = await server.app.inject({ url: `/api/v1/trips/${tripId}.json`, headers });
      expect(show.statusCode, scheme).toBe(403);
      expect(show.body, scheme).not.toContain('track_points');
      const list = await server.app.inject({ url: '/api/v1/trips.json', headers });
      expect(list.statusCode, scheme).toBe(200);
      expect(list.json<{ trips: unknown[] }>().trips, scheme).toEqual([]);
      const remove = await server.app.inject({
        method: 'DELETE',
        url: `/api/v1/trips/${tripId}.json`,
        headers,
      });
      expect(remove.statusCode, scheme).toBe(403);
    }
    const annas = await credentialsFor(server, anna);
    const own = await server.app.inject({
      url: `/api/v1/trips/${tripId}.json`,
      headers: { authorization: annas.basic },
    });
    expect(own.statusCode).toBe(200);
  });

  it('read a public route but never delete it', async () => {
    const { routeId } = await annasAssets();
    for (const [scheme, headers] of await bertsHeaders()) {
      const show = await server.app.inject({ url: `/api/v1/routes/${routeId}.json`, headers });
      expect(show.statusCode, scheme).toBe(200);
      const remove = await server.app.inject({
        method: 'DELETE',
        url: `/api/v1/routes/${routeId}.json`,
        headers,
      });
      expect(remove.statusCode, scheme).toBe(403);
    }
    expect(await server.store.assets.find('route', routeId)).toBeDefined();
  });
});

describe('revoked and expired credentials', () => {
  it('a revoked OAuth token fails at once; an expired or revoked auth token fails', async () => {
    const credentials = await credentialsFor(server, anna);
    const secret = server.store.apiClients.secretOf(credentials.client);
    const { token } = await server.store.oauth.issueToken(credentials.client.id, anna.id, null, 'user');
    const bearer = { authorization: `Bearer ${token}` };
    expect((await server.app.inject({ url: '/api/v1/users/current.json', headers: bearer })).statusCode).toBe(
      200,
    );
    const revoke = await server.app.inject({
      method: 'POST',
      url: '/oauth/revoke.json',
      payload: { client_id: credentials.apiKey, client_secret: secret, token },
    });
    expect(revoke.statusCode).toBe(200);
    expect((await server.app.inject({ url: '/api/v1/users/current.json', headers: bearer })).statusCode).toBe(
      401,
    );

    const basic = { authorization: credentials.basic };
    server.clock.advance(30 * DAY_MS + 1000);
    const expired = await server.app.inject({ url: '/api/v1/users/current.json', headers: basic });
    expect(expired.statusCode).toBe(401);
    expect(expired.json<{ errors: string[] }>().errors[0]).toMatch(/expired: log in again/);

    const { row, token: authToken } = await server.store.authTokens.issue(anna.id, credentials.client.id);
    const headers = { 'x-service-api-key': credentials.apiKey, 'x-service-auth-token': authToken };
    expect((await server.app.inject({ url: '/api/v1/users/current.json', headers })).statusCode).toBe(200);
    await server.store.authTokens.revoke(row.id);
    const revoked = await server.app.inject({ url: '/api/v1/users/current.json', headers });
    expect(revoked.statusCode).toBe(401);
  });

  it('a wrong client secret cannot revoke or exchange', async () => {
    const credentials = await credentialsFor(server, anna);
    const { token } = await server.store.oauth.issueToken(credentials.client.id, anna.id, null, 'user');
    const revoke = await server.app.inject({
      method: 'POST',
      url: '/oauth/revoke.json',
      payload: { client_id: credentials.apiKey, client_secret: 'guess', token },
    });
    expect(revoke.statusCode).toBe(401);
    const stillLive = await server.app.inject({
      url: '/api/v1/users/current.json',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(stillLive.statusCode).toBe(200);
  });
});

/** Signs Anna in and approves `query` on the consent page; returns the redirect's Location. */
async function approve(browser: Browser, query: Record<string, string>): Promise<string> {
  const url = `/oauth/authorize?${new URLSearchParams(query).toString()}`;
  const signIn = await browser.get(url);
  const form = csrfTokenIn(signIn.body);
  await browser.post('/sign_in', {
    _csrf: form,
    email: anna.email,
    password: anna.password,
    return_to: hiddenFieldIn(signIn.body, 'return_to') ?? url,
  });
  const consent = await browser.get(url);
  expect(consent.statusCode).toBe(200);
  const fields: Record<string, string> = { decision: 'approve' };
  for (const match of consent.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    fields[match[1]!] = hiddenFieldIn(consent.body, match[1]!) ?? '';
  }
  const answer = await browser.post('/oauth/authorize', fields);
  expect(answer.statusCode).toBe(302);
  return answer.headers.location as string;
}

describe('OAuth codes and redirect URIs', () => {
  it('a replayed code fails and revokes the token issued from it', async () => {
    const { client, apiKey } = await credentialsFor(server, anna);
    const secret = server.store.apiClients.secretOf(client);
    const location = await approve(new Browser(server.app), {
      client_id: apiKey,
      redirect_uri: 'https://app.example.com/callback',
      response_type: 'code',
      state: 'xyz',
    });
    const code = new URL(location).searchParams.get('code')!;
    const exchange = {
      grant_type: 'authorization_code',
      code,
      client_id: apiKey,
      client_secret: secret,
      redirect_uri: 'https://app.example.com/callback',
    };
    const first = await server.app.inject({ method: 'POST', url: '/oauth/token.json', payload: exchange });
    expect(first.statusCode).toBe(200);
    const token = first.json<{ access_token: string }>().access_token;
    const replay = await server.app.inject({ method: 'POST', url: '/oauth/token.json', payload: exchange });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'invalid_grant' });
    const use = await server.app.inject({
      url: '/api/v1/users/current.json',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(use.statusCode).toBe(401);
  });

  it('never redirects to a URI that is not exactly a registered one', async () => {
    const { apiKey } = await credentialsFor(server, anna);
    const browser = new Browser(server.app);
    await browser.signIn(anna.email, anna.password);
    for (const redirectUri of [
      'https://app.example.com/callback/',
      'https://app.example.com/callback?next=1',
      'https://app.example.com/callbackx',
      'https://APP.example.com/callback',
      'http://app.example.com/callback',
      'https://app.example.com.evil.test/callback',
      'https://evil.test/?https://app.example.com/callback',
      'https://app.example.com@evil.test/callback',
      'javascript:alert(1)',
    ]) {
      const query = new URLSearchParams({
        client_id: apiKey,
        redirect_uri: redirectUri,
        response_type: 'code',
      });
      for (const response of [
        await browser.get(`/oauth/authorize?${query.toString()}`),
        await browser.post('/oauth/authorize', { ...Object.fromEntries(query), decision: 'approve' }),
      ]) {
        expect(response.statusCode, redirectUri).toBeGreaterThanOrEqual(400);
        expect(response.headers.location, redirectUri).toBeUndefined();
      }
    }
    const unknownClient = await browser.get(
      `/oauth/authorize?client_id=nope&redirect_uri=${encodeURIComponent('https://app.example.com/callback')}&response_type=code`,
    );
    expect(unknownClient.statusCode).toBe(400);
    expect(unknownClient.headers.location).toBeUndefined();
  });
});

describe('CSRF', () => {
  it('refuses every form post without a valid token, and changes nothing', async () => {
    const credentials = await credentialsFor(server, anna);
    const organization = await server.store.users.createOrganization('Club', anna.id);
    const orgClient = await server.store.apiClients.create(organization.id, { name: 'Club app' });
    const browser = new Browser(server.app);
    expect((await browser.signIn(anna.email, anna.password)).statusCode).toBe(303);
    const clientsBefore = await server.store.apiClients.listByOwner(anna.id);
    const posts: Array<[string, Record<string, string>]> = [
      ['/sign_in', { email: anna.email, password: anna.password }],
      ['/sign_out', {}],
      ['/developer/api_clients', { name: 'Sneaky', redirect_uris: 'https://evil.test/cb' }],
      [`/developer/api_clients/${credentials.client.id}`, { name: 'Renamed', redirect_uris: '' }],
      [`/developer/api_clients/${credentials.client.id}/secret`, {}],
      [`/developer/api_clients/${credentials.client.id}/delete`, {}],
      [`/organizations/${organization.id}/api_clients`, { name: 'Sneaky' }],
      [`/organizations/${organization.id}/api_clients/${orgClient.id}/auth_tokens`, {}],
      [
        '/oauth/authorize',
        {
          client_id: credentials.apiKey,
          redirect_uri: 'https://app.example.com/callback',
          response_type: 'code',
          decision: 'approve',
        },
      ],
    ];
    for (const [url, form] of posts) {
      for (const token of [undefined, 'forged-token']) {
        const response = await browser.post(url, token === undefined ? form : { ...form, _csrf: token });
        expect(response.statusCode, `${url} ${String(token)}`).toBe(403);
        expect(response.headers.location, url).toBeUndefined();
      }
    }
    // A token from another browser's session does not validate either.
    const other = new Browser(server.app);
    const foreignToken = await other.csrfTokenOf('/sign_in');
    const foreign = await browser.post('/developer/api_clients', { name: 'Sneaky', _csrf: foreignToken });
    expect(foreign.statusCode).toBe(403);

    expect(await server.store.apiClients.listByOwner(anna.id)).toEqual(clientsBefore);
    expect(await server.store.apiClients.listByOwner(organization.id)).toHaveLength(1);
    const stillSignedIn = await browser.get('/developer');
    expect(stillSignedIn.statusCode).toBe(200);
  });
});

describe('secret comparisons', () => {
  it('constantTimeEqual is string equality, for any strings', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
    );
  });

  it('no source file compares a secret, token, code or password with == or ===', () => {
    const root = fileURLToPath(new URL('.', import.meta.url));
    const offenders: string[] = [];
    const walk = (directory: string): void => {
      for (const name of readdirSync(directory)) {
        const path = join(directory, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !path.includes('test-support')) {
          readFileSync(path, 'utf8')
            .split('\n')
            .forEach((line, index) => {
              // A credential compared as text leaks how much of it matched through timing; the code must
              // look credentials up by their SHA-256 or use constantTimeEqual (security/secrets.ts).
              if (
                /\b\w*(secret|token|password|code_verifier|codeVerifier)\w*\s*[!=]==?(?!=)(?!\s*(undefined|null|''))/i.test(
                  line,
                )
              ) {
                if (!/typeof|\.length|=== '(string|bearer|basic)'|kind ===|\.kind/.test(line)) {
                  offenders.push(`${path.slice(root.length)}:${index + 1}: ${line.trim()}`);
                }
              }
            });
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});

/**
 * The whole OAuth 2.0 dance against a real listening server, over HTTP with undici, driven the way a
 * browser and a client application would (issue 4, "Tests and figures"; docs/contributors/decisions.md §3): the browser
 * keeps cookies and posts the forms it was given, with the CSRF tokens in them; the application
 * exchanges the code, uses the token, and revokes it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../store/index.js';
import { csrfTokenIn, hiddenFieldIn } from '../test-support/browser.js';
import { createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';

const REDIRECT_URI = 'https://planner.example.com/oauth/callback';

let server: TestServer;
let origin: string;
let rider: Person;
let client: ApiClient;
let clientSecret: string;

beforeEach(async () => {
  server = await testServer();
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  rider = await createPerson(server, 'Anna Rider');
  const developer = await createPerson(server, 'App Developer');
  client = await server.store.apiClients.create(developer.id, {
    name: 'Route Planner',
    redirectUris: [REDIRECT_URI],
  });
  clientSecret = server.store.apiClients.secretOf(client);
});
afterEach(async () => {
  await server.close();
});

interface Answer {
  status: number;
  location: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** A browser: a cookie jar, forms posted url-encoded, redirects left to the test to follow. */
class HttpBrowser {
  readonly #cookies = new Map<string, string>();

  get(path: string): Promise<Answer> {
    return this.#send('GET', path);
  }

  postForm(path: string, form: Record<string, string>): Promise<Answer> {
    return this.#send('POST', path, new URLSearchParams(form).toString());
  }

  async #send(method: 'GET' | 'POST', path: string, form?: string): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.#cookies.size > 0) {
      headers.cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await request(new URL(path, origin), { method, headers, body: form ?? null });
    const setCookie = response.headers['set-cookie'];
    for (const line of typeof setCookie === 'string' ? [setCookie] : (setCookie ?? [])) {
      const [pair = ''] = line.split(';');
      const equals = pair.indexOf('=');
      const name = pair.slice(0, equals).trim();
      const value = pair.slice(equals + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return {
      status: response.statusCode,
      location: header(response.headers.location),
      contentType: header(response.headers['content-type']),
      body: await response.body.text(),
    };
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The client application's server-side calls: JSON in, JSON out. */
async function postJson(
  path: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await request(new URL(path, origin), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
}

async function currentUser(accessToken: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await request(new URL('/api/v1/users/current.json', origin), {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
}

function authorizePath(params: Record<string, string>): string {
  return `/oauth/authorize?${new URLSearchParams({
    client_id: client.apiKey,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    ...params,
  }).toString()}`;
}

/** Posts the consent form in `page` with the decision, exactly as the browser would. */
function decide(browser: HttpBrowser, page: string, decision: 'approve' | 'deny'): Promise<Answer> {
  const form: Record<string, string> = { _csrf: csrfTokenIn(page), decision };
  for (const name of [
    'client_id',
    'redirect_uri',
    'response_type',
    'state',
    'code_challenge',
    'code_challenge_method',
  ]) {
    const value = hiddenFieldIn(page, name);
    if (value !== undefined) form[name] = value;
  }
  return browser.postForm('/oauth/authorize', form);
}

/** Sign in through the authorize page and approve; returns the redirect back to the application. */
async function authorizeInBrowser(
  browser: HttpBrowser,
  params: Record<string, string>,
): Promise<{ code: string; state: string | null }> {
  const signInPage = await browser.get(authorizePath(params));
  expect(signInPage.status).toBe(200);
  expect(signInPage.body).toContain('name="password"');
  const signedIn = await browser.postForm('/sign_in', {
    _csrf: csrfTokenIn(signInPage.body),
    email: rider.email,
    password: rider.password,
    return_to: hiddenFieldIn(signInPage.body, 'return_to')!,
  });
  expect(signedIn.status).toBe(303);
  const consent = await browser.get(signedIn.location!);
  expect(consent.status).toBe(200);
  const approved = await decide(browser, consent.body, 'approve');
  expect(approved.status).toBe(302);
  const back = new URL(approved.location!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
  return { code: back.searchParams.get('code')!, state: back.searchParams.get('state') };
}

const exchange = (code: string, extra: Record<string, string> = {}) =>
  postJson('/oauth/token.json', {
    grant_type: 'authorization_code',
    code,
    client_id: client.apiKey,
    client_secret: clientSecret,
    redirect_uri: REDIRECT_URI,
    ...extra,
  });

describe('the OAuth 2.0 authorization code flow over HTTP', () => {
  it('authorize → sign in → consent → approve → code → token → use → revoke → 401', async () => {
    const browser = new HttpBrowser();
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const state = `state-${randomBytes(8).toString('hex')}`;

    // 1. The application links the browser to /oauth/authorize; without a session: the sign-in form.
    const signInPage = await browser.get(
      authorizePath({ state, code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    expect(signInPage.status).toBe(200);
    expect(signInPage.contentType).toBe('text/html; charset=utf-8');
    expect(signInPage.body).toContain('<strong>Route Planner</strong>');

    // 2. The browser posts the form it got, with the cookie and the CSRF token from the page.
    const signedIn = await browser.postForm('/sign_in', {
      _csrf: csrfTokenIn(signInPage.body),
      email: rider.email,
      password: rider.password,
      return_to: hiddenFieldIn(signInPage.body, 'return_to')!,
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toMatch(/^\/oauth\/authorize\?/);

    // 3. Back on /oauth/authorize, now signed in: the consent page naming the client.
    const consent = await browser.get(signedIn.location!);
    expect(consent.status).toBe(200);
    expect(consent.body).toContain('<h1>Authorize Route Planner</h1>');

    // 4. Approve: a 302 to the redirect URI with the code and the state unchanged.
    const approved = await decide(browser, consent.body, 'approve');
    expect(approved.status).toBe(302);
    const back = new URL(approved.location!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(state);
    const code = back.searchParams.get('code')!;
    expect(code).toMatch(/^[\w-]{43}$/);

    // 5. The application exchanges the code (with its PKCE verifier).
    const token = await exchange(code, { code_verifier: verifier });
    expect(token.status).toBe(200);
    expect(token.json).toMatchObject({ token_type: 'Bearer', scope: 'user', user_id: rider.id });
    expect(token.json).not.toHaveProperty('expires_in');
    expect(token.json).not.toHaveProperty('refresh_token');
    expect(typeof token.json.created_at).toBe('number');
    const accessToken = token.json.access_token as string;

    // 6. It acts as the user.
    const me = await currentUser(accessToken);
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ user: { id: rider.id, email: rider.email } });

    // 7. It revokes the token: 200 {}; 8. the token no longer works.
    const revoked = await postJson('/oauth/revoke.json', {
      client_id: client.apiKey,
      client_secret: clientSecret,
      token: accessToken,
    });
    expect(revoked).toEqual({ status: 200, json: {} });
    expect((await currentUser(accessToken)).status).toBe(401);
  });

  it("another client cannot revoke the user's token: 400 unauthorized_client (RFC 7009 §2.1), the token still works", async () => {
    const { code } = await authorizeInBrowser(new HttpBrowser(), {});
    const accessToken = (await exchange(code)).json.access_token as string;
    const developer = await createPerson(server, 'Other Developer');
    const other = await server.store.apiClients.create(developer.id, { name: 'Other App', redirectUris: [] });
    const refused = await postJson('/oauth/revoke.json', {
      client_id: other.apiKey,
      client_secret: server.store.apiClients.secretOf(other),
      token: accessToken,
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: 'unauthorized_client' });
    expect(refused.json.error_description).toMatch(/not issued to this client/);
    expect((await currentUser(accessToken)).status).toBe(200);
  });

  it('a replayed code fails and revokes the token issued from the first exchange', async () => {
    const { code } = await authorizeInBrowser(new HttpBrowser(), {});
    const first = await exchange(code);
    expect(first.status).toBe(200);
    const accessToken = first.json.access_token as string;
    expect((await currentUser(accessToken)).status).toBe(200);

    const replay = await exchange(code);
    expect(replay.status).toBe(400);
    expect(replay.json).toMatchObject({ error: 'invalid_grant' });
    expect((await currentUser(accessToken)).status).toBe(401);
  });

  it('an unregistered redirect_uri is never redirected to, signed in or not', async () => {
    const browser = new HttpBrowser();
    const evil = authorizePath({
      redirect_uri: 'https://evil.example/steal',
      response_type: 'token',
      state: 's',
    });
    const anonymous = await browser.get(evil);
    expect(anonymous.status).toBe(400);
    expect(anonymous.location).toBeUndefined();
    expect(anonymous.body).not.toContain('evil.example');

    await authorizeInBrowser(browser, {});
    const signedIn = await browser.get(evil);
    expect(signedIn.status).toBe(400);
    expect(signedIn.location).toBeUndefined();
    // Nor when the consent form is tampered with.
    const consent = await browser.get(authorizePath({}));
    const tampered = await browser.postForm('/oauth/authorize', {
      _csrf: csrfTokenIn(consent.body),
      client_id: client.apiKey,
      redirect_uri: 'https://evil.example/steal',
      response_type: 'code',
      decision: 'approve',
    });
    expect(tampered.status).toBe(400);
    expect(tampered.location).toBeUndefined();
  });

  it('a wrong PKCE verifier fails, and spends the code', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const { code } = await authorizeInBrowser(new HttpBrowser(), {
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const wrong = await exchange(code, { code_verifier: randomBytes(32).toString('base64url') });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({
      error: 'invalid_grant',
      error_description: 'Invalid grant: code verifier is invalid',
    });
    const right = await exchange(code, { code_verifier: verifier });
    expect(right.status).toBe(400);
    expect(right.json).toMatchObject({ error: 'invalid_grant' });
  });

  it('form posts without a CSRF token fail with 403', async () => {
    const browser = new HttpBrowser();
    const signInPage = await browser.get(authorizePath({}));
    const noToken = await browser.postForm('/sign_in', { email: rider.email, password: rider.password });
    expect(noToken.status).toBe(403);
    expect(noToken.contentType).toBe('text/html; charset=utf-8');

    const signedIn = await browser.postForm('/sign_in', {
      _csrf: csrfTokenIn(signInPage.body),
      email: rider.email,
      password: rider.password,
      return_to: hiddenFieldIn(signInPage.body, 'return_to')!,
    });
    expect(signedIn.status).toBe(303);
    const approve = await browser.postForm('/oauth/authorize', {
      client_id: client.apiKey,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      decision: 'approve',
    });
    expect(approve.status).toBe(403);
    expect(approve.location).toBeUndefined();
    // A cross-site page cannot read the token, and has no cookie of its own here either.
    const crossSite = await new HttpBrowser().postForm('/oauth/authorize', {
      _csrf: csrfTokenIn(signInPage.body),
      client_id: client.apiKey,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      decision: 'approve',
    });
    expect(crossSite.status).toBe(403);
  });

  it('a code exchanged after 11 minutes (on the server clock) has expired', async () => {
    const { code } = await authorizeInBrowser(new HttpBrowser(), {});
    server.clock.advance(11 * 60 * 1000);
    const late = await exchange(code);
    expect(late.status).toBe(400);
    expect(late.json).toMatchObject({
      error: 'invalid_grant',
      error_description: 'Invalid grant: authorization code has expired',
    });
  });
});

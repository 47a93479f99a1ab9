import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../store/index.js';
import { Browser, csrfTokenIn, hiddenFieldIn } from '../test-support/browser.js';
import { createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';

const REDIRECT_URI = 'https://app.example.com/callback';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

let server: TestServer;
let rider: Person;
let client: ApiClient;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
  const owner = await createPerson(server, 'App Developer');
  client = await server.store.apiClients.create(owner.id, {
    name: 'Ride <Planner>',
    redirectUris: [REDIRECT_URI, 'com.example.rides:/oauth', 'https://app.example.com/cb?tenant=a b'],
  });
});
afterEach(async () => {
  await server.close();
});

function authorizePath(params: Record<string, string>): string {
  return `/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

const standard = (extra: Record<string, string> = {}) =>
  authorizePath({ client_id: client.apiKey, redirect_uri: REDIRECT_URI, response_type: 'code', ...extra });

async function signedIn(): Promise<Browser> {
  const browser = new Browser(server.app);
  expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
  return browser;
}

/** Posts the consent form of `page` with the decision, as the browser would. */
async function decide(browser: Browser, page: string, decision: 'approve' | 'deny') {
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
  return browser.post('/oauth/authorize', form);
}

describe('GET /oauth/authorize: requests that must not redirect', () => {
  it('shows an error page, never a redirect, for an unknown client_id or an unregistered redirect_uri', async () => {
    const browser = await signedIn();
    for (const [path, message] of [
      [
        authorizePath({ client_id: 'nope', redirect_uri: REDIRECT_URI, response_type: 'code' }),
        'unknown application',
      ],
      [authorizePath({ redirect_uri: REDIRECT_URI, response_type: 'code' }), 'client_id is missing'],
      [standard({ redirect_uri: 'https://evil.example/callback' }), 'is not one of the redirect URIs'],
      [standard({ redirect_uri: `${REDIRECT_URI}/` }), 'is not one of the redirect URIs'],
      [standard({ redirect_uri: 'HTTPS://app.example.com/callback' }), 'is not one of the redirect URIs'],
      [authorizePath({ client_id: client.apiKey, response_type: 'code' }), 'has no redirect_uri'],
      [
        `${standard()}&redirect_uri=${encodeURIComponent('https://evil.example/callback')}`,
        'redirect_uri is given more than once',
      ],
      // Even with an unsupported response_type, a bad redirect_uri is never redirected to.
      [standard({ redirect_uri: 'https://evil.example/callback', response_type: 'token' }), 'is not one of'],
    ] as const) {
      const response = await browser.get(path);
      expect(response.statusCode, path).toBe(400);
      expect(response.headers.location, path).toBeUndefined();
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body, path).toContain(message);
      expect(response.body).not.toContain('evil.example');
    }
  });

  it('shows the error page without a session too, before any sign-in form', async () => {
    const response = await new Browser(server.app).get(standard({ redirect_uri: 'https://evil.example/' }));
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toContain('name="password"');
  });
});

describe('GET /oauth/authorize: errors sent back to the client', () => {
  it('redirects an unsupported response_type with error=unsupported_response_type and the state', async () => {
    const response = await new Browser(server.app).get(standard({ response_type: 'token', state: 'xyz 1' }));
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'unsupported_response_type',
      error_description: 'Unsupported response type: `response_type` is not supported',
      state: 'xyz 1',
    });
  });

  it('redirects a missing response_type, a bad state and bad PKCE parameters with invalid_request', async () => {
    const browser = new Browser(server.app);
    for (const [path, description] of [
      [
        authorizePath({ client_id: client.apiKey, redirect_uri: REDIRECT_URI }),
        'Missing parameter: `response_type`',
      ],
      [standard({ state: 'ünïcode' }), 'Invalid parameter: `state`'],
      [
        standard({ code_challenge: CHALLENGE, code_challenge_method: 'plain' }),
        'Invalid request: `code_challenge_method` must be "S256"',
      ],
      [standard({ code_challenge_method: 'S256' }), 'Missing parameter: `code_challenge`'],
      [standard({ code_challenge: 'too-short' }), 'Invalid parameter: `code_challenge`'],
    ] as const) {
      const response = await browser.get(path);
      expect(response.statusCode, path).toBe(302);
      const location = new URL(response.headers.location as string);
      expect(location.searchParams.get('error'), path).toBe('invalid_request');
      expect(location.searchParams.get('error_description'), path).toBe(description);
      expect(location.searchParams.has('state')).toBe(false);
    }
  });

  it('keeps the query of a registered redirect URI that has one, and works for native app schemes', async () => {
    const browser = new Browser(server.app);
    const withQuery = await browser.get(
      standard({ redirect_uri: 'https://app.example.com/cb?tenant=a b', response_type: 'token', state: 's' }),
    );
    expect(withQuery.headers.location).toMatch(
      /^https:\/\/app\.example\.com\/cb\?tenant=a b&error=unsupported_response_type&error_description=.+&state=s$/,
    );
    const native = await browser.get(
      standard({ redirect_uri: 'com.example.rides:/oauth', response_type: 'x' }),
    );
    expect(native.headers.location).toMatch(/^com\.example\.rides:\/oauth\?error=unsupported_response_type&/);
  });
});

describe('GET /oauth/authorize: sign-in and consent', () => {
  it('shows the sign-in form first, naming the client, and returns to this request after it', async () => {
    const browser = new Browser(server.app);
    const path = standard({ state: 'abc', code_challenge: CHALLENGE, code_challenge_method: 'S256' });
    const page = await browser.get(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('name="password"');
    expect(page.body).toContain('continue to <strong>Ride &lt;Planner&gt;</strong>');
    const returnTo = hiddenFieldIn(page.body, 'return_to')!;
    expect(returnTo.startsWith('/oauth/authorize?')).toBe(true);
    expect(Object.fromEntries(new URL(returnTo, 'http://x').searchParams)).toEqual({
      client_id: client.apiKey,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      state: 'abc',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    });
    const signIn = await browser.post('/sign_in', {
      _csrf: csrfTokenIn(page.body),
      email: rider.email,
      password: rider.password,
      return_to: returnTo,
    });
    expect(signIn.statusCode).toBe(303);
    expect(signIn.headers.location).toBe(returnTo);
    const consent = await browser.get(returnTo);
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('<h1>Authorize Ride &lt;Planner&gt;</h1>');
  });

  it('shows a consent page naming the client (escaped) with Approve and Deny, framed by nobody', async () => {
    const browser = await signedIn();
    const page = await browser.get(standard({ state: '"><script>x</script>' }));
    expect(page.statusCode).toBe(200);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.body).toContain('<strong>Ride &lt;Planner&gt;</strong> asks to use your Rideport');
    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(page.body).toMatch(/<button type="submit" name="decision" value="approve">Approve<\/button>/);
    expect(page.body).toMatch(/<button type="submit" name="decision" value="deny">Deny<\/button>/);
    expect(hiddenFieldIn(page.body, 'redirect_uri')).toBe(REDIRECT_URI);
  });
});

describe('POST /oauth/authorize', () => {
  it('approves: a code for this client and redirect URI, with the state unchanged', async () => {
    const browser = await signedIn();
    const state = 'opaque state / with spaces & symbols =';
    const page = await browser.get(standard({ state }));
    const response = await decide(browser, page.body, 'approve');
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('state')).toBe(state);
    const code = location.searchParams.get('code')!;
    expect(code).toMatch(/^[\w-]{43}$/);
    const grant = await server.store.oauth.findGrant(code);
    expect(grant).toMatchObject({
      api_client_id: client.id,
      user_id: rider.id,
      redirect_uri: REDIRECT_URI,
      scope: 'user',
      code_challenge: null,
      used_at: null,
      expires_at: server.clock.now + 10 * 60 * 1000,
    });
  });

  it('keeps the PKCE challenge with the code', async () => {
    const browser = await signedIn();
    const page = await browser.get(standard({ code_challenge: CHALLENGE, code_challenge_method: 'S256' }));
    const response = await decide(browser, page.body, 'approve');
    const code = new URL(response.headers.location as string).searchParams.get('code')!;
    expect(await server.store.oauth.findGrant(code)).toMatchObject({
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    });
    expect(new URL(response.headers.location as string).searchParams.has('state')).toBe(false);
  });

  it('denies: error=access_denied with the state, and no code is made', async () => {
    const browser = await signedIn();
    const page = await browser.get(standard({ state: 'st' }));
    const response = await decide(browser, page.body, 'deny');
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st');
    expect(location.searchParams.has('code')).toBe(false);
  });

  it('refuses a post without a valid CSRF token (403) and makes no code', async () => {
    const browser = await signedIn();
    const page = await browser.get(standard());
    const form = {
      client_id: client.apiKey,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      decision: 'approve',
    };
    const missing = await browser.post('/oauth/authorize', form);
    expect(missing.statusCode).toBe(403);
    expect(missing.headers.location).toBeUndefined();
    const forged = await browser.post('/oauth/authorize', { ...form, _csrf: `${csrfTokenIn(page.body)}x` });
    expect(forged.statusCode).toBe(403);
  });

  it('never redirects a tampered form to an unregistered URI', async () => {
    const browser = await signedIn();
    const page = await browser.get(standard());
    const response = await browser.post('/oauth/authorize', {
      _csrf: csrfTokenIn(page.body),
      client_id: client.apiKey,
      redirect_uri: 'https://evil.example/callback',
      response_type: 'code',
      decision: 'approve',
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
  });

  it('asks to sign in again (401) when the session ended, and 400 without a decision', async () => {
    const browser = await signedIn();
    const page = await browser.get(standard());
    const noDecision = await browser.post('/oauth/authorize', {
      _csrf: csrfTokenIn(page.body),
      client_id: client.apiKey,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
    });
    expect(noDecision.statusCode).toBe(400);
    expect(noDecision.body).toContain('Choose Approve or Deny.');

    // The session expires (14 days by default) while the consent page is open.
    server.clock.advance(15 * 24 * 60 * 60 * 1000);
    const late = await decide(browser, page.body, 'approve');
    expect(late.statusCode).toBe(401);
    expect(late.headers.location).toBeUndefined();
    expect(late.body).toContain('name="password"');
  });
});

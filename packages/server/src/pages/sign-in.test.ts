import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Browser, csrfTokenIn } from '../test-support/browser.js';
import { createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';
import { safeReturnTo } from './sign-in.js';

let server: TestServer;
let rider: Person;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
});
afterEach(async () => {
  await server.close();
});

describe('GET /sign_in', () => {
  it('shows a labelled form with a CSRF field and sets the CSRF cookie, but no session', async () => {
    const browser = new Browser(server.app);
    const response = await browser.get('/sign_in?return_to=/developer/api_clients/1');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('<label for="sign-in-email">Email</label>');
    expect(response.body).toContain('id="sign-in-email"');
    expect(response.body).toContain('<label for="sign-in-password">Password</label>');
    expect(response.body).toContain('name="return_to" value="/developer/api_clients/1"');
    expect(csrfTokenIn(response.body)).not.toBe('');
    expect(browser.cookies.has('rideport_csrf')).toBe(true);
    expect(browser.cookies.has('rideport_session')).toBe(false);
    const csrfCookie = response.cookies.find((cookie) => cookie.name === 'rideport_csrf');
    expect(csrfCookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  });

  it('escapes a return_to it keeps and replaces one that leaves the site', async () => {
    const browser = new Browser(server.app);
    const kept = await browser.get(`/sign_in?return_to=${encodeURIComponent('/developer?x="><script>')}`);
    expect(kept.body).not.toContain('<script>');
    expect(kept.body).toContain('value="/developer?x=%22%3E%3Cscript%3E"');
    const away = await browser.get(`/sign_in?return_to=${encodeURIComponent('https://evil.example/')}`);
    expect(away.body).toContain('name="return_to" value="/dashboard"');
  });
});

describe('POST /sign_in', () => {
  it('starts a session (HttpOnly, SameSite=Lax cookie) and goes on to return_to', async () => {
    const browser = new Browser(server.app);
    const response = await browser.signIn(rider.email, rider.password, '/developer?from=test');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/developer?from=test');
    const session = response.cookies.find((cookie) => cookie.name === 'rideport_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(session).not.toHaveProperty('secure');
    const page = await browser.get('/developer');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Signed in as <strong>Anna Rider</strong>');
  });

  it('marks the cookies Secure when the server is served over https', async () => {
    const secure = await testServer({ baseUrl: 'https://rideport.test' });
    try {
      const person = await createPerson(secure);
      const browser = new Browser(secure.app);
      const response = await browser.signIn(person.email, person.password);
      expect(response.cookies.find((cookie) => cookie.name === 'rideport_session')).toMatchObject({
        secure: true,
      });
      expect(response.cookies.find((cookie) => cookie.name === 'rideport_csrf')).toBeUndefined();
      const form = await new Browser(secure.app).get('/sign_in');
      expect(form.cookies.find((cookie) => cookie.name === 'rideport_csrf')).toMatchObject({ secure: true });
    } finally {
      await secure.close();
    }
  });

  it('answers 401 with the form again, the same for a wrong password and an unknown email', async () => {
    const browser = new Browser(server.app);
    const wrong = await browser.signIn(rider.email, 'wrong password');
    const unknown = await browser.signIn('nobody@example.com', 'wrong password');
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401);
      expect(response.body).toContain('Invalid email or password.');
      expect(response.cookies.find((cookie) => cookie.name === 'rideport_session')).toBeUndefined();
    }
    expect(wrong.body).toContain(`value="${rider.email}"`);
  });

  it('answers 400 when a field is empty', async () => {
    const browser = new Browser(server.app);
    const response = await browser.signIn(rider.email, '');
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Enter your email and password.');
  });

  it('refuses a post without a valid CSRF token with 403', async () => {
    const browser = new Browser(server.app);
    await browser.get('/sign_in');
    const missing = await browser.post('/sign_in', { email: rider.email, password: rider.password });
    expect(missing.statusCode).toBe(403);
    expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(missing.body).toContain('This form has expired or was not sent from this site.');
    const forged = await browser.post('/sign_in', {
      _csrf: 'forged',
      email: rider.email,
      password: rider.password,
    });
    expect(forged.statusCode).toBe(403);
    // A token from another browser (another CSRF secret) does not work either.
    const otherToken = await new Browser(server.app).csrfTokenOf('/sign_in');
    const crossed = await browser.post('/sign_in', {
      _csrf: otherToken,
      email: rider.email,
      password: rider.password,
    });
    expect(crossed.statusCode).toBe(403);
    expect(crossed.cookies.find((cookie) => cookie.name === 'rideport_session')).toBeUndefined();
  });

  it('sends a signed-in browser on from GET /sign_in', async () => {
    const browser = new Browser(server.app);
    await browser.signIn(rider.email, rider.password);
    const response = await browser.get('/sign_in?return_to=/developer/x');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/developer/x');
  });
});

describe('POST /sign_out', () => {
  it('ends the session, and needs a CSRF token bound to that session', async () => {
    const browser = new Browser(server.app);
    await browser.signIn(rider.email, rider.password);
    const page = await browser.get('/developer');
    const token = csrfTokenIn(page.body);
    // A token made before sign-in is bound to no session, so it does not sign out this one.
    const before = new Browser(server.app);
    const staleToken = await before.csrfTokenOf('/sign_in');
    before.cookies.forEach((value, name) => {
      if (name === 'rideport_csrf') browser.cookies.set(name, value);
    });
    expect((await browser.post('/sign_out', { _csrf: staleToken })).statusCode).toBe(403);
    browser.cookies.clear();
    await browser.signIn(rider.email, rider.password);
    const fresh = csrfTokenIn((await browser.get('/developer')).body);
    expect(fresh).not.toBe(token);
    const out = await browser.post('/sign_out', { _csrf: fresh });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/sign_in');
    expect(browser.cookies.has('rideport_session')).toBe(false);
    const after = await browser.get('/developer');
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toBe('/sign_in?return_to=%2Fdeveloper');
  });
});

describe('safeReturnTo', () => {
  it('keeps paths on this site and replaces everything else with the dashboard', () => {
    expect(safeReturnTo('/oauth/authorize?client_id=a&redirect_uri=https%3A%2F%2Fx')).toBe(
      '/oauth/authorize?client_id=a&redirect_uri=https%3A%2F%2Fx',
    );
    expect(safeReturnTo('/developer#top')).toBe('/developer#top');
    for (const away of [
      '',
      'https://evil.example/',
      '//evil.example/',
      '/\\evil.example/',
      '\\\\evil.example',
      '/\t/evil.example',
      'javascript:alert(1)',
      'developer',
      `/${'x'.repeat(5000)}`,
    ]) {
      expect(safeReturnTo(away), away).toBe('/dashboard');
    }
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SIGN_IN_LINK_LIFETIME_MS } from '../store/sign-in-links.js';
import { Browser } from '../test-support/browser.js';
import { BASE_URL, createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';

let server: TestServer;
let rider: Person;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Link Rider');
});
afterEach(async () => {
  await server.close();
});

function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

describe('app.rideport.signInLink', () => {
  it('makes an absolute link with a fresh 256-bit token each time, redeemed through the store', async () => {
    const link = await server.app.rideport.signInLink(rider.id);
    const url = new URL(link);
    expect(url.origin).toBe(BASE_URL);
    expect(url.pathname).toBe('/sign-in/link');
    const token = url.searchParams.get('token')!;
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(link).not.toContain('next');
    const another = new URL(await server.app.rideport.signInLink(rider.id)).searchParams.get('token');
    expect(another).not.toBe(token);
    const redeemed = await server.store.signInLinks.redeem(token);
    expect(redeemed).toEqual({ userId: rider.id, nextPath: '/dashboard' });
    expect(await server.store.signInLinks.redeem(token)).toBeUndefined();
  });

  it('refuses a next that is not a path on this site', async () => {
    for (const next of ['https://evil.example/', '//evil.example/x', 'dashboard', '/\\evil.example']) {
      await expect(server.app.rideport.signInLink(rider.id, next)).rejects.toThrow(RangeError);
    }
  });
});

describe('GET /sign-in/link', () => {
  it('no longer signs in once the password changed after it was issued (issue 36)', async () => {
    const before = await server.app.rideport.signInLink(rider.id);
    const other = await createPerson(server, 'Other Rider');
    const untouched = await server.app.rideport.signInLink(other.id);
    await server.store.users.setPassword(rider.id, 'a new password');
    const refused = await new Browser(server.app).get(pathOf(before));
    expect(refused.statusCode).toBe(400);
    expect(refused.cookies.find((cookie) => cookie.name === 'rideport_session')).toBeUndefined();
    // Another rider's links are left alone, and a link issued after the change works.
    expect((await new Browser(server.app).get(pathOf(untouched))).statusCode).toBe(303);
    const after = await server.app.rideport.signInLink(rider.id);
    expect((await new Browser(server.app).get(pathOf(after))).statusCode).toBe(303);
  });

  it('starts a session once and goes on to next; a second use shows the sign-in form', async () => {
    const link = await server.app.rideport.signInLink(rider.id, '/dashboard/sync?from=app');
    const browser = new Browser(server.app);
    const response = await browser.get(pathOf(link));
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/dashboard/sync?from=app');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    const session = response.cookies.find((cookie) => cookie.name === 'rideport_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect((await browser.get('/developer')).body).toContain('Signed in as <strong>Link Rider</strong>');

    const again = await new Browser(server.app).get(pathOf(link));
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain(
      'This sign-in link has expired or has already been used: each link works once, within two minutes.',
    );
    expect(again.body).toContain('<label for="sign-in-email">Email</label>');
    expect(again.body).toContain('name="return_to" value="/dashboard"');
    expect(again.cookies.find((cookie) => cookie.name === 'rideport_session')).toBeUndefined();
  });

  it('replaces the session the browser came with', async () => {
    const browser = new Browser(server.app);
    await browser.signIn(rider.email, rider.password);
    const before = browser.cookies.get('rideport_session');
    const other = await createPerson(server, 'Other Rider');
    await browser.get(pathOf(await server.app.rideport.signInLink(other.id)));
    expect(browser.cookies.get('rideport_session')).not.toBe(before);
    expect(await server.store.sessions.user(before!)).toBeUndefined();
    expect((await browser.get('/developer')).body).toContain('Signed in as <strong>Other Rider</strong>');
  });

  it('does not work after two minutes, nor with an unknown or missing token', async () => {
    const link = await server.app.rideport.signInLink(rider.id);
    server.clock.advance(SIGN_IN_LINK_LIFETIME_MS);
    const expired = await new Browser(server.app).get(pathOf(link));
    expect(expired.statusCode).toBe(400);
    expect(expired.body).toContain('This sign-in link has expired');
    for (const path of ['/sign-in/link?token=unknown', '/sign-in/link']) {
      const response = await new Browser(server.app).get(path);
      expect(response.statusCode).toBe(400);
      expect(response.cookies.find((cookie) => cookie.name === 'rideport_session')).toBeUndefined();
    }
  });

  it('is good just before it runs out', async () => {
    const link = await server.app.rideport.signInLink(rider.id);
    server.clock.advance(SIGN_IN_LINK_LIFETIME_MS - 1);
    const response = await new Browser(server.app).get(pathOf(link));
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/dashboard');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { Browser } from '../test-support/browser.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from '../test-support/server.js';
import { FixedWindows, SignInThrottle, waitInWords } from './rate-limit.js';

const WINDOW_MS = 60_000;

describe('FixedWindows', () => {
  it('counts hits per key in a window that starts at the first hit', () => {
    let now = 1_000;
    const windows = new FixedWindows(() => now);
    expect(windows.hit('a', WINDOW_MS)).toEqual({ count: 1, remainingMs: 60_000 });
    now += 20_000;
    expect(windows.hit('a', WINDOW_MS)).toEqual({ count: 2, remainingMs: 40_000 });
    expect(windows.hit('b', WINDOW_MS)).toEqual({ count: 1, remainingMs: 60_000 });
    expect(windows.peek('a', WINDOW_MS)).toEqual({ count: 2, remainingMs: 40_000 });
    now += 40_000;
    expect(windows.peek('a', WINDOW_MS)).toEqual({ count: 0, remainingMs: 0 });
    expect(windows.hit('a', WINDOW_MS)).toEqual({ count: 1, remainingMs: 60_000 });
  });

  it('stays bounded when many keys come and go', () => {
    let now = 0;
    const windows = new FixedWindows(() => now);
    for (let index = 0; index < 25_000; index += 1) {
      windows.hit(`ip-${index}`, WINDOW_MS);
      now += 1;
    }
    // The most recent key is still counted; the oldest were dropped to make room.
    expect(windows.peek('ip-24999', WINDOW_MS).count).toBe(1);
    expect(windows.peek('ip-0', WINDOW_MS).count).toBe(0);
  });
});

describe('SignInThrottle', () => {
  const limits = {
    perIp: 100,
    windowSeconds: 60,
    failuresPerAddress: 5,
    failuresPerAccountAndAddress: 3,
    failuresPerAccount: 7,
    failureWindowSeconds: 60,
  };

  function refusal(throttle: SignInThrottle, email: string, ip: string): unknown {
    try {
      throttle.assertAllowed(email, ip);
    } catch (error) {
      return error;
    }
    return undefined;
  }

  it('refuses an account from the address that failed, whatever the case of the email, until the window ends', () => {
    let now = 0;
    const throttle = new SignInThrottle(() => now, limits);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      throttle.assertAllowed('Rider@Example.com', '192.0.2.1');
      throttle.recordFailure(' rider@example.COM ', '192.0.2.1');
    }
    now += 15_000;
    expect(refusal(throttle, 'rider@example.com', '192.0.2.1')).toBeInstanceOf(ApiError);
    expect(refusal(throttle, 'rider@example.com', '192.0.2.1')).toMatchObject({
      statusCode: 429,
      retryAfterSeconds: 45,
      message: 'too many failed sign-ins for this account from this address: try again in 45 seconds',
    });
    // The owner elsewhere, and others from the same address, are not refused.
    throttle.assertAllowed('rider@example.com', '198.51.100.9');
    throttle.assertAllowed('someone.else@example.com', '192.0.2.1');
    now += 45_000;
    throttle.assertAllowed('rider@example.com', '192.0.2.1');
  });

  it('refuses an address that fails across accounts, and counts an IPv6 /64 as one address', () => {
    const throttle = new SignInThrottle(() => 0, limits);
    for (let index = 0; index < 5; index += 1) {
      throttle.recordFailure(`rider${index}@example.com`, `2001:db8:1:2::${index + 1}`);
    }
    expect(refusal(throttle, 'new@example.com', '2001:db8:1:2:ffff::1')).toMatchObject({
      message: 'too many failed sign-ins from this address: try again in 60 seconds',
    });
    throttle.assertAllowed('new@example.com', '2001:db8:1:3::1');
  });

  it('refuses an account tried from many addresses past its ceiling, for every address', () => {
    const throttle = new SignInThrottle(() => 0, limits);
    for (let index = 0; index < 7; index += 1)
      throttle.recordFailure('rider@example.com', `192.0.2.${index}`);
    expect(refusal(throttle, 'rider@example.com', '198.51.100.9')).toMatchObject({
      message: 'too many failed sign-ins for this account: try again in 60 seconds',
    });
  });

  it('forgets the failures of an account at an address that signs in, but not those of the address', () => {
    const throttle = new SignInThrottle(() => 0, limits);
    throttle.recordFailure('rider@example.com', '192.0.2.1');
    throttle.recordFailure('rider@example.com', '192.0.2.1');
    throttle.recordSuccess('rider@example.com', '192.0.2.1');
    throttle.recordFailure('rider@example.com', '192.0.2.1');
    throttle.recordFailure('rider@example.com', '192.0.2.1');
    throttle.assertAllowed('rider@example.com', '192.0.2.1');
    // Four failures so far from this address: one more refuses it, a success in between or not.
    throttle.recordSuccess('rider@example.com', '192.0.2.1');
    throttle.recordFailure('other@example.com', '192.0.2.1');
    expect(refusal(throttle, 'rider@example.com', '192.0.2.1')).toBeInstanceOf(ApiError);
  });

  it('says a long wait in minutes', () => {
    expect(waitInWords(1)).toBe('1 second');
    expect(waitInWords(119)).toBe('119 seconds');
    expect(waitInWords(120)).toBe('2 minutes');
    expect(waitInWords(841)).toBe('15 minutes');
  });

  it('refuses a ceiling that one address could reach', async () => {
    await expect(
      testServer({ rateLimits: { failuresPerAccountAndAddress: 10, failuresPerAccount: 20 } }),
    ).rejects.toThrow(
      'rateLimits.failuresPerAccount (20) must be more than twice what one address may fail (10), so that one address cannot lock an account out',
    );
  });
});

describe('rate limits on the endpoints', () => {
  let server: TestServer;
  let rider: Person;

  beforeEach(async () => {
    server = await testServer({
      rateLimits: {
        perIp: 3,
        windowSeconds: 60,
        failuresPerAddress: 4,
        failuresPerAccountAndAddress: 2,
        failuresPerAccount: 5,
        failureWindowSeconds: 60,
      },
    });
    rider = await createPerson(server, 'Anna Rider');
  });
  afterEach(async () => {
    await server.close();
  });

  it('POST /api/v1/auth_tokens.json: per IP, across both paths, 429 with Retry-After and a v1 body', async () => {
    const { apiKey } = await credentialsFor(server, rider);
    const post = (url: string) =>
      server.app.inject({
        method: 'POST',
        url,
        headers: { 'x-service-api-key': apiKey },
        payload: { user: { email: rider.email, password: rider.password } },
      });
    expect((await post('/api/v1/auth_tokens.json')).statusCode).toBe(201);
    expect((await post('/api/v1/auth_tokens')).statusCode).toBe(201);
    expect((await post('/api/v1/auth_tokens.json')).statusCode).toBe(201);
    server.clock.advance(10_000);
    const limited = await post('/api/v1/auth_tokens');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('50');
    expect(limited.json()).toEqual({
      errors: ['too many requests from this address: try again in 50 seconds'],
    });
    // Another address is not affected.
    const elsewhere = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth_tokens.json',
      remoteAddress: '192.0.2.7',
      headers: { 'x-service-api-key': apiKey },
      payload: { user: { email: rider.email, password: rider.password } },
    });
    expect(elsewhere.statusCode).toBe(201);
    server.clock.advance(50_000);
    expect((await post('/api/v1/auth_tokens.json')).statusCode).toBe(201);
  });

  it('POST /api/v1/auth_tokens.json: the account from the failing address, even with the right password; not from others', async () => {
    const { apiKey } = await credentialsFor(server, rider);
    const post = (password: string, remoteAddress: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/v1/auth_tokens.json',
        remoteAddress,
        headers: { 'x-service-api-key': apiKey },
        payload: { user: { email: rider.email, password } },
      });
    expect((await post('wrong', '192.0.2.1')).statusCode).toBe(401);
    expect((await post('wrong', '192.0.2.1')).statusCode).toBe(401);
    const limited = await post(rider.password, '192.0.2.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.json()).toEqual({
      errors: ['too many failed sign-ins for this account from this address: try again in 60 seconds'],
    });
    expect((await post(rider.password, '192.0.2.3')).statusCode).toBe(201);
    server.clock.advance(60_000);
    expect((await post(rider.password, '192.0.2.1')).statusCode).toBe(201);
  });

  it('POST /sign_in: per account and address, and per IP, as an HTML page with Retry-After', async () => {
    const browser = new Browser(server.app);
    expect((await browser.signIn(rider.email, 'wrong')).statusCode).toBe(401);
    expect((await browser.signIn(rider.email, 'wrong')).statusCode).toBe(401);
    const account = await browser.signIn(rider.email, rider.password);
    expect(account.statusCode).toBe(429);
    expect(account.headers['retry-after']).toBe('60');
    expect(account.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(account.body).toContain(
      'too many failed sign-ins for this account from this address: try again in 60 seconds',
    );
    expect(account.cookies.find((cookie) => cookie.name === 'rideport_session')).toBeUndefined();

    // The fourth sign-in post from this address within the window is over the per-IP limit.
    const address = await browser.signIn('someone@example.com', 'x');
    expect(address.statusCode).toBe(429);
    expect(address.body).toContain('too many requests from this address');
    server.clock.advance(60_000);
    expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
  });

  it('POST /oauth/token(.json): per IP, with an RFC 6749 style body', async () => {
    const { client } = await credentialsFor(server, rider);
    const post = (url: string) =>
      server.app.inject({
        method: 'POST',
        url,
        payload: {
          grant_type: 'authorization_code',
          code: 'x',
          client_id: client.apiKey,
          client_secret: server.store.apiClients.secretOf(client),
          redirect_uri: 'https://app.example.com/callback',
        },
      });
    for (const url of ['/oauth/token.json', '/oauth/token', '/oauth/token.json']) {
      expect((await post(url)).statusCode).toBe(400);
    }
    const limited = await post('/oauth/token');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'too many requests from this address: try again in 60 seconds',
      errors: ['too many requests from this address: try again in 60 seconds'],
    });
  });
});

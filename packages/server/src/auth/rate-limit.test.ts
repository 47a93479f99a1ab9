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
import { AccountThrottle, FixedWindows } from './rate-limit.js';

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

describe('AccountThrottle', () => {
  it('refuses an account after its failures until the window ends, whatever the case of the email', () => {
    let now = 0;
    const throttle = new AccountThrottle(() => now, { perIp: 100, failuresPerAccount: 3, windowSeconds: 60 });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      throttle.assertAllowed('Rider@Example.com');
      throttle.recordFailure(' rider@example.COM ');
    }
    now += 15_000;
    let refusal: unknown;
    try {
      throttle.assertAllowed('rider@example.com');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ statusCode: 429, retryAfterSeconds: 45 });
    throttle.assertAllowed('someone.else@example.com');
    now += 45_000;
    throttle.assertAllowed('rider@example.com');
  });

  it('forgets the failures of an account that signs in', () => {
    const throttle = new AccountThrottle(() => 0, { perIp: 100, failuresPerAccount: 2, windowSeconds: 60 });
    throttle.recordFailure('rider@example.com');
    throttle.recordSuccess('rider@example.com');
    throttle.recordFailure('rider@example.com');
    throttle.assertAllowed('rider@example.com');
  });
});

describe('rate limits on the endpoints', () => {
  let server: TestServer;
  let rider: Person;

  beforeEach(async () => {
    server = await testServer({ rateLimits: { perIp: 3, failuresPerAccount: 2, windowSeconds: 60 } });
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

  it('POST /api/v1/auth_tokens.json: per account, even with the right password, from any address', async () => {
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
    expect((await post('wrong', '192.0.2.2')).statusCode).toBe(401);
    const limited = await post(rider.password, '192.0.2.3');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.json()).toEqual({
      errors: ['too many failed sign-ins for this account: try again in 60 seconds'],
    });
    server.clock.advance(60_000);
    expect((await post(rider.password, '192.0.2.3')).statusCode).toBe(201);
  });

  it('POST /sign_in: per account and per IP, as an HTML page with Retry-After', async () => {
    const browser = new Browser(server.app);
    expect((await browser.signIn(rider.email, 'wrong')).statusCode).toBe(401);
    expect((await browser.signIn(rider.email, 'wrong')).statusCode).toBe(401);
    const account = await browser.signIn(rider.email, rider.password);
    expect(account.statusCode).toBe(429);
    expect(account.headers['retry-after']).toBe('60');
    expect(account.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(account.body).toContain('too many failed sign-ins for this account: try again in 60 seconds');
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

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServerError } from '../errors.js';
import { Browser } from '../test-support/browser.js';
import { databaseOptions } from '../test-support/database-options.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from '../test-support/server.js';
import { reopenableDatabase } from '../test-support/test-database.js';
import { SignInThrottle, waitInWords } from './rate-limit.js';

const WINDOW_MS = 60_000;

/** A test server's store and clock: the windows live in its database (SQLite or PostgreSQL). */
let server: TestServer;
beforeEach(async () => {
  server = await testServer();
});
afterEach(async () => {
  await server.close();
});

describe('RateWindows', () => {
  it('counts hits per key in a window that starts at the first hit', async () => {
    const windows = server.store.rateWindows;
    expect(await windows.hit('a', WINDOW_MS)).toEqual({ count: 1, remainingMs: 60_000 });
    server.clock.advance(20_000);
    expect(await windows.hit('a', WINDOW_MS)).toEqual({ count: 2, remainingMs: 40_000 });
    expect(await windows.hit('b', WINDOW_MS)).toEqual({ count: 1, remainingMs: 60_000 });
    expect(await windows.peek('a')).toEqual({ count: 2, remainingMs: 40_000 });
    server.clock.advance(40_000);
    expect(await windows.peek('a')).toEqual({ count: 0, remainingMs: 0 });
    expect(await windows.hit('a', WINDOW_MS)).toEqual({ count: 1, remainingMs: 60_000 });
    await windows.clear('a');
    expect(await windows.peek('a')).toEqual({ count: 0, remainingMs: 0 });
  });

  it('counts every one of many hits at once on one key', async () => {
    const counts = await Promise.all(
      Array.from({ length: 40 }, () => server.store.rateWindows.hit('busy', WINDOW_MS)),
    );
    expect(counts.map(({ count }) => count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, index) => index + 1),
    );
  });

  it('keeps only live windows, whatever the number of keys ever counted', async () => {
    const windows = server.store.rateWindows;
    for (let minute = 0; minute < 5; minute += 1) {
      for (let index = 0; index < 200; index += 1) await windows.hit(`ip-${minute}-${index}`, WINDOW_MS);
      server.clock.advance(WINDOW_MS);
    }
    await windows.hit('last', WINDOW_MS);
    const { rows } = await server.store.transaction(async (trx) => ({
      rows: await trx.selectFrom('rate_windows').select('key').execute(),
    }));
    // The windows of the last minute ended at this very moment, and the hit that found them swept them.
    expect(rows).toHaveLength(1);
  });

  it('keeps no key in clear: the emails typed into failed sign-ins stay out of the database', async () => {
    await server.store.rateWindows.hit('failures of account\nrider@example.com', WINDOW_MS);
    const keys = await server.store.transaction((trx) =>
      trx.selectFrom('rate_windows').select('key').execute(),
    );
    expect(keys).toHaveLength(1);
    expect(keys[0]!.key).not.toContain('example');
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

  const throttle = () => new SignInThrottle(server.store.rateWindows, limits);

  async function refusal(throttle: SignInThrottle, email: string, ip: string): Promise<unknown> {
    try {
      await throttle.assertAllowed(email, ip);
    } catch (error) {
      return error;
    }
    return undefined;
  }

  it('refuses an account from the address that failed, whatever the case of the email, until the window ends', async () => {
    const limiter = throttle();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await limiter.assertAllowed('Rider@Example.com', '192.0.2.1');
      await limiter.recordFailure(' rider@example.COM ', '192.0.2.1');
    }
    server.clock.advance(15_000);
    expect(await refusal(limiter, 'rider@example.com', '192.0.2.1')).toBeInstanceOf(ServerError);
    expect(await refusal(limiter, 'rider@example.com', '192.0.2.1')).toMatchObject({
      statusCode: 429,
      retryAfterSeconds: 45,
      message: 'too many failed sign-ins for this account from this address: try again in 45 seconds',
    });
    // The owner elsewhere, and others from the same address, are not refused.
    await limiter.assertAllowed('rider@example.com', '198.51.100.9');
    await limiter.assertAllowed('someone.else@example.com', '192.0.2.1');
    server.clock.advance(45_000);
    await limiter.assertAllowed('rider@example.com', '192.0.2.1');
  });

  it('refuses an address that fails across accounts, and counts an IPv6 /64 as one address', async () => {
    const limiter = throttle();
    for (let index = 0; index < 5; index += 1) {
      await limiter.recordFailure(`rider${index}@example.com`, `2001:db8:1:2::${index + 1}`);
    }
    expect(await refusal(limiter, 'new@example.com', '2001:db8:1:2:ffff::1')).toMatchObject({
      message: 'too many failed sign-ins from this address: try again in 60 seconds',
    });
    await limiter.assertAllowed('new@example.com', '2001:db8:1:3::1');
  });

  it('refuses an account tried from many addresses past its ceiling, for every address', async () => {
    const limiter = throttle();
    for (let index = 0; index < 7; index += 1)
      await limiter.recordFailure('rider@example.com', `192.0.2.${index}`);
    expect(await refusal(limiter, 'rider@example.com', '198.51.100.9')).toMatchObject({
      message: 'too many failed sign-ins for this account: try again in 60 seconds',
    });
  });

  it('forgets the failures of an account at an address that signs in, but not those of the address', async () => {
    const limiter = throttle();
    await limiter.recordFailure('rider@example.com', '192.0.2.1');
    await limiter.recordFailure('rider@example.com', '192.0.2.1');
    await limiter.recordSuccess('rider@example.com', '192.0.2.1');
    await limiter.recordFailure('rider@example.com', '192.0.2.1');
    await limiter.recordFailure('rider@example.com', '192.0.2.1');
    await limiter.assertAllowed('rider@example.com', '192.0.2.1');
    // Four failures so far from this address: one more refuses it, a success in between or not.
    await limiter.recordSuccess('rider@example.com', '192.0.2.1');
    await limiter.recordFailure('other@example.com', '192.0.2.1');
    expect(await refusal(limiter, 'rider@example.com', '192.0.2.1')).toBeInstanceOf(ServerError);
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
  let rider: Person;

  beforeEach(async () => {
    await server.close();
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
      error_codes: ['SERVER_TOO_MANY_REQUESTS'],
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
      error_codes: ['SERVER_TOO_MANY_REQUESTS'],
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

describe('rate limits with several servers on one database (issue 18)', () => {
  it('counts requests and failed sign-ins made to one server on every other', async () => {
    const database = await reopenableDatabase();
    const rateLimits = {
      perIp: 3,
      windowSeconds: 60,
      failuresPerAddress: 10,
      failuresPerAccountAndAddress: 2,
      failuresPerAccount: 25,
      failureWindowSeconds: 60,
    };
    const nodeA = await testServer({ ...databaseOptions(database.location), rateLimits });
    const nodeB = await testServer({ ...databaseOptions(database.location), rateLimits });
    try {
      const rider = await createPerson(nodeA, 'Shared Rider');
      const { apiKey } = await credentialsFor(nodeA, rider);
      const post = (node: TestServer, password: string, remoteAddress: string) =>
        node.app.inject({
          method: 'POST',
          url: '/api/v1/auth_tokens.json',
          remoteAddress,
          headers: { 'x-service-api-key': apiKey },
          payload: { user: { email: rider.email, password } },
        });
      // Two failures, one on each node: the third attempt is refused on either.
      expect((await post(nodeA, 'wrong', '192.0.2.1')).statusCode).toBe(401);
      expect((await post(nodeB, 'wrong', '192.0.2.1')).statusCode).toBe(401);
      const refused = await post(nodeA, rider.password, '192.0.2.1');
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({
        errors: ['too many failed sign-ins for this account from this address: try again in 60 seconds'],
        error_codes: ['SERVER_TOO_MANY_REQUESTS'],
      });
      // The per-IP budget of 3 requests was spent across both nodes: the fourth is refused.
      expect((await post(nodeB, rider.password, '192.0.2.1')).statusCode).toBe(429);
      expect((await post(nodeB, rider.password, '192.0.2.2')).statusCode).toBe(201);
    } finally {
      await nodeA.close();
      await nodeB.close();
      database.remove();
    }
  });
});

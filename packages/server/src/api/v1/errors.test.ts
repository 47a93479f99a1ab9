/**
 * Every v1 error answer carries `error_codes` beside `errors` (issue 35), Fastify's own 4xx, unknown
 * endpoints, rate limits and storage faults included; the legacy and OAuth bodies stay as the
 * specification fixes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnreachableError } from '../../errors.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Credentials,
  type TestServer,
} from '../../test-support/server.js';

let server: TestServer;
let credentials: Credentials;

beforeAll(async () => {
  server = await testServer({ rateLimits: { perIp: 2 } });
  credentials = await credentialsFor(server, await createPerson(server, 'Coded Errors'));
});

afterAll(async () => {
  await server.close();
});

async function post(url: string, contentType: string, payload: string) {
  return server.app.inject({
    method: 'POST',
    url,
    headers: { authorization: credentials.basic, 'content-type': contentType },
    payload,
  });
}

describe('v1 error bodies', () => {
  it('code Fastify’s own 4xx: malformed JSON, an unsupported media type, a body too large', async () => {
    const malformed = await post('/api/v1/events.json', 'application/json', '{"event": ');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ error_codes: ['SERVER_MALFORMED_BODY'] });
    const text = await post('/api/v1/events.json', 'application/xml', '<event/>');
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ error_codes: ['SERVER_UNSUPPORTED_MEDIA_TYPE'] });
    const large = await post(
      '/api/v1/events.json',
      'application/json',
      JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    );
    expect(large.statusCode).toBe(413);
    expect(large.json()).toMatchObject({ error_codes: ['SERVER_PAYLOAD_TOO_LARGE'] });
    for (const answer of [malformed, text, large]) {
      const body = answer.json<{ errors: string[]; error_codes: string[] }>();
      expect(body.errors).toHaveLength(1);
    }
  });

  it('codes an unknown endpoint', async () => {
    const answer = await server.app.inject({ url: '/api/v1/no-such-thing.json' });
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toEqual({
      errors: ['no such endpoint: GET /api/v1/no-such-thing.json'],
      error_codes: ['SERVER_NO_SUCH_ENDPOINT'],
    });
  });

  it('codes a rate limit, with Retry-After', async () => {
    const answers = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      answers.push(
        await server.app.inject({
          method: 'POST',
          url: '/api/v1/auth_tokens.json',
          headers: { 'x-service-api-key': credentials.apiKey },
          payload: { user: { email: 'nobody@example.com', password: 'not a password' } },
        }),
      );
    }
    const limited = answers.at(-1)!;
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.json()).toMatchObject({ error_codes: ['SERVER_TOO_MANY_REQUESTS'] });
  });

  it('codes a database out of reach as SERVER_DATABASE_UNREACHABLE (503)', async () => {
    const events = server.store.events;
    const listByOwner = events.listByOwner.bind(events);
    events.listByOwner = () =>
      Promise.reject(
        new DatabaseUnreachableError('cannot connect to the database: no server listens', {
          cause: new Error('connect ECONNREFUSED'),
          code: 'ECONNREFUSED',
        }),
      );
    try {
      const answer = await server.app.inject({
        url: '/api/v1/events.json',
        headers: { authorization: credentials.basic },
      });
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toMatchObject({ error_codes: ['SERVER_DATABASE_UNREACHABLE'] });
    } finally {
      events.listByOwner = listByOwner;
    }
  });

  it('leaves the legacy and OAuth bodies as the specification has them', async () => {
    const legacy = await server.app.inject({
      url: `/users/current.json?apikey=${credentials.apiKey}&auth_token=wrong`,
    });
    expect(legacy.statusCode).toBe(401);
    expect(Object.keys(legacy.json<object>())).toEqual(['error']);
    const oauth = await server.app.inject({
      method: 'POST',
      url: '/oauth/token.json',
      payload: { grant_type: 'authorization_code' },
    });
    expect(oauth.statusCode).toBeGreaterThanOrEqual(400);
    expect(Object.keys(oauth.json<object>()).sort()).toEqual(['error', 'error_description', 'errors']);
  });
});

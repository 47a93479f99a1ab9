/**
 * Every v1 resource endpoint of issue 4, side by side: 401 without credentials (checked before the
 * request is validated, docs/contributors/decisions.md §1), and 400 naming the parameter for an id that is not a positive
 * integer. The other answers of each endpoint are in routes, trips, events and sync tests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson, credentialsFor, testServer, type TestServer } from '../../test-support/server.js';

let server: TestServer;
let authorization: string;

beforeAll(async () => {
  server = await testServer();
  const rider = await createPerson(server, 'Anna Rider');
  authorization = (await credentialsFor(server, rider)).basic;
});
afterAll(async () => {
  await server.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

const ENDPOINTS: [Method, string][] = [
  ['GET', '/api/v1/routes.json'],
  ['GET', '/api/v1/routes/{id}.json'],
  ['DELETE', '/api/v1/routes/{id}.json'],
  ['GET', '/api/v1/trips.json'],
  ['GET', '/api/v1/trips/{id}.json'],
  ['DELETE', '/api/v1/trips/{id}.json'],
  ['GET', '/api/v1/events.json'],
  ['POST', '/api/v1/events.json'],
  ['GET', '/api/v1/events/{id}.json'],
  ['PATCH', '/api/v1/events/{id}.json'],
  ['PUT', '/api/v1/events/{id}.json'],
  ['DELETE', '/api/v1/events/{id}.json'],
  ['GET', '/api/v1/sync.json?since=1970-01-01'],
];

describe('v1 resources', () => {
  it.each(ENDPOINTS)('%s %s answers 401 without credentials, and with a bad token', async (method, path) => {
    const url = path.replace('{id}', '1');
    const payload = method === 'POST' || method === 'PATCH' || method === 'PUT' ? { event: {} } : undefined;
    const anonymous = await server.app.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json<{ errors: string[] }>().errors).toHaveLength(1);
    const badToken = await server.app.inject({
      method,
      url,
      headers: { authorization: `${authorization.slice(0, -4)}AAA=` },
      ...(payload === undefined ? {} : { payload }),
    });
    expect(badToken.statusCode).toBe(401);
  });

  it.each(ENDPOINTS.filter(([, path]) => path.includes('{id}')))(
    '%s %s answers 400 naming the id when it is not a whole number from 1 up',
    async (method, path) => {
      for (const id of ['abc', '0', '-3', '1.5', 'Infinity', '1e309', '9007199254740992']) {
        const response = await server.app.inject({
          method,
          url: path.replace('{id}', id),
          headers: { authorization },
          ...(method === 'PATCH' || method === 'PUT' ? { payload: { event: { name: 'x' } } } : {}),
        });
        expect(response.statusCode, id).toBe(400);
        expect(response.json<{ errors: string[] }>().errors[0], id).toBe(
          'id must be a whole number from 1 to 9007199254740991',
        );
      }
    },
  );
});

/**
 * Every request `@rideport/client` makes is an operation of the server's OpenAPI document (issue 20,
 * "OpenAPI"). Each client method is called against the real server (through injectTransport, with
 * real credentials) and the requests it sent are recorded; each must match a method and path template
 * of /api/v1/openapi.json. The table of calls is checked against the client's methods by reflection,
 * so a new client method without a row fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  injectTransport,
  realSleep,
  RideportClient,
  type Transport,
  type TransportRequest,
} from '@rideport/client';
import {
  createPerson,
  credentialsFor,
  testServer,
  type TestServer,
} from '../packages/server/src/test-support/server.js';
import { readFixture } from './support/corpus.js';

type Call = (client: RideportClient) => Promise<unknown>;

/** A trip, route, event or club id no one has: the calls answer 404, which is fine here. */
const NO_SUCH_ID = 987_654;

/** One call of each client method that sends requests, named as reflection names it (below). */
const CALLS: Record<string, Call> = {
  uploadRide: (client) =>
    client.uploadRide({ bytes: readFixture('gpx', 'sample-ride.gpx'), filename: 'sample-ride.gpx' }),
  waitForTask: (client) => client.waitForTask(NO_SUCH_ID),
  'legacy.login': (client) => client.legacy.login('nobody@example.com', 'not a password'),
  'legacy.currentUser': (client) => client.legacy.currentUser(),
  'legacy.user': (client) => client.legacy.user(NO_SUCH_ID),
  'legacy.userRoutes': (client) => client.legacy.userRoutes(NO_SUCH_ID),
  'legacy.userTrips': (client) => client.legacy.userTrips(NO_SUCH_ID),
  'legacy.userClubs': (client) => client.legacy.userClubs(NO_SUCH_ID),
  'legacy.club': (client) => client.legacy.club(NO_SUCH_ID),
  'legacy.clubRoutes': (client) => client.legacy.clubRoutes(NO_SUCH_ID),
  'legacy.route': (client) => client.legacy.route(NO_SUCH_ID),
  'legacy.trip': (client) => client.legacy.trip(NO_SUCH_ID),
  'legacy.uploadFile': (client) =>
    client.legacy.uploadFile({ bytes: readFixture('gpx', 'sample-ride.gpx'), filename: 'sample-ride.gpx' }),
  'legacy.uploadPoints': (client) =>
    client.legacy.uploadPoints([
      { y: 52.5, x: 13.4, t: 1_767_000_000 },
      { y: 52.501, x: 13.401, t: 1_767_000_010 },
    ]),
  'legacy.taskStatus': (client) => client.legacy.taskStatus([NO_SUCH_ID]),
  'v1.createAuthToken': (client) => client.v1.createAuthToken('nobody@example.com', 'not a password'),
  'v1.currentUser': (client) => client.v1.currentUser(),
  'v1.sync': (client) => client.v1.sync({ since: new Date(0) }),
  'v1.routes.list': (client) => client.v1.routes.list(),
  'v1.routes.all': (client) => first(client.v1.routes.all()),
  'v1.routes.get': (client) => client.v1.routes.get(NO_SUCH_ID),
  'v1.routes.delete': (client) => client.v1.routes.delete(NO_SUCH_ID),
  'v1.trips.list': (client) => client.v1.trips.list(),
  'v1.trips.all': (client) => first(client.v1.trips.all()),
  'v1.trips.get': (client) => client.v1.trips.get(NO_SUCH_ID),
  'v1.trips.delete': (client) => client.v1.trips.delete(NO_SUCH_ID),
  'v1.events.list': (client) => client.v1.events.list(),
  'v1.events.all': (client) => first(client.v1.events.all()),
  'v1.events.get': (client) => client.v1.events.get(NO_SUCH_ID),
  'v1.events.create': (client) =>
    client.v1.events.create({ name: 'Ride out', start_date: '2026-06-01T08:00:00Z' }),
  'v1.events.update': (client) => client.v1.events.update(NO_SUCH_ID, { name: 'Renamed' }),
  'v1.events.delete': (client) => client.v1.events.delete(NO_SUCH_ID),
  'v1.clubs.list': (client) => client.v1.clubs.list(),
  'v1.clubs.all': (client) => first(client.v1.clubs.all()),
  'v1.clubs.get': (client) => client.v1.clubs.get(NO_SUCH_ID),
  'v1.clubs.routes': (client) => client.v1.clubs.routes(NO_SUCH_ID).list(),
  'v1.clubs.shareRoute': (client) => client.v1.clubs.shareRoute(NO_SUCH_ID, NO_SUCH_ID),
  'v1.clubs.removeRoute': (client) => client.v1.clubs.removeRoute(NO_SUCH_ID, NO_SUCH_ID),
};

/** Methods that send nothing: they hold or change the client's own state. */
const LOCAL_METHODS = new Set(['constructor', 'setCredentials', 'close', 'credentials']);

async function first<T>(items: AsyncIterableIterator<T>): Promise<T | undefined> {
  for await (const item of items) return item;
  return undefined;
}

/** The names of the functions on an object and its class, but not Object's own. */
function methodNames(value: object): string[] {
  const names = new Set<string>();
  for (
    let level: object | null = value;
    level !== null && level !== Object.prototype;
    level = Object.getPrototypeOf(level) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(level)) {
      const descriptor = Object.getOwnPropertyDescriptor(level, name)!;
      if (typeof descriptor.value === 'function' || descriptor.get !== undefined) names.add(name);
    }
  }
  return [...names].filter((name) => !LOCAL_METHODS.has(name));
}

/** Every method of the client that may send a request, as `v1.trips.get`, `legacy.login`, `uploadRide`. */
function clientMethods(client: RideportClient): string[] {
  const names = methodNames(client);
  names.push(...methodNames(client.legacy).map((name) => `legacy.${name}`));
  names.push(...methodNames(client.v1).map((name) => `v1.${name}`));
  // The v1 resources are objects of endpoints (routes, trips, events, clubs).
  for (const [resource, endpoints] of Object.entries(client.v1)) {
    if (typeof endpoints === 'object' && endpoints !== null) {
      names.push(...methodNames(endpoints as object).map((name) => `v1.${resource}.${name}`));
    }
  }
  return names.sort();
}

interface Document {
  paths: Record<string, Record<string, unknown>>;
}

let server: TestServer;
let document: Document;
let apiKey: string;
let authToken: string;

beforeAll(async () => {
  server = await testServer();
  const rider = await createPerson(server, 'Client Reach');
  ({ apiKey, authToken } = await credentialsFor(server, rider));
  const response = await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(response.statusCode).toBe(200);
  document = response.json<Document>();
});

afterAll(async () => {
  await server.close();
});

/** A client whose requests go to the real server and are written down first. */
function recordingClient(sent: TransportRequest[]): RideportClient {
  const inner = injectTransport(server.app.inject.bind(server.app));
  const transport: Transport = {
    request: (request) => {
      sent.push(request);
      return inner.request(request);
    },
    close: () => inner.close(),
  };
  return new RideportClient({
    baseUrl: 'http://rideport.test',
    credentials: { kind: 'auth-token', apiKey, authToken },
    transport,
    // Polls and retries wait a moment, not their real backoff: what matters is which requests are sent.
    sleep: (ms, signal) => realSleep(Math.min(ms, 5), signal),
  });
}

/** The document's operation for a request: its method at a path whose template matches. */
function documented(method: string, pathname: string): boolean {
  return Object.entries(document.paths).some(([template, operations]) => {
    const pattern = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`);
    return pattern.test(pathname) && Object.hasOwn(operations, method.toLowerCase());
  });
}

describe('the client and the OpenAPI document', () => {
  it('has a call for every client method that sends requests, and no other', () => {
    const client = recordingClient([]);
    expect(Object.keys(CALLS).sort()).toEqual(clientMethods(client));
  });

  for (const [name, call] of Object.entries(CALLS)) {
    it(`${name}: every request it sends is in the document`, async () => {
      const sent: TransportRequest[] = [];
      await call(recordingClient(sent)).catch(() => undefined);
      expect(sent.length).toBeGreaterThan(0);
      const undocumented = sent
        .map((request) => `${request.method} ${new URL(request.url).pathname}`)
        .filter((key) => {
          const [method = '', pathname = ''] = key.split(' ');
          return !documented(method, pathname);
        });
      expect(undocumented).toEqual([]);
    });
  }
});

/**
 * A server for tests: a fresh database (SQLite in memory, or PostgreSQL: test-database.ts), a clock the test moves, and helpers to make accounts and
 * credentials through the data-access layer (the same calls `rideport admin` makes).
 */
import type { FastifyInstance } from 'fastify';
import { buildServer, type BuildServerOptions } from '../app.js';
import { newMasterKey } from '../security/secrets.js';
import { testDatabaseUrl } from './test-database.js';
import type { ApiClient, Store } from '../store/index.js';

export const BASE_URL = 'http://rideport.test';
export const START_TIME = Date.parse('2026-03-01T12:00:00Z');

export interface TestClock {
  now: number;
  advance(milliseconds: number): void;
}

export interface TestServer {
  app: FastifyInstance;
  clock: TestClock;
  /** the Store behind the app, for arranging data */
  store: Store;
  close(): Promise<void>;
}

/** Builds a server on a fresh database: SQLite in memory, or PostgreSQL in that run (test-database.ts). */
export async function testServer(options: Partial<BuildServerOptions> = {}): Promise<TestServer> {
  const clock: TestClock = {
    now: START_TIME,
    advance(milliseconds) {
      this.now += milliseconds;
    },
  };
  const databaseUrl = await testDatabaseUrl();
  const app = await buildServer({
    databasePath: ':memory:',
    ...(databaseUrl === undefined ? {} : { databaseUrl, masterKey: newMasterKey() }),
    baseUrl: BASE_URL,
    clock: () => clock.now,
    ...options,
  });
  return { app, clock, store: app.rideport.store, close: () => app.close() };
}

export interface Person {
  id: number;
  email: string;
  password: string;
}

let personCount = 0;

export async function createPerson(server: TestServer, name = 'Rider'): Promise<Person> {
  personCount += 1;
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}.${personCount}@example.com`;
  const password = `correct horse ${personCount}`;
  const user = await server.store.users.createPerson({ email, password, name });
  return { id: user.id, email, password };
}

export interface Credentials {
  client: ApiClient;
  apiKey: string;
  authToken: string;
  /** the header of Basic authentication for these credentials */
  basic: string;
}

/** An API client owned by `owner` and an auth token for `user` through it. */
export async function credentialsFor(
  server: TestServer,
  user: Person,
  owner: Person = user,
): Promise<Credentials> {
  const client = await server.store.apiClients.create(owner.id, {
    name: 'Test client',
    redirectUris: ['https://app.example.com/callback'],
  });
  const { token } = await server.store.authTokens.issue(user.id, client.id);
  return {
    client,
    apiKey: client.apiKey,
    authToken: token,
    basic: `Basic ${Buffer.from(`${client.apiKey}:${token}`).toString('base64')}`,
  };
}

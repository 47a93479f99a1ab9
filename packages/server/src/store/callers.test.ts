/**
 * Credential lookups (store/callers.ts) compile their queries once (db/prepared.ts) but keep no
 * results: a revoked token or a deleted client stops resolving at the very next request, whether the
 * change was made through this server or through another connection to its database (`rideport admin`,
 * an upload worker).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../db/open.js';
import { databaseOptions } from '../test-support/database-options.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Credentials,
  type Person,
  type TestServer,
} from '../test-support/server.js';
import { onPostgres, reopenableDatabase } from '../test-support/test-database.js';
import { Store, storeOptionsOf } from './index.js';

let database: { location: string; remove(): void };
let server: TestServer;
let rider: Person;
let credentials: Credentials;

beforeEach(async () => {
  // A database a second connection can open (a file on SQLite), as `rideport admin` would.
  database = await reopenableDatabase();
  server = await testServer(databaseOptions(database.location));
  rider = await createPerson(server, 'Anna Rider');
  credentials = await credentialsFor(server, rider);
});
afterEach(async () => {
  await server.close();
  database.remove();
});

async function accessToken(): Promise<string> {
  const { token } = await server.store.oauth.issueToken(credentials.client.id, rider.id, null, 'read');
  return token;
}

describe('Callers', () => {
  it('resolves a live auth token with its API key, and nothing with another key', async () => {
    const resolved = await server.store.callers.byAuthToken(credentials.apiKey, credentials.authToken);
    expect(resolved?.user.id).toBe(rider.id);
    expect(resolved?.client.id).toBe(credentials.client.id);
    const other = await credentialsFor(server, rider);
    expect(await server.store.callers.byAuthToken(other.apiKey, credentials.authToken)).toBeUndefined();
  });

  it('stops resolving a token as soon as it is revoked, or its client deleted', async () => {
    const { callers } = server.store;
    const check = await server.store.authTokens.check(credentials.authToken, credentials.client.id);
    if (!check.ok) throw new Error('the token should be live');
    expect(await callers.byAuthToken(credentials.apiKey, credentials.authToken)).toBeDefined();
    await server.store.authTokens.revoke(check.row.id);
    expect(await callers.byAuthToken(credentials.apiKey, credentials.authToken)).toBeUndefined();

    const token = await accessToken();
    expect(await callers.byAccessToken(token)).toBeDefined();
    expect(await server.store.oauth.revokeToken(token, credentials.client.id)).toBe(true);
    expect(await callers.byAccessToken(token)).toBeUndefined();

    const { token: authToken } = await server.store.authTokens.issue(rider.id, credentials.client.id);
    const live = await accessToken();
    expect(await callers.byAuthToken(credentials.apiKey, authToken)).toBeDefined();
    expect(await callers.byAccessToken(live)).toBeDefined();
    expect(await server.store.apiClients.delete(credentials.client.id)).toBe(true);
    expect(await callers.byAuthToken(credentials.apiKey, authToken)).toBeUndefined();
    expect(await callers.byAccessToken(live)).toBeUndefined();
  });

  it('stops resolving a token that expires while it is kept, and hands out callers nobody can change', async () => {
    const { callers } = server.store;
    const first = await callers.byAuthToken(credentials.apiKey, credentials.authToken);
    expect(first).toBeDefined();
    // The same caller again, frozen; kept, since nothing was written in between (on PostgreSQL only once
    // its change listener listens, which the first lookup starts: db/change-listener.ts).
    const again = await callers.byAuthToken(credentials.apiKey, credentials.authToken);
    expect(again).toEqual(first);
    if (!onPostgres) expect(again).toBe(first);
    expect(Object.isFrozen(again?.user) && Object.isFrozen(again?.client)).toBe(true);
    // Unused for longer than the lifetime: expired, though the database did not change.
    server.clock.advance(30 * 24 * 3600 * 1000 + 1);
    expect(await callers.byAuthToken(credentials.apiKey, credentials.authToken)).toBeUndefined();
  });

  describe('changes made through another connection', () => {
    let other: OpenDatabase;
    let otherStore: Store;

    beforeEach(async () => {
      const { options } = server.app.rideport;
      other = await openDatabase(options.database);
      otherStore = new Store(
        other,
        storeOptionsOf({ ...options, clock: () => server.clock.now }),
        Buffer.alloc(32),
      );
    });
    afterEach(async () => {
      await other.close();
    });

    it('take effect at the next lookup', async () => {
      const { callers } = server.store;
      expect(await callers.byAuthToken(credentials.apiKey, credentials.authToken)).toBeDefined();
      const check = await otherStore.authTokens.check(credentials.authToken, credentials.client.id);
      if (!check.ok) throw new Error('the token should be live');
      await otherStore.authTokens.revoke(check.row.id);
      expect(await callers.byAuthToken(credentials.apiKey, credentials.authToken)).toBeUndefined();

      const token = await accessToken();
      expect(await callers.byAccessToken(token)).toBeDefined();
      expect(await otherStore.apiClients.delete(credentials.client.id)).toBe(true);
      expect(await callers.byAccessToken(token)).toBeUndefined();
    });
  });
});

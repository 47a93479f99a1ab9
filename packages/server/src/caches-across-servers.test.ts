/**
 * What a server keeps in memory between requests, with two servers on one PostgreSQL database (issue
 * 18; db/change-listener.ts): a token revoked on one is refused on the other at its very next request,
 * round after round; a route created on one is in the other's list at once; and while a server's
 * change listener is down, it keeps nothing and misses no revocation. Each server also really keeps
 * what it read (a revocation made with the triggers switched off is not seen), so the checks above are
 * the change signal's doing, not a cache that was never used.
 *
 * On SQLite one server runs on a database (issue 17), so this runs in the PostgreSQL run only.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Track } from '@rideport/ridefile';
import { readFixture } from '../../../test/support/corpus.js';
import { LISTENER_APPLICATION_NAME } from './db/change-listener.js';
import { tracksOf } from './test-support/assets.js';
import { databaseOptions } from './test-support/database-options.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Credentials,
  type Person,
  type TestServer,
} from './test-support/server.js';
import { onPostgres, reopenableDatabase } from './test-support/test-database.js';
import { waitUntil } from './test-support/webhook-receiver.js';

const ROUNDS = 40;

let nodeA: TestServer;
let nodeB: TestServer;
let rider: Person;
let credentials: Credentials;
/** a connection of the test's own, beside the servers' */
let side: Kysely<unknown>;

beforeEach(async () => {
  if (!onPostgres) return;
  const database = await reopenableDatabase();
  nodeA = await testServer(databaseOptions(database.location));
  nodeB = await testServer(databaseOptions(database.location));
  side = new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.location, max: 1 }) }),
  });
  rider = await createPerson(nodeA, 'Shared Rider');
  credentials = await credentialsFor(nodeA, rider);
});
afterEach(async () => {
  if (!onPostgres) return;
  await nodeA.close();
  await nodeB.close();
  await side.destroy();
});

/** The status of GET /api/v1/users/current.json on `node` with `token` of the rider's client. */
async function currentUser(node: TestServer, token: string): Promise<number> {
  const basic = `Basic ${Buffer.from(`${credentials.apiKey}:${token}`).toString('base64')}`;
  const response = await node.app.inject({
    method: 'GET',
    url: '/api/v1/users/current.json',
    headers: { authorization: basic },
  });
  return response.statusCode;
}

/** The change listeners connected to the test's database (of either server). */
async function listeners(): Promise<number[]> {
  const { rows } = await sql<{ pid: number }>`
    SELECT pid FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = ${LISTENER_APPLICATION_NAME}
      AND state = 'idle'`.execute(side);
  return rows.map((row) => row.pid);
}

/** Until `count` listeners are connected; each server's first lookups start its own. */
async function untilListening(count: number, token: string): Promise<void> {
  await waitUntil(async () => {
    await currentUser(nodeA, token);
    await currentUser(nodeB, token);
    return (await listeners()).length === count;
  }, `${count} change listeners`);
}

/** Ends every change listener's connection from the database's side, as a failover or restart would. */
async function endListeners(): Promise<void> {
  await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = ${LISTENER_APPLICATION_NAME}`.execute(side);
}

/** Revokes `tokenId` from the side connection with triggers off: no server hears of it. */
async function revokeUnheard(tokenId: number): Promise<void> {
  await side.connection().execute(async (connection) => {
    await sql`SET session_replication_role = replica`.execute(connection);
    await sql`UPDATE auth_tokens SET revoked_at = 1 WHERE id = ${tokenId}`.execute(connection);
    await sql`SET session_replication_role = DEFAULT`.execute(connection);
  });
}

function plannedLoop(): Track {
  const track = tracksOf(readFixture('gpx', 'tracks-and-routes.gpx'), 'x.gpx').find(
    (t) => t.kind === 'route' && t.name === 'Planned loop',
  );
  if (track === undefined) throw new Error('the fixture lost its route');
  return track;
}

it.runIf(onPostgres)('keeps a token it checked for as long as nothing tells it otherwise', async () => {
  await untilListening(2, credentials.authToken);
  const { row, token } = await nodeA.store.authTokens.issue(rider.id, credentials.client.id);
  expect(await currentUser(nodeB, token)).toBe(200);
  await revokeUnheard(row.id);
  // Kept: without the change signal, B cannot know. This is what the other checks rely on.
  expect(await currentUser(nodeB, token)).toBe(200);
  // Any change heard drops it (here, another token of the rider's revoked on A).
  await nodeA.store.authTokens.revoke(
    (await nodeA.store.authTokens.issue(rider.id, credentials.client.id)).row.id,
  );
  expect(await currentUser(nodeB, token)).toBe(401);
});

it.runIf(onPostgres)(
  'refuses a token revoked on the other server at its very next request, round after round',
  async () => {
    await untilListening(2, credentials.authToken);
    for (let round = 0; round < ROUNDS; round++) {
      const { row, token } = await nodeA.store.authTokens.issue(rider.id, credentials.client.id);
      // Looked up on both, then kept.
      expect(await currentUser(nodeB, token)).toBe(200);
      expect(await currentUser(nodeA, token)).toBe(200);
      expect(await currentUser(nodeB, token)).toBe(200);
      // Revoked on one server (alternately A and B), used on the other the moment that returns.
      const [revoking, using] = round % 2 === 0 ? [nodeA, nodeB] : [nodeB, nodeA];
      await revoking.store.authTokens.revoke(row.id);
      expect(await currentUser(using, token)).toBe(401);
      expect(await currentUser(revoking, token)).toBe(401);
    }
    // Both listened throughout: the refusals came from the signal, not from nothing being kept.
    expect(await listeners()).toHaveLength(2);
  },
);

it.runIf(onPostgres)("lists a route created on one server in the other's list at once", async () => {
  await untilListening(2, credentials.authToken);
  const list = async (node: TestServer): Promise<number[]> => {
    const response = await node.app.inject({
      method: 'GET',
      url: '/api/v1/routes.json',
      headers: { authorization: credentials.basic },
    });
    expect(response.statusCode).toBe(200);
    return response.json<{ routes: { id: number }[] }>().routes.map((route) => route.id);
  };
  const created: number[] = [];
  for (let round = 0; round < 10; round++) {
    // B's page of the list, rendered and kept.
    expect(await list(nodeB)).toEqual(await list(nodeB));
    const writer = round % 2 === 0 ? nodeA : nodeB;
    const reader = round % 2 === 0 ? nodeB : nodeA;
    created.push((await writer.store.assets.createFromTrack(rider.id, plannedLoop())).row.id);
    expect((await list(reader)).sort()).toEqual([...created].sort());
    // The writer's own list too: its write is heard by its own listener.
    expect((await list(writer)).sort()).toEqual([...created].sort());
  }
});

it.runIf(onPostgres)(
  'keeps nothing while its listener is down, and misses no revocation made meanwhile',
  async () => {
    await untilListening(2, credentials.authToken);
    const first = await nodeA.store.authTokens.issue(rider.id, credentials.client.id);
    const second = await nodeA.store.authTokens.issue(rider.id, credentials.client.id);
    expect(await currentUser(nodeB, first.token)).toBe(200);
    expect(await currentUser(nodeB, second.token)).toBe(200);

    // Both servers' listeners are ended by the database; a token is revoked before either notices.
    await endListeners();
    await nodeA.store.authTokens.revoke(first.row.id);
    expect(await currentUser(nodeB, first.token)).toBe(401);

    // What was kept before the listener was lost is not trusted again: a change nobody was told of
    // is seen too.
    await revokeUnheard(second.row.id);
    expect(await currentUser(nodeB, second.token)).toBe(401);

    // Ended again, with nothing asked meanwhile: a token B kept is revoked, then B listens anew.
    const third = await nodeA.store.authTokens.issue(rider.id, credentials.client.id);
    expect(await currentUser(nodeB, third.token)).toBe(200);
    await untilListening(2, credentials.authToken);
    await endListeners();
    await nodeA.store.authTokens.revoke(third.row.id);
    await untilListening(2, credentials.authToken);
    expect(await currentUser(nodeB, third.token)).toBe(401);

    // Listening again, B keeps what it reads again (an unheard revocation is not seen) …
    const fourth = await nodeA.store.authTokens.issue(rider.id, credentials.client.id);
    expect(await currentUser(nodeB, fourth.token)).toBe(200);
    await revokeUnheard(fourth.row.id);
    expect(await currentUser(nodeB, fourth.token)).toBe(200);
    // … and hears revocations made on A again.
    const fifth = await nodeA.store.authTokens.issue(rider.id, credentials.client.id);
    expect(await currentUser(nodeB, fifth.token)).toBe(200);
    await nodeA.store.authTokens.revoke(fifth.row.id);
    expect(await currentUser(nodeB, fifth.token)).toBe(401);
  },
);

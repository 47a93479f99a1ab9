/**
 * The sync engine against a real server whose disk fills up (issue 17, "Faults said in words"): the
 * server's data directory is on a small tmpfs mounted for the test (root only; otherwise the test says
 * that it skipped). While the disk is full every upload gets 507; the engine says so in its state,
 * marks no ride failed and counts no attempt; once space is freed it uploads every ride by itself,
 * each exactly once, and the server's database passes its integrity check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RideportClient, undiciTransport } from '@rideport/client';
import { buildServer } from '@rideport/server';
import { SyncEngine, type SyncStatus } from '@rideport/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  databaseChecks,
  mountSmallDisk,
  smallDiskUnavailable,
  truncateLog,
  type SmallDisk,
} from '../packages/server/src/test-support/small-disk.js';
import { gpxRide, tempFolder, type TempFolder } from '../packages/sync/src/test-support/rides.js';

const skipReason = smallDiskUnavailable();
if (skipReason !== null) console.warn(`[disk full, sync] SKIPPED, ${skipReason}`);

const FULL = "the server's disk is full; try again later";
const RIDES = 4;

let scratch: string;
let device: TempFolder;
let disk: SmallDisk;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  if (skipReason !== null) return;
  scratch = mkdtempSync(join(tmpdir(), 'rideport-disk-full-sync-'));
  device = tempFolder('rideport-disk-full-device-');
  disk = mountSmallDisk(32 * 1024 * 1024);
});

afterEach(async () => {
  if (skipReason !== null) return;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  disk.remove();
  device.remove();
  rmSync(scratch, { recursive: true, force: true });
});

async function until(
  engine: SyncEngine,
  condition: (status: SyncStatus) => boolean,
  what: string,
  seen: SyncStatus[],
): Promise<SyncStatus> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    const status = engine.status();
    seen.push(status);
    if (condition(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(seen.at(-1))}`);
}

describe.skipIf(skipReason !== null)('sync against a server whose disk is full', () => {
  it('waits in words, fails no ride, and syncs every ride once by itself when space is freed', async () => {
    const databasePath = join(disk.path, 'rideport.sqlite');
    const app = await buildServer({ databasePath, baseUrl: 'http://127.0.0.1' });
    let closed = false;
    cleanups.push(async () => {
      if (!closed) await app.close();
    });
    const { store } = app.rideport;
    const user = await store.users.createPerson({ email: 'rider@example.com', password: 'long enough' });
    const apiClient = await store.apiClients.create(user.id, { name: 'Sync', redirectUris: [] });
    const { token } = await store.authTokens.issue(user.id, apiClient.id);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const client = new RideportClient({
      baseUrl: url,
      credentials: { kind: 'auth-token', apiKey: apiClient.apiKey, authToken: token },
      transport: undiciTransport(),
    });
    cleanups.push(() => client.close());

    truncateLog(databasePath);
    disk.fill();
    for (let seed = 1; seed <= RIDES; seed++) device.write(`ride-${seed}.gpx`, gpxRide(seed, 3000));
    const engine = new SyncEngine({
      ledgerPath: join(scratch, 'ledger.sqlite'),
      inboxFolder: join(scratch, 'inbox'),
      uploader: client,
      folders: [device.path],
      firstImport: { kind: 'all' },
    });
    cleanups.push(() => engine.stop());
    engine.start();

    const seen: SyncStatus[] = [];
    const waiting = await until(engine, (status) => status.state.kind === 'server-full', 'server-full', seen);
    expect(waiting.state).toMatchObject({ kind: 'server-full', message: FULL });
    // Held for a while: the engine knocks again with backoff, and still fails nothing.
    const heldUntil = Date.now() + 3000;
    await until(engine, () => Date.now() > heldUntil, 'a few tries', seen);
    const whileFull = engine.status();
    expect(whileFull.counts).toMatchObject({ found: RIDES, synced: 0, failed: 0 });
    expect(whileFull.recent.every((ride) => ride.attempts === 0)).toBe(true);

    disk.free();
    const done = await until(engine, (status) => status.counts.synced === RIDES, 'every ride synced', seen);
    expect(done.counts).toMatchObject({ found: RIDES, synced: RIDES, failed: 0, queued: 0, uploading: 0 });
    expect(seen.filter((status) => status.counts.failed > 0)).toEqual([]);
    const trips: number[] = [];
    for await (const trip of client.v1.trips.all({ pageSize: 200 })) trips.push(trip.id);
    expect(trips).toHaveLength(RIDES);

    await engine.stop();
    await app.close();
    closed = true;
    expect(databaseChecks(databasePath)).toEqual({ integrity: ['ok'], foreignKeyProblems: 0 });
  });
});

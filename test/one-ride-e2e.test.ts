/**
 * One ride per ride, end to end (issue 16, "Tests and figures"): a real server on a real socket, the
 * real client and sync engine, real ride files. A cut-off copy and then its whole file make one trip,
 * completed; a `.fit` and its `.fit.gz`, a FIT and the TCX exported from it, are duplicates; two
 * devices' recordings of one ride are two trips, each page saying it overlaps the other.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { RideportClient, undiciTransport, type UploadedRide } from '@rideport/client';
import { parseRideFile, RideFileWarningCode, writeTcx } from '@rideport/ridefile';
import { buildServer, openPlatform } from '@rideport/server';
import { SyncEngine } from '@rideport/sync';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORPUS_SKIP_REASON, corpusAvailable, readCorpus, readFixture } from './support/corpus.js';
import { dashboardPages } from '@rideport/dashboard';

if (!corpusAvailable) console.warn(`[one-ride e2e] ${CORPUS_SKIP_REASON}`);

let scratch: string;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'rideport-one-ride-'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

interface Running {
  url: string;
  app: FastifyInstance;
  userId: number;
  client: RideportClient;
}

/** The real server on a file database, listening on a free loopback port, and a client of its account. */
async function running(): Promise<Running> {
  const databasePath = join(scratch, 'server.sqlite');
  const platform = await openPlatform({ databasePath, baseUrl: 'http://127.0.0.1' });
  let userId: number;
  let apiKey: string;
  let authToken: string;
  try {
    const user = await platform.store.users.createPerson({
      email: 'rider@example.com',
      password: 'long enough',
    });
    const apiClient = await platform.store.apiClients.create(user.id, { name: 'Uploader', redirectUris: [] });
    userId = user.id;
    apiKey = apiClient.apiKey;
    authToken = (await platform.store.authTokens.issue(user.id, apiClient.id)).token;
  } finally {
    await platform.close();
  }
  const app = await buildServer({ databasePath, baseUrl: 'http://127.0.0.1', pages: [dashboardPages] });
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  const url = `http://127.0.0.1:${address.port}`;
  const client = new RideportClient({
    baseUrl: url,
    credentials: { kind: 'auth-token', apiKey, authToken },
    transport: undiciTransport(),
  });
  cleanups.push(() => client.close());
  return { url, app, userId, client };
}

async function send(server: Running, filename: string, bytes: Uint8Array): Promise<UploadedRide> {
  return server.client.uploadRide({ bytes, filename });
}

async function tripIds(server: Running): Promise<number[]> {
  const ids: number[] = [];
  for await (const trip of server.client.v1.trips.all({ pageSize: 200 })) ids.push(trip.id);
  return ids.sort((a, b) => a - b);
}

/** A ride page's text as a browser gets it, signed in through a one-time sign-in link, over the socket. */
async function ridePage(server: Running, tripId: number): Promise<string> {
  const link = new URL(await server.app.rideport.signInLink(server.userId, `/dashboard/rides/${tripId}`));
  const signIn = await fetch(`${server.url}${link.pathname}${link.search}`, { redirect: 'manual' });
  expect(signIn.status).toBe(303);
  const cookie = signIn.headers
    .getSetCookie()
    .map((header) => header.split(';', 1)[0])
    .join('; ');
  const page = await fetch(`${server.url}/dashboard/rides/${tripId}`, { headers: { cookie } });
  expect(page.status).toBe(200);
  return (await page.text()).replace(/\s+/g, ' ');
}

describe.skipIf(!corpusAvailable)('one ride per ride, against a real server', () => {
  it('a cut-off copy, then its whole file: one trip, completed from the whole file', async () => {
    const server = await running();
    const whole = readCorpus('goldencheetah__Karoo-Botley_BW_Swanmore_Wickham-2025-05-09-1238.fit');
    // The file as a device still writing it leaves it: cut in the middle of its records.
    const cutOff = whole.slice(0, Math.floor(whole.length * 0.45));
    const [cutTrack] = parseRideFile(cutOff).tracks;
    const [wholeTrack] = parseRideFile(whole).tracks;
    expect(cutTrack!.warnings.map((warning) => warning.code)).toContain(RideFileWarningCode.TRUNCATED);
    expect(cutTrack!.points.length).toBeLessThan(wholeTrack!.points.length / 2);

    const first = await send(server, 'Karoo.fit', cutOff);
    expect(first.outcome).toBe('created');
    const [trip] = first.trips;
    expect((await server.client.v1.trips.get(trip!.id)).track_points).toHaveLength(cutTrack!.points.length);
    // The rider names the ride meanwhile (as the dashboard would); completing it keeps that.
    await server.app.rideport.store.assets.update('trip', trip!.id, server.userId, { name: 'Botley loop' });
    const since = new Date();
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const second = await send(server, 'Karoo.fit', whole);
    expect(second).toMatchObject({
      outcome: 'duplicate',
      message:
        'Already on the platform as Botley loop; it was completed from this file, which goes on where the stored copy was cut off',
    });
    expect(second.trips.map((each) => each.id)).toEqual([trip!.id]);
    expect(await tripIds(server)).toEqual([trip!.id]);
    const completed = await server.client.v1.trips.get(trip!.id);
    expect(completed.track_points).toHaveLength(wholeTrack!.points.length);
    expect(completed.name).toBe('Botley loop');
    expect(completed.distance).toBeCloseTo(wholeTrack!.summary.distanceMeters!, 3);
    // Clients that follow sync.json learn the ride changed.
    const changes = await server.client.v1.sync({ since, assets: ['trips'] });
    expect(changes.items.map((item) => [item.item_id, item.action])).toEqual([[trip!.id, 'updated']]);
  });

  it('a .fit and its .fit.gz: one trip, the second a duplicate naming it', async () => {
    const server = await running();
    const fit = readCorpus('fitparse__garmin-edge-500-activity.fit');
    const first = await send(server, 'Edge500.fit', fit);
    const second = await send(server, 'Edge500.fit.gz', gzipSync(fit));
    expect(first.outcome).toBe('created');
    expect(second).toMatchObject({
      outcome: 'duplicate',
      message: `Already on the platform as ${first.trips[0]!.name}`,
    });
    expect(second.trips.map((trip) => trip.id)).toEqual(first.trips.map((trip) => trip.id));
    expect(await tripIds(server)).toHaveLength(1);
  });

  it('a FIT and the TCX exported from it: a duplicate', async () => {
    const server = await running();
    const fit = readCorpus('goldencheetah__Weather_XDATA_2016_02_06_13_01_22.fit');
    const tcx = new TextEncoder().encode(writeTcx(parseRideFile(fit)));
    const first = await send(server, 'Edge1000.fit', fit);
    const second = await send(server, 'Edge1000.tcx', tcx);
    expect(second.outcome).toBe('duplicate');
    expect(second.trips.map((trip) => trip.id)).toEqual(first.trips.map((trip) => trip.id));
    expect(await tripIds(server)).toHaveLength(1);
  });

  it('two devices recording one ride: two trips, each page naming the other as overlapping', async () => {
    const server = await running();
    const pairs = [
      // The fixtures: a bike computer and a watch 8 m apart, the watch started 4 s later.
      [readFixture('fit', 'two-devices-edge.fit'), readFixture('fit', 'two-devices-watch.fit')],
      // Real files: a Fenix 6 and Zwift recording the same indoor session.
      [readCorpus('FITfileR__garmin-fenix6-turbo.fit'), readCorpus('FITfileR__zwift-turbo.fit')],
    ] as const;
    for (const [a, b] of pairs) {
      const first = await send(server, 'a.fit', a);
      const second = await send(server, 'b.fit', b);
      expect([first.outcome, second.outcome]).toEqual(['created', 'created']);
      const [one] = first.trips;
      const [other] = second.trips;
      for (const [page, named] of [
        [await ridePage(server, one!.id), other!],
        [await ridePage(server, other!.id), one!],
      ] as const) {
        // The other ride by name, with its device and times, linked.
        expect(page).toContain(
          `Overlaps <a href="/dashboard/rides/${named.id}">${named.name}</a> (${named.device ?? 'device unknown'}, `,
        );
        expect(page).toContain('another recording of the same time.');
      }
    }
    expect(await tripIds(server)).toHaveLength(4);
  });

  it('the sync engine takes a .fit and its .fit.gz from a folder: both synced, one ride, the second a duplicate', async () => {
    const server = await running();
    const fit = readCorpus('gpsbabel__garmin-edge-800.fit');
    const folder = join(scratch, 'Rides');
    mkdirSync(folder);
    writeFileSync(join(folder, 'Edge800.fit'), fit);
    writeFileSync(join(folder, 'Edge800 copy.fit.gz'), gzipSync(fit));
    const engine = new SyncEngine({
      ledgerPath: join(scratch, 'ledger.sqlite'),
      inboxFolder: join(scratch, 'inbox'),
      uploader: server.client,
      folders: [folder],
      firstImport: { kind: 'all' },
    });
    cleanups.push(() => engine.stop());
    const status = await engine.syncOnce();
    expect(status.counts).toMatchObject({ found: 2, synced: 2, failed: 0, queued: 0 });
    const ids = await tripIds(server);
    expect(ids).toHaveLength(1);
    expect(status.recent.map((entry) => entry.tripIds)).toEqual([ids, ids]);
    expect(status.recent.filter((entry) => entry.duplicate)).toHaveLength(1);
    expect(status.recent.find((entry) => entry.duplicate)?.message).toMatch(/^Already on the platform as /);
  });
});

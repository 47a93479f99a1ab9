import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClientError, ClientErrorCode } from '@rideport/client';
import { zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SyncEngine, type SyncEngineOptions } from './engine.js';
import { sha256Of } from './inbox.js';
import { Ledger } from './ledger.js';
import {
  FakeUploader,
  gpxRide,
  tempFolder,
  unauthorized,
  unreachable,
  type TempFolder,
} from './test-support/rides.js';

let device: TempFolder;
let data: TempFolder;
let uploader: FakeUploader;
const engines: SyncEngine[] = [];

beforeEach(() => {
  device = tempFolder('rideport-device-');
  data = tempFolder('rideport-data-');
  uploader = new FakeUploader();
});

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.stop();
  device.remove();
  data.remove();
});

function engineFor(options: Partial<SyncEngineOptions> = {}): SyncEngine {
  const engine = new SyncEngine({
    ledgerPath: join(data.path, 'ledger.sqlite'),
    inboxFolder: join(data.path, 'inbox'),
    uploader,
    folders: [device.path],
    firstImport: { kind: 'all' },
    ...options,
  });
  engines.push(engine);
  return engine;
}

async function restart(engine: SyncEngine, options: Partial<SyncEngineOptions> = {}): Promise<SyncEngine> {
  engines.splice(engines.indexOf(engine), 1);
  await engine.stop();
  return engineFor(options);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a pass over a folder', () => {
  it('uploads every ride once, recognises the same content under another name, and never again after a restart', async () => {
    for (let seed = 1; seed <= 5; seed++) device.write(`Activity/ride-${seed}.gpx`, gpxRide(seed));
    device.write('Activity/copy-of-ride-1.gpx', gpxRide(1));
    device.write('Activity/notes.txt', 'not a ride');
    device.write('Activity/._ride-1.gpx', 'macOS resource fork');
    let engine = engineFor();

    const status = await engine.syncOnce();
    // Five contents, each once, whichever of the two names of ride 1 was listed first.
    expect(uploader.uploads).toHaveLength(5);
    expect(new Set(uploader.uploads.map((upload) => upload.sha256)).size).toBe(5);
    expect(status.counts).toMatchObject({ found: 5, synced: 5, failed: 0, queued: 0, waiting: 0 });
    expect(status.state).toEqual({ kind: 'idle' });
    expect(status.recent.every((entry) => entry.tripIds.length === 1 && entry.message !== null)).toBe(true);
    // Synced copies leave the inbox.
    expect(readdirSync(join(data.path, 'inbox'))).toEqual([]);

    await engine.syncOnce();
    engine = await restart(engine);
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(5);
    // Each trip knows the folder it came from.
    const sources = engine.tripSources([1, 2, 3, 4, 5, 99]);
    expect([...sources.keys()].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(sources.values())).toEqual(new Set([device.path]));
  });

  it('leaves no copy in the inbox of a ride found again under another name after it was synced', async () => {
    // The race the test above met under load: the copy is collected after the first name's upload.
    device.write('Activity/ride-1.gpx', gpxRide(1));
    const engine = engineFor();
    await engine.syncOnce();
    expect(readdirSync(join(data.path, 'inbox'))).toEqual([]);
    device.write('Activity/copy-of-ride-1.gpx', gpxRide(1));
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(1);
    expect(readdirSync(join(data.path, 'inbox'))).toEqual([]);
  });

  it('says a byte-identical copy once: the file it is the same as, and what that ride became (issue 35)', async () => {
    device.write('Activity/ride-1.gpx', gpxRide(1));
    let engine = engineFor();
    await engine.syncOnce();
    device.write('Backup/ride-1 (copy).gpx', gpxRide(1));
    let status = await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(1);
    const synced = status.recent[0]!;
    expect(status.copies).toEqual([
      {
        sourceId: synced.sourceId,
        relativePath: 'Backup/ride-1 (copy).gpx',
        sameAs: {
          sourceId: synced.sourceId,
          relativePath: 'Activity/ride-1.gpx',
          state: 'synced',
          tripIds: synced.tripIds,
          routeIds: [],
        },
        foundAt: expect.any(String) as string,
      },
    ]);
    // Once: not again on the next pass, nor after a restart, nor when the copy is touched unchanged.
    await engine.syncOnce();
    expect((await engine.syncOnce()).copies).toHaveLength(1);
    engine = await restart(engine);
    const touched = join(device.path, 'Backup/ride-1 (copy).gpx');
    utimesSync(touched, new Date(), new Date(Date.now() + 5_000));
    status = await engine.syncOnce();
    expect(status.copies).toEqual([]);
    // The original touched is the same file, not a copy of itself.
    utimesSync(join(device.path, 'Activity/ride-1.gpx'), new Date(), new Date(Date.now() + 9_000));
    expect((await engine.syncOnce()).copies).toEqual([]);
    expect(uploader.uploads).toHaveLength(1);
  });

  it('does not read files again whose size and modification time are unchanged', async () => {
    const path = device.write('ride.gpx', gpxRide(1));
    // A whole-second mtime, so that setting it again below gives exactly the same value.
    const mtime = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    utimesSync(path, mtime, mtime);
    const engine = engineFor();
    await engine.syncOnce();
    // Same size, same mtime, other content: only re-hashing could notice, and a rescan must not hash.
    writeFileSync(path, gpxRide(2));
    utimesSync(path, mtime, mtime);
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(1);
    // A real change (new mtime) is read.
    utimesSync(path, new Date(), new Date(Date.now() + 5_000));
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(2);
  });

  it('waits for a file that is not whole yet, and takes it once it is', async () => {
    const whole = gpxRide(1);
    const path = device.write('ride.gpx', whole.slice(0, whole.length - 40));
    const engine = engineFor();
    let status = await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(0);
    expect(status.counts.waiting).toBe(1);
    writeFileSync(path, whole);
    utimesSync(path, new Date(), new Date(Date.now() + 5_000));
    status = await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(1);
    expect(status.counts.waiting).toBe(0);
  });

  it('takes a KMZ (issue 20: OpenTracks exports them): waits while the archive is cut off, uploads it once whole', async () => {
    const kml = new TextEncoder().encode(
      '<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Placemark><gx:Track>' +
        '<when>2026-01-01T08:00:00Z</when><when>2026-01-01T08:00:05Z</when>' +
        '<gx:coord>8.5 47.1 400</gx:coord><gx:coord>8.5 47.2 401</gx:coord></gx:Track></Placemark></kml>',
    );
    const kmz = zipSync({ 'doc.kml': kml, 'images/marker.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47]) });
    // The archive's directory comes last: a copy cut before it is a file still being written.
    const path = device.write('OpenTracks/track.kmz', kmz.subarray(0, kmz.length - 30));
    device.write('OpenTracks/track.zip', kmz);
    const engine = engineFor();
    let status = await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(0);
    expect(status.counts).toMatchObject({ waiting: 1 });
    writeFileSync(path, kmz);
    utimesSync(path, new Date(), new Date(Date.now() + 5_000));
    status = await engine.syncOnce();
    expect(uploader.uploads).toEqual([{ filename: 'track.kmz', sha256: sha256Of(kmz) }]);
    expect(status.counts).toMatchObject({ found: 1, synced: 1, waiting: 0 });
  });

  it('takes a file that stays cut off longer than the grace period: the server reads what it holds', async () => {
    const whole = gpxRide(1);
    device.write('ride.gpx', whole.slice(0, whole.length - 40));
    let nowMs = Date.now();
    const engine = engineFor({ incompleteGraceMs: 60_000, nowMs: () => nowMs });
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(0);
    nowMs += 61_000;
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(1);
  });

  it('keeps the ride when the device goes away after the file was collected', async () => {
    device.write('ride.gpx', gpxRide(1));
    uploader.failAlways(unreachable());
    const engine = engineFor();
    let status = await engine.syncOnce();
    expect(status.state.kind).toBe('offline');
    rmSync(device.path, { recursive: true });
    status = await engine.syncOnce();
    expect(status.sources).toMatchObject([{ present: false }]);
    uploader.failAlways(null);
    engine.syncNow();
    status = await engine.syncOnce();
    expect(uploader.uploads.map((upload) => upload.filename)).toEqual(['ride.gpx']);
    expect(status.counts.synced).toBe(1);
  });

  it("waits while the server's disk is full (507): says so, fails nothing, counts no attempt, and goes on once there is space", async () => {
    for (const seed of [1, 2, 3]) device.write(`ride-${seed}.gpx`, gpxRide(seed));
    const full = "the server's disk is full; try again later";
    uploader.failAlways(
      new ClientError(ClientErrorCode.SERVER_FULL, `POST /trips.json answered 507: ${full}`, {
        status: 507,
        serverMessages: [full],
      }),
    );
    const engine = engineFor();
    let status = await engine.syncOnce();
    expect(status.state).toMatchObject({ kind: 'server-full', message: full });
    expect(status.counts).toMatchObject({ queued: 3, synced: 0, failed: 0 });
    for (const ride of status.recent) {
      expect(ride).toMatchObject({ state: 'queued', attempts: 0 });
      expect([null, 'waiting for disk space on the server']).toContain(ride.message);
    }
    uploader.failAlways(null);
    engine.syncNow();
    status = await engine.syncOnce();
    expect(status.state.kind).toBe('idle');
    expect(status.counts).toMatchObject({ queued: 0, synced: 3, failed: 0 });
  });

  it('asks again when a server whose database is out of reach says (503 with Retry-After)', async () => {
    device.write('ride.gpx', gpxRide(1));
    const problem = 'the server cannot reach its database just now; try again in a few seconds';
    uploader.failAlways(
      new ClientError(ClientErrorCode.SERVER, `POST /trips.json answered 503: ${problem}`, {
        status: 503,
        serverMessages: [problem],
        retryAfterMs: 5000,
      }),
    );
    const nowMs = Date.now();
    const engine = engineFor({ nowMs: () => nowMs });
    const status = await engine.syncOnce({ attempts: 1 });
    expect(status.counts).toMatchObject({ queued: 1, synced: 0, failed: 0 });
    expect(status.recent).toMatchObject([{ state: 'queued', attempts: 1, message: problem }]);
    const ledger = new Ledger(join(data.path, 'ledger.sqlite'));
    try {
      // The server's 5 s, not the ride's own backoff (2 s after a first attempt).
      expect(ledger.dueRides(Number.MAX_SAFE_INTEGER, 10)).toMatchObject([{ nextAttemptAtMs: nowMs + 5000 }]);
    } finally {
      ledger.close();
    }
  });

  it('says "not present" for a missing folder and forgets nothing', async () => {
    device.write('ride.gpx', gpxRide(1));
    const engine = engineFor();
    await engine.syncOnce();
    const moved = `${device.path}-unplugged`;
    rmSync(moved, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.rename(device.path, moved));
    try {
      const status = await engine.syncOnce();
      expect(status.sources).toMatchObject([{ kind: 'folder', present: false }]);
      await import('node:fs/promises').then((fs) => fs.rename(moved, device.path));
      expect((await engine.syncOnce()).sources).toMatchObject([{ present: true }]);
      expect(uploader.uploads).toHaveLength(1);
    } finally {
      rmSync(moved, { recursive: true, force: true });
    }
  });
});

describe('the first sync of a new source', () => {
  it('waits to be told how far back to import', async () => {
    device.write('ride.gpx', gpxRide(1));
    const engine = engineFor({ firstImport: undefined });
    let status = await engine.syncOnce();
    expect(status.sources).toMatchObject([{ awaitingImportChoice: true, present: true }]);
    expect(uploader.uploads).toHaveLength(0);
    const source = status.sources[0]!;
    expect(engine.chooseImport(source.id, { kind: 'all' })).toBe(true);
    status = await engine.syncOnce();
    expect(status.sources).toMatchObject([{ awaitingImportChoice: false }]);
    expect(uploader.uploads).toHaveLength(1);
  });

  it('skips files older than the window and takes newer ones, now and later', async () => {
    const old = device.write('old.gpx', gpxRide(1));
    const recent = device.write('recent.gpx', gpxRide(2));
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000);
    utimesSync(old, tenDaysAgo, tenDaysAgo);
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    utimesSync(recent, twoDaysAgo, twoDaysAgo);
    const engine = engineFor({ firstImport: { kind: 'days', days: 7 } });
    await engine.syncOnce();
    expect(uploader.uploads.map((upload) => upload.filename)).toEqual(['recent.gpx']);

    device.write('new.gpx', gpxRide(3));
    await engine.syncOnce();
    expect(uploader.uploads.map((upload) => upload.filename)).toEqual(['recent.gpx', 'new.gpx']);
  });

  it('imports nothing from before now with the "new" window', async () => {
    const old = device.write('old.gpx', gpxRide(1));
    const past = new Date(Date.now() - 60_000);
    utimesSync(old, past, past);
    const engine = engineFor({ firstImport: { kind: 'from-now' } });
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(0);
  });
});

describe('what the server says', () => {
  it('parks uploads on 401 as "needs sign-in" while files keep being collected, and goes on after sign-in', async () => {
    device.write('ride-1.gpx', gpxRide(1));
    uploader.failAlways(unauthorized());
    const engine = engineFor();
    let status = await engine.syncOnce();
    expect(status.state).toEqual({ kind: 'needs-sign-in', message: 'log in again' });
    device.write('ride-2.gpx', gpxRide(2));
    status = await engine.syncOnce();
    expect(status.counts).toMatchObject({ found: 2, queued: 2, synced: 0 });
    expect(readdirSync(join(data.path, 'inbox'))).toHaveLength(2);

    uploader.failAlways(null);
    engine.signedIn();
    status = await engine.syncOnce();
    expect(status.state).toEqual({ kind: 'idle' });
    expect(status.counts).toMatchObject({ synced: 2, queued: 0 });
    // The refused attempts did not count as attempts of the rides.
    expect(status.recent.every((entry) => entry.attempts === 1)).toBe(true);
  });

  it('marks a file the server rejects as failed with its message, and uploads it again only when asked', async () => {
    device.write('broken.gpx', gpxRide(1));
    uploader.rejectNames.add('broken.gpx');
    const engine = engineFor();
    let status = await engine.syncOnce();
    expect(status.counts).toMatchObject({ failed: 1, synced: 0 });
    expect(status.recent[0]).toMatchObject({
      filename: 'broken.gpx',
      state: 'failed',
      message: 'Could not read the file: not a ride file',
      errorCode: 'RIDEFILE_MALFORMED',
    });
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(1);

    uploader.rejectNames.clear();
    expect(engine.retry(sha256Of(new TextEncoder().encode(gpxRide(1))))).toBe(true);
    status = await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(2);
    expect(status.counts).toMatchObject({ failed: 0, synced: 1 });
    expect(status.recent[0]).toMatchObject({ state: 'synced', errorCode: null });
  });

  it('marks a file the server found to be a ride it has (a duplicate) as synced, never failed (issue 16)', async () => {
    device.write('Activity/ride.fit', gpxRide(1));
    device.write('Activity/ride.fit.gz', gpxRide(2));
    uploader.sameRecordingAs.set('ride.fit.gz', 1);
    let engine = engineFor();
    const status = await engine.syncOnce();
    expect(status.counts).toMatchObject({ found: 2, synced: 2, failed: 0, queued: 0 });
    const copy = status.recent.find((entry) => entry.filename === 'ride.fit.gz');
    expect(copy).toMatchObject({
      state: 'synced',
      duplicate: true,
      tripIds: [1],
      message: 'Already on the platform as Ride 1',
    });
    expect(status.recent.find((entry) => entry.filename === 'ride.fit')).toMatchObject({
      duplicate: false,
      tripIds: [1],
    });
    // Synced for good: neither is uploaded again, after a restart either.
    engine = await restart(engine);
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(2);
    expect(engine.status().recent.find((entry) => entry.filename === 'ride.fit.gz')?.duplicate).toBe(true);
  });

  it('tries a ride again after a server error, and gives up for this run after the attempts', async () => {
    device.write('ride.gpx', gpxRide(1));
    uploader.failNext(new ClientError(ClientErrorCode.SERVER, 'HTTP 503', { status: 503 }));
    const engine = engineFor();
    const status = await engine.syncOnce();
    expect(status.counts.synced).toBe(1);
    expect(status.recent[0]!.attempts).toBe(2);
  });

  it('never uploads a synced ride again, even when the trip is deleted on the server', async () => {
    device.write('ride.gpx', gpxRide(1));
    const engine = engineFor();
    await engine.syncOnce();
    // The server forgetting the trip changes nothing here: the ledger says synced.
    const fresh = new FakeUploader();
    const again = await restart(engine, { uploader: fresh });
    await again.syncOnce();
    expect(fresh.uploads).toHaveLength(0);
  });

  it('resumes an upload that was interrupted by a stop', async () => {
    device.write('ride.gpx', gpxRide(1));
    let release: () => void = () => undefined;
    const slow = new FakeUploader();
    const engine = engineFor({
      uploader: {
        uploadRide: (upload, options) =>
          new Promise((resolve, reject) => {
            release = () => {
              resolve(slow.uploadRide(upload));
            };
            options?.signal?.addEventListener('abort', () => {
              reject(new ClientError(ClientErrorCode.ABORTED, 'aborted'));
            });
          }),
      },
    });
    engine.start();
    await until(() => engine.status().counts.uploading === 1, 'the upload to start');
    const again = await restart(engine);
    release();
    expect((await again.syncOnce()).counts.synced).toBe(1);
    expect(uploader.uploads).toHaveLength(1);
  });
});

describe('running', () => {
  it('notices new files through its watcher and says what it does', async () => {
    const engine = engineFor({ fullPassIntervalMs: 3_600_000 });
    const states = new Set<string>();
    engine.onChange((status) => states.add(status.state.kind));
    engine.start();
    await until(() => engine.status().lastPassAt !== null, 'the first pass');
    for (let seed = 1; seed <= 3; seed++) device.write(`ride-${seed}.gpx`, gpxRide(seed));
    await until(
      () => engine.status().counts.synced === 3 && engine.status().state.kind === 'idle',
      'three rides synced, and the engine idle again',
    );
    expect(states.has('syncing')).toBe(true);
  });

  it('polls an MTP device, which raises no file events', async () => {
    const gvfs = join(data.path, 'gvfs');
    const exports = join(gvfs, 'mtp:host=Wahoo_ELEMNT_BOLT_A1B2', 'Internal shared storage', 'exports');
    mkdirSync(exports, { recursive: true });
    const engine = engineFor({
      folders: [],
      deviceRoots: [{ path: gvfs, transport: 'mtp' }],
      fullPassIntervalMs: 3_600_000,
      presenceIntervalMs: 100,
      mtpPassIntervalMs: 300,
    });
    engine.start();
    await until(() => engine.status().sources.some((source) => source.present), 'the device');
    writeFileSync(join(exports, 'ride.gpx'), gpxRide(1));
    await until(() => engine.status().counts.synced === 1, 'the ride polled and synced');
    expect(engine.status().sources.map((source) => [source.kind, source.label])).toEqual([
      ['device', 'Wahoo device (Wahoo ELEMNT BOLT A1B2)'],
    ]);
  });

  it('does not upload while paused, but collects', async () => {
    device.write('ride.gpx', gpxRide(1));
    const engine = engineFor();
    engine.pause();
    const status = await engine.syncOnce();
    expect(status.state).toEqual({ kind: 'paused' });
    expect(status.counts.queued).toBe(1);
    expect(uploader.uploads).toHaveLength(0);
    engine.resume();
    expect((await engine.syncOnce()).counts.synced).toBe(1);
  });
});

describe('removing a folder and forgetting a device (issue 19)', () => {
  it('stops picking up new files of a removed folder, while running and after a restart', async () => {
    device.write('ride-1.gpx', gpxRide(1));
    let engine = engineFor({ fullPassIntervalMs: 3_600_000 });
    engine.start();
    await until(() => engine.status().counts.synced === 1, 'the first ride synced');
    const id = engine.status().sources[0]!.id;

    expect(engine.removeSource(id)).toBe(true);
    expect(engine.removeSource(id)).toBe(false);
    expect(engine.status().sources).toEqual([]);
    expect(engine.status().removedSources.map((source) => source.id)).toEqual([id]);
    device.write('ride-2.gpx', gpxRide(2));
    engine.syncNow();
    // Two passes later (the watch closed, the pass that follows a removal): nothing new is found.
    const passes = engine.status().lastPassAt;
    await until(() => engine.status().lastPassAt !== passes, 'a pass after the removal');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(uploader.uploads).toHaveLength(1);
    expect(engine.status().counts).toMatchObject({ found: 1, synced: 1, queued: 0 });

    // `up --watch <folder>` names it again at the next start: it stays removed.
    engine = await restart(engine);
    expect(engine.status().sources).toEqual([]);
    expect((await engine.syncOnce()).counts.found).toBe(1);
    expect(uploader.uploads).toHaveLength(1);
    // Its ride stays synced, and known to come from that folder.
    expect(engine.tripSources([1]).get(1)).toBe(device.path);
  });

  it('does not upload the synced files again when the folder is added back, only the new ones', async () => {
    for (let seed = 1; seed <= 3; seed++) device.write(`ride-${seed}.gpx`, gpxRide(seed));
    let engine = engineFor();
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(3);
    engine.removeSource(engine.status().sources[0]!.id);
    device.write('ride-4.gpx', gpxRide(4));
    engine = await restart(engine);
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(3);

    engine.addFolder(device.path, { kind: 'all' });
    expect(engine.status().removedSources).toEqual([]);
    expect(engine.status().sources.map((source) => source.path)).toEqual([device.path]);
    const status = await engine.syncOnce();
    // Only ride 4, once: the three synced before are neither read again nor uploaded again.
    expect(uploader.uploads.map((upload) => upload.filename)).toEqual([
      ...uploader.uploads.slice(0, 3).map((upload) => upload.filename),
      'ride-4.gpx',
    ]);
    expect(status.counts).toMatchObject({ found: 4, synced: 4, queued: 0, failed: 0 });
  });

  it('keeps rides queued from a removed folder waiting, and uploads them once it is back', async () => {
    device.write('ride-1.gpx', gpxRide(1));
    const engine = engineFor();
    engine.pause();
    await engine.syncOnce();
    expect(engine.status().counts.queued).toBe(1);
    const id = engine.status().sources[0]!.id;
    engine.removeSource(id);
    engine.resume();
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(0);
    expect(engine.restoreSource(id)).toBe(true);
    expect(engine.restoreSource(id)).toBe(false);
    expect((await engine.syncOnce()).counts.synced).toBe(1);
    expect(uploader.uploads).toHaveLength(1);
  });

  it('does not take up a forgotten device when it is plugged in again, until it is restored', async () => {
    const media = join(data.path, 'media');
    const activity = join(media, 'GARMIN', 'Garmin', 'Activity');
    mkdirSync(activity, { recursive: true });
    writeFileSync(join(activity, 'ride-1.gpx'), gpxRide(1));
    let engine = engineFor({ folders: [], deviceRoots: [{ path: media, transport: 'mass-storage' }] });
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(1);
    const id = engine.status().sources[0]!.id;
    expect(engine.status().sources[0]!.kind).toBe('device');
    expect(engine.removeSource(id)).toBe(true);

    // Unplugged, a new ride recorded, plugged in again, and the engine restarted meanwhile.
    writeFileSync(join(activity, 'ride-2.gpx'), gpxRide(2));
    engine = await restart(engine, {
      folders: [],
      deviceRoots: [{ path: media, transport: 'mass-storage' }],
    });
    await engine.syncOnce();
    expect(uploader.uploads).toHaveLength(1);
    expect(engine.status().sources).toEqual([]);
    expect(engine.status().removedSources).toMatchObject([{ id, kind: 'device', present: true }]);

    expect(engine.restoreSource(id, { kind: 'all' })).toBe(true);
    await engine.syncOnce();
    expect(uploader.uploads.map((upload) => upload.filename)).toEqual(['ride-1.gpx', 'ride-2.gpx']);
  });
});

/**
 * The sync engine when its own disk is full (issue 17): its ledger and inbox on a small tmpfs mounted
 * for the test (root only; otherwise the tests say that they skipped). With `rideport up` and the
 * desktop app that disk is the server's too. The engine never throws out of its timers (an unhandled
 * rejection ended the process before), says "disk full" in its state instead of "not present", fails
 * nothing, and once space is freed syncs every ride exactly once by itself.
 */
import { join } from 'node:path';
import type { RideUpload, UploadedRide } from '@rideport/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  mountSmallDisk,
  smallDiskUnavailable,
  truncateLog,
  type SmallDisk,
} from '../../server/src/test-support/small-disk.js';
import { SyncEngine } from './engine.js';
import type { SyncStatus } from './status.js';
import { FakeUploader, gpxRide, tempFolder, type TempFolder } from './test-support/rides.js';

const skipReason = smallDiskUnavailable();
if (skipReason !== null) console.warn(`[sync engine, disk full] SKIPPED, ${skipReason}`);

const RIDES = 5;

let disk: SmallDisk;
let device: TempFolder;
let engine: SyncEngine | undefined;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

beforeEach(() => {
  if (skipReason !== null) return;
  disk = mountSmallDisk(8 * 1024 * 1024);
  device = tempFolder('rideport-disk-full-device-');
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});

afterEach(async () => {
  if (skipReason !== null) return;
  await engine?.stop();
  engine = undefined;
  process.off('unhandledRejection', onUnhandled);
  disk.remove();
  device.remove();
});

function engineOnSmallDisk(uploader: FakeUploader): SyncEngine {
  engine = new SyncEngine({
    ledgerPath: join(disk.path, 'ledger.sqlite'),
    inboxFolder: join(disk.path, 'inbox'),
    uploader,
    folders: [device.path],
    firstImport: { kind: 'all' },
    uploadConcurrency: 1,
    presenceIntervalMs: 100,
    watch: true,
  });
  return engine;
}

async function until(
  condition: (status: SyncStatus) => boolean,
  what: string,
  seen: SyncStatus[],
): Promise<SyncStatus> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const status = engine!.status();
    seen.push(status);
    if (condition(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(seen.at(-1))}`);
}

function expectAllSyncedOnce(status: SyncStatus, uploader: FakeUploader, seen: SyncStatus[]): void {
  expect(status.counts).toMatchObject({ found: RIDES, synced: RIDES, failed: 0, queued: 0, uploading: 0 });
  expect(seen.filter((each) => each.counts.failed > 0)).toEqual([]);
  expect(new Set(status.recent.flatMap((ride) => ride.tripIds)).size).toBe(RIDES);
  expect(new Set(uploader.uploads.map((upload) => upload.sha256)).size).toBe(RIDES);
  expect(unhandled).toEqual([]);
}

describe.skipIf(skipReason !== null)('the sync engine on a full disk of its own', () => {
  it('waits in words when the disk fills while it collects, and collects and uploads everything once there is space', async () => {
    const uploader = new FakeUploader();
    engineOnSmallDisk(uploader);
    truncateLog(join(disk.path, 'ledger.sqlite'));
    disk.fill();
    for (let seed = 1; seed <= RIDES; seed++) device.write(`ride-${seed}.gpx`, gpxRide(seed, 2000));
    engine!.start();

    const seen: SyncStatus[] = [];
    const waiting = await until((status) => status.state.kind === 'disk-full', 'disk-full', seen);
    expect(waiting.state).toMatchObject({
      kind: 'disk-full',
      message: expect.stringMatching(
        /^this computer's disk is full: the sync engine cannot write to /,
      ) as string,
    });
    // The folder is there: its files could not be copied, which is not "not present".
    expect(waiting.sources).toMatchObject([{ present: true }]);
    expect(waiting.counts.failed).toBe(0);

    disk.free();
    // The batch ends a moment after its last ride is recorded as synced: wait for both.
    const done = await until(
      (status) => status.counts.synced === RIDES && status.state.kind === 'idle',
      'every ride synced, and the engine idle',
      seen,
    );
    expectAllSyncedOnce(done, uploader, seen);
  });

  it('waits when the outcome of an upload cannot be recorded, and records every ride once there is space', async () => {
    const uploader = new FakeUploader();
    const upload = uploader.uploadRide.bind(uploader);
    let answered = 0;
    // The disk fills up while the server stores the second ride: its outcome cannot be written.
    uploader.uploadRide = async (ride: RideUpload): Promise<UploadedRide> => {
      const uploaded = await upload(ride);
      if (++answered === 2) {
        truncateLog(join(disk.path, 'ledger.sqlite'));
        disk.fill();
      }
      return uploaded;
    };
    for (let seed = 1; seed <= RIDES; seed++) device.write(`ride-${seed}.gpx`, gpxRide(seed, 2000));
    engineOnSmallDisk(uploader).start();

    const seen: SyncStatus[] = [];
    const waiting = await until((status) => status.state.kind === 'disk-full', 'disk-full', seen);
    // The pass collecting the rest may have met the full disk as well.
    expect(waiting.counts).toMatchObject({ synced: 1, failed: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(engine!.status().counts.synced).toBe(1);

    disk.free();
    // The batch ends a moment after its last ride is recorded as synced: wait for both.
    const done = await until(
      (status) => status.counts.synced === RIDES && status.state.kind === 'idle',
      'every ride synced, and the engine idle',
      seen,
    );
    // The second ride went up twice (its outcome was lost); the server answered the repeat as a
    // duplicate of the trip it made the first time.
    expectAllSyncedOnce(done, uploader, seen);
  });
});

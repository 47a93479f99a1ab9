/**
 * The sync engine's memory per synced file (issue 22), measured the same way by the test
 * (memory.test.ts) and by `npm run bench:soak`: small generated files go through the running engine
 * (watching its folder, as `rideport sync` and the desktop app run it) and the real RideportClient over
 * a transport that answers as the server's legacy API does; the heap left after a forced garbage
 * collection is read after N and after 3N files. Bytes only: nothing here is timed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RideportClient } from '@rideport/client';
import { legacyUploadTransport, retainedHeapBytes } from '../../../../test/support/heap.js';
import { SyncEngine } from '../engine.js';
import { gpxRide, tempFolder } from './rides.js';

export interface EngineMemory {
  filesSynced: number;
  /** retained heap after the warm-up and N files, and after 3N */
  afterNBytes: number;
  after3NBytes: number;
  /** (after 3N − after N) / 2N */
  bytesPerFile: number;
}

/**
 * Syncs `warmUpFiles`, then `n`, then `2n` more generated files through a running engine, and reads
 * the retained heap after N and after 3N. Throws when the engine stops syncing (a failed ride, or a
 * state other than syncing or idle).
 */
export async function measureEngineMemory(options: {
  warmUpFiles: number;
  n: number;
}): Promise<EngineMemory> {
  const device = tempFolder('rideport-device-');
  const data = tempFolder('rideport-data-');
  const activity = join(device.path, 'GARMIN', 'Activity');
  mkdirSync(activity, { recursive: true });
  const client = new RideportClient({
    baseUrl: 'http://rideport.invalid',
    credentials: { kind: 'auth-token', apiKey: 'key', authToken: 'token' },
    transport: legacyUploadTransport(),
    // Task polls wait a turn of the event loop, not the client's 50 ms.
    sleep: () => new Promise((done) => setImmediate(done)),
  });
  const engine = new SyncEngine({
    ledgerPath: join(data.path, 'ledger.sqlite'),
    inboxFolder: join(data.path, 'inbox'),
    uploader: client,
    folders: [device.path],
    firstImport: { kind: 'all' },
    // Passes come from the watcher's hints, as on a folder receiving files.
    fullPassIntervalMs: 3_600_000,
  });
  let written = 0;
  const syncMore = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      written += 1;
      writeFileSync(join(activity, `ride-${written}.gpx`), gpxRide(written));
    }
    for (;;) {
      const { state, counts } = engine.status();
      if (counts.synced === written && state.kind === 'idle') return;
      if (counts.failed > 0 || (state.kind !== 'syncing' && state.kind !== 'idle')) {
        throw new Error(`the engine stopped syncing: ${JSON.stringify(state)} ${JSON.stringify(counts)}`);
      }
      await new Promise((done) => setTimeout(done, 25));
    }
  };
  try {
    engine.start();
    // Warm up (compiled code, the ledger's page cache, the inbox folder), then N, then 2N more.
    await syncMore(options.warmUpFiles);
    await syncMore(options.n);
    const afterNBytes = await retainedHeapBytes();
    await syncMore(2 * options.n);
    const after3NBytes = await retainedHeapBytes();
    return {
      filesSynced: engine.status().counts.synced,
      afterNBytes,
      after3NBytes,
      bytesPerFile: (after3NBytes - afterNBytes) / (2 * options.n),
    };
  } finally {
    await engine.stop();
    await client.close();
    device.remove();
    data.remove();
  }
}

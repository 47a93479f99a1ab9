/**
 * The sync engine's memory per synced file (issue 22), measured the same way by the test
 * (memory.test.ts) and by `npm run bench:soak`: small generated files go through the running engine
 * (watching its folder, as `rideport sync` and the desktop app run it) and the real RideportClient over
 * a transport that answers as the server's legacy API does; the heap left after a forced garbage
 * collection is read after N and after 3N files. Bytes only: nothing here is timed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { RideportClient, type Transport, type TransportResponse } from '@rideport/client';
import { SyncEngine } from '../engine.js';
import { gpxRide, tempFolder } from './rides.js';

/** The heap still reachable after full collections (gc exposed at run time, no flag needed). */
export function retainedHeapBytes(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const json = (body: unknown): TransportResponse => ({
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: new TextEncoder().encode(JSON.stringify(body)),
});

/**
 * Answers an upload with a task and a status poll with that task's trip, as the legacy API does
 * (decisions.md §5), keeping nothing per upload but a counter.
 */
export function serverLikeTransport(): Transport {
  let tasks = 0;
  return {
    request(request) {
      const url = new URL(request.url);
      if (request.method === 'POST' && url.pathname === '/trips.json') {
        return Promise.resolve(json({ success: 1, task_id: ++tasks }));
      }
      if (url.pathname === '/queued_tasks/status.json') {
        const id = Number(url.searchParams.get('ids'));
        const at = new Date(0).toISOString();
        return Promise.resolve(
          json({
            queued_tasks: [
              {
                id,
                status: 1,
                message: 'Created 1 ride from upload',
                response_code: 'success',
                progress: 100,
                created_at: at,
                updated_at: at,
                user_id: 1,
                associated_objects: [{ type: 'trip', trip: { id } }],
              },
            ],
          }),
        );
      }
      return Promise.resolve({ status: 404, headers: {}, body: new Uint8Array() });
    },
    close: () => Promise.resolve(),
  };
}

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
    transport: serverLikeTransport(),
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
    const afterNBytes = retainedHeapBytes();
    await syncMore(2 * options.n);
    const after3NBytes = retainedHeapBytes();
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

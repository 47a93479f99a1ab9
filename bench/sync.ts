/**
 * Sync benchmark (`npm run bench:sync`, issue 6, "Tests and figures"):
 *
 * 1. A fresh device: 1,000 ride files (corpus FIT rides of about an hour, each copy with bytes of its
 *    own, see rides.ts) in `GARMIN/Garmin/Activity` under a mount root. The sync engine detects
 *    the device, collects every file (completeness, SHA-256, inbox copy) and uploads it through
 *    @rideport/client to a real server in a process of its own (bench/api-server.js, buildServer on a
 *    SQLite file), until every ride is synced. Target: under 60 s. Peer in the same run: the same files
 *    uploaded straight with RideportClient.uploadRide, as many at a time as the engine uploads, to a
 *    second fresh server (no device, no ledger, no inbox): the engine's cost over bare uploading.
 * 2. A rescan of 5,000 synced files with nothing new: the engine's pass (device detection, listing,
 *    diff against the ledger). Target: under 1 s. Peer: reading and hashing every file, what a rescan
 *    without the ledger's size and modification times would do. The 5,000 are synced through an
 *    uploader that answers at once (the rescan never uploads, so the server plays no part in it).
 *
 * Skips (exit 0) when the corpus is absent. Not part of `npm test`: tests never assert wall-clock times.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RideportClient, undiciTransport, type UploadedRide } from '@rideport/client';
import { SyncEngine, type RideUploader } from '@rideport/sync';
import { CORPUS_DIR, CORPUS_SKIP_REASON, corpusAvailable } from '../test/support/corpus.js';
import { createBenchAccount } from './account.js';
import { fitVariant, HOUR_FITS } from './rides.js';
import { startServer, type ServerProcess } from './server-process.js';
import { formatTable } from './table.js';

const DEVICE_RIDES = 1_000;
const RESCAN_FILES = 5_000;
const RESCAN_RUNS = 5;
const UPLOAD_CONCURRENCY = 3;
const TARGET_SYNC_S = 60;
const TARGET_RESCAN_MS = 1_000;

async function serverWithAccount(
  directory: string,
  name: string,
): Promise<{ server: ServerProcess; client: RideportClient }> {
  const databasePath = join(directory, `${name}.sqlite`);
  const account = await createBenchAccount(databasePath);
  const server = await startServer(['api', databasePath, 'http://127.0.0.1']);
  const client = new RideportClient({
    baseUrl: server.url,
    credentials: { kind: 'auth-token', ...account },
    transport: undiciTransport(),
  });
  return { server, client };
}

/** `count` distinct FIT rides, cycling through the hour-long corpus rides; made before any clock runs. */
function rideFiles(count: number, firstVariant: number): { name: string; bytes: Uint8Array }[] {
  const originals = HOUR_FITS.map((name) => new Uint8Array(readFileSync(join(CORPUS_DIR, 'fit', name))));
  return Array.from({ length: count }, (_, index) => ({
    name: `${String(index + 1).padStart(5, '0')}-${HOUR_FITS[index % HOUR_FITS.length]!}`,
    bytes: fitVariant(originals[index % originals.length]!, firstVariant + index),
  }));
}

function writeDevice(mountRoot: string, files: { name: string; bytes: Uint8Array }[]): string {
  const activity = join(mountRoot, 'GARMIN', 'Garmin', 'Activity');
  mkdirSync(activity, { recursive: true });
  for (const file of files) writeFileSync(join(activity, file.name), file.bytes);
  return activity;
}

/** An uploader that answers at once, as if every ride were new (for building a synced ledger). */
const instantUploader: RideUploader = {
  uploadRide: () =>
    Promise.resolve({
      taskId: 0,
      outcome: 'created',
      message: 'Created 1 ride from upload',
      trips: [],
      routes: [],
    } satisfies UploadedRide),
};

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** 1: the engine on a fresh device against a real server, and the bare uploads peer. */
async function freshDevice(directory: string): Promise<string[][]> {
  const files = rideFiles(DEVICE_RIDES, 1);
  const bytes = files.reduce((total, file) => total + file.bytes.length, 0);
  const mountRoot = join(directory, 'media');
  writeDevice(mountRoot, files);

  const engineSide = await serverWithAccount(directory, 'engine');
  const engine = new SyncEngine({
    ledgerPath: join(directory, 'engine-data', 'ledger.sqlite'),
    inboxFolder: join(directory, 'engine-data', 'inbox'),
    uploader: engineSide.client,
    deviceRoots: [{ path: mountRoot, transport: 'mass-storage' }],
    firstImport: { kind: 'all' },
    uploadConcurrency: UPLOAD_CONCURRENCY,
  });
  const synced = await timed(() => engine.syncOnce());
  await engine.stop();
  await engineSide.client.close();
  await engineSide.server.stop();
  const { counts } = synced.value;
  if (counts.synced !== DEVICE_RIDES)
    throw new Error(`the engine synced ${counts.synced} of ${DEVICE_RIDES}: ${JSON.stringify(counts)}`);

  const peerSide = await serverWithAccount(directory, 'peer');
  let next = 0;
  const bare = await timed(async () => {
    await Promise.all(
      Array.from({ length: UPLOAD_CONCURRENCY }, async () => {
        for (let index = next++; index < files.length; index = next++) {
          const file = files[index]!;
          await peerSide.client.uploadRide({ bytes: file.bytes, filename: file.name });
        }
      }),
    );
  });
  await peerSide.client.close();
  await peerSide.server.stop();

  const megabytes = bytes / 1e6;
  return [
    [
      `engine: fresh device → all synced`,
      `${DEVICE_RIDES}`,
      `${(synced.ms / 1000).toFixed(1)} s`,
      (DEVICE_RIDES / (synced.ms / 1000)).toFixed(1),
      (megabytes / (synced.ms / 1000)).toFixed(1),
      `${(synced.ms / bare.ms).toFixed(2)}×`,
      `< ${TARGET_SYNC_S} s`,
      synced.ms < TARGET_SYNC_S * 1000 ? 'meets' : 'misses',
    ],
    [
      `peer: bare uploadRide, ${UPLOAD_CONCURRENCY} at a time`,
      `${DEVICE_RIDES}`,
      `${(bare.ms / 1000).toFixed(1)} s`,
      (DEVICE_RIDES / (bare.ms / 1000)).toFixed(1),
      (megabytes / (bare.ms / 1000)).toFixed(1),
      '1.00×',
      '',
      '',
    ],
  ];
}

/** 2: rescans of 5,000 synced files, and hashing them all as the peer. */
async function rescan(directory: string): Promise<string[][]> {
  const mountRoot = join(directory, 'rescan-media');
  const activity = writeDevice(mountRoot, rideFiles(RESCAN_FILES, 10_000));
  const engine = new SyncEngine({
    ledgerPath: join(directory, 'rescan-data', 'ledger.sqlite'),
    inboxFolder: join(directory, 'rescan-data', 'inbox'),
    uploader: instantUploader,
    deviceRoots: [{ path: mountRoot, transport: 'mass-storage' }],
    firstImport: { kind: 'all' },
  });
  const first = await engine.syncOnce();
  if (first.counts.synced !== RESCAN_FILES)
    throw new Error(`set-up synced ${first.counts.synced} of ${RESCAN_FILES}`);
  const rescans: number[] = [];
  for (let run = 0; run < RESCAN_RUNS; run++) {
    const { ms, value } = await timed(() => engine.syncOnce());
    if (value.counts.synced !== RESCAN_FILES || value.counts.queued !== 0)
      throw new Error('a rescan found something new');
    rescans.push(ms);
  }
  await engine.stop();

  const hashes: number[] = [];
  for (let run = 0; run < RESCAN_RUNS; run++) {
    const { ms } = await timed(async () => {
      for (const name of await readdir(activity)) {
        createHash('sha256')
          .update(await readFile(join(activity, name)))
          .digest('hex');
      }
    });
    hashes.push(ms);
  }
  const rescanMs = median(rescans);
  const hashMs = median(hashes);
  return [
    [
      `engine: rescan, nothing new (median of ${RESCAN_RUNS})`,
      `${RESCAN_FILES}`,
      `${rescanMs.toFixed(0)} ms`,
      `${(hashMs / rescanMs).toFixed(1)}× faster`,
      `< ${TARGET_RESCAN_MS} ms`,
      rescanMs < TARGET_RESCAN_MS ? 'meets' : 'misses',
    ],
    [
      `peer: read and hash every file (median of ${RESCAN_RUNS})`,
      `${RESCAN_FILES}`,
      `${hashMs.toFixed(0)} ms`,
      '1.0×',
      '',
      '',
    ],
  ];
}

async function main(): Promise<void> {
  if (!corpusAvailable) {
    console.log(`bench:sync skipped: ${CORPUS_SKIP_REASON}`);
    return;
  }
  console.log(
    `bench:sync on ${cpus()[0]?.model ?? 'unknown CPU'} × ${availableParallelism()}, Node ${process.version}`,
  );
  const directory = mkdtempSync(join(tmpdir(), 'rideport-bench-sync-'));
  try {
    const device = await freshDevice(directory);
    console.log(
      `\n1. A fresh device with ${DEVICE_RIDES} rides, synced to a real server (its own process)\n`,
    );
    console.log(
      formatTable(['run', 'rides', 'time', 'rides/s', 'MB/s', '÷ peer', 'target', 'verdict'], device, [
        'left',
        'right',
        'right',
        'right',
        'right',
        'right',
        'left',
        'left',
      ]),
    );
    const rescans = await rescan(directory);
    console.log(`\n2. A rescan of ${RESCAN_FILES} synced files with nothing new\n`);
    console.log(
      formatTable(['run', 'files', 'time', 'vs peer', 'target', 'verdict'], rescans, [
        'left',
        'right',
        'right',
        'right',
        'left',
        'left',
      ]),
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();

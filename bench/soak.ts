/**
 * Soak benchmark (`npm run bench:soak`, issue 22): does memory stay flat in a long run?
 *
 * 1. The sync engine's memory per synced file, exactly: 3,500 small generated files through the running
 *    engine and the real client over a fake transport, in this process; the heap retained after a
 *    forced garbage collection after N and after 3N files (packages/sync test-support/engine-memory.ts,
 *    the measure the engine's test asserts on).
 * 2. A bounded run as a rider's machine runs it: `rideport serve` and `rideport sync` in processes of
 *    their own, from the build; this process uploads generated rides to the server (2 a second) and
 *    reads from it (20 a second: trip lists, single trips with their points, task status), and drops a
 *    new ride into the folder `rideport sync` watches every 5 s. Every 15 s it samples both processes'
 *    resident memory (RSS) and open file descriptors, and the size of the server's and the ledger's
 *    write-ahead logs; with --heap also each process's JavaScript heap after a full collection forced
 *    through the inspector (which tells retained memory from garbage not yet collected, but lowers
 *    the RSS it then measures: off by default). After a warm-up it prints each one's slope (per hour, least squares, with r²),
 *    the server's lowest RSS in each part of the run (the low-water mark), and the sync process's RSS
 *    per file synced, by the slope and by its own low-water marks (the rise from the first quarter's
 *    to the last's, which the minute's swings of several MB do not blur as they blur the slope); the sync process's RSS also by part (/proc/<pid>/smaps: the C heap, the other
 *    threads' arenas, other anonymous memory, mapped files) and, with --heap, the pages V8 holds for its heap and the memory it counts outside it, to say where a
 *    rise is. At the end it checks that every upload and every dropped file became a trip.
 *
 * Targets (issue 22): the sync engine below 1 KB per synced file and no upward slope; the server's
 * low-water mark flat within 5 MB after warm-up; file descriptors flat. A slope counts as upward when
 * it is positive, fits (r² ≥ 0.5) and adds more than the stated margin over 30 minutes.
 *
 *   npm run bench:soak                      10 minutes, 3 of them warm-up
 *   npm run bench:soak -- --minutes 30 --warmup 5 [--sample-seconds 15] [--uploads-per-second 2]
 *                         [--reads-per-second 20] [--file-every-seconds 5] [--heap] [--keep]
 *                         [--node-flags=--max-semi-space-size=2]   (for both processes; with "=")
 *                         [--snapshots DIR]   (each process's smaps and open files, at the end of
 *                                              the warm-up and at the end: to diff what grew)
 *
 * Linux only (it reads /proc); elsewhere it says so and exits 0. Not part of `npm test`: tests never
 * assert wall-clock times.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RideportClient, undiciTransport } from '@rideport/client';
import { measureEngineMemory } from '../packages/sync/src/test-support/engine-memory.js';
import { createBenchAccount } from './account.js';
import { Inspector, inspectorUrl, type HeapReading } from './inspector.js';
import { formatTable } from './table.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RIDEPORT = join(ROOT, 'packages', 'cli', 'bin', 'rideport.js');
const MB = 1024 * 1024;

const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    /** Node or V8 flags for both processes, e.g. "--max-semi-space-size=2" (space-separated) */
    'node-flags': { type: 'string', default: '' },
    warmup: { type: 'string', default: '3' },
    'sample-seconds': { type: 'string', default: '15' },
    'uploads-per-second': { type: 'string', default: '2' },
    'reads-per-second': { type: 'string', default: '20' },
    'file-every-seconds': { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
    heap: { type: 'boolean', default: false },
    snapshots: { type: 'string' },
  },
});

function positiveNumber(name: keyof typeof flags): number {
  const value = Number(flags[name]);
  if (!Number.isFinite(value) || value <= 0) {
    process.stderr.write(`bench:soak: --${name} must be a positive number, not ${String(flags[name])}\n`);
    process.exit(2);
  }
  return value;
}

const RUN_MS = positiveNumber('minutes') * 60_000;
const WARMUP_MS = positiveNumber('warmup') * 60_000;
const SAMPLE_MS = positiveNumber('sample-seconds') * 1000;
const UPLOAD_EVERY_MS = 1000 / positiveNumber('uploads-per-second');
const READ_EVERY_MS = 1000 / positiveNumber('reads-per-second');
const FILE_EVERY_MS = positiveNumber('file-every-seconds') * 1000;
if (WARMUP_MS >= RUN_MS - 4 * SAMPLE_MS) {
  process.stderr.write('bench:soak: the warm-up must leave at least four samples of the run\n');
  process.exit(2);
}

/** A small, complete GPX ride of `points` seconds; `seed` makes its bytes and its times its own. */
function gpxRide(seed: number, points: number): string {
  // Two hours apart from 2000 on: uploads count up from 1, dropped files from 100,000 (2022), all past.
  const startS = Date.UTC(2000, 0, 1) / 1000 + seed * 7200;
  const trkpts: string[] = [];
  for (let i = 0; i < points; i++) {
    const time = new Date((startS + i) * 1000).toISOString().replace('.000', '');
    const lat = (47 + (seed % 1000) * 0.001 + i * 0.00005).toFixed(6);
    trkpts.push(`<trkpt lat="${lat}" lon="8.5"><ele>${400 + (i % 50)}</ele><time>${time}</time></trkpt>`);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="bench:soak" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Soak ${seed}</name><trkseg>${trkpts.join('')}</trkseg></trk></gpx>\n`;
}

interface Child {
  name: string;
  process: ChildProcessByStdio<null, Readable, Readable>;
  output: () => string;
  exited: Promise<number | null>;
}

/** `rideport` from the build; with --heap, with the DevTools inspector on a free port (bench/inspector.ts). */
function startRideport(name: string, args: string[]): Child {
  const env = { ...process.env };
  // Without tsx's loader (NODE_OPTIONS): the commands run from the build, as a rider runs them.
  delete env['NODE_OPTIONS'];
  const inspect = flags.heap ? ['--inspect=127.0.0.1:0'] : [];
  const nodeFlags = flags['node-flags'].split(' ').filter((flag) => flag !== '');
  const child = spawn(process.execPath, [...inspect, ...nodeFlags, RIDEPORT, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    // Only the end is kept: the sync process prints a line per ride for as long as the run lasts.
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((done) => child.once('close', done));
  return { name, process: child, output: () => output, exited };
}

async function waitFor<T>(what: string, child: Child, look: () => T | null, limitMs = 60_000): Promise<T> {
  const startMs = Date.now();
  for (;;) {
    const found = look();
    if (found !== null) return found;
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited: ${child.output()}`);
    if (Date.now() - startMs > limitMs) throw new Error(`no ${what} after ${limitMs} ms: ${child.output()}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** Resident memory of a process, in bytes (/proc/<pid>/status, VmRSS). */
function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? Number.NaN : Number(match[1]) * 1024;
}

/** glibc's heaps for threads other than the main one: each a reservation of this size, at an address it divides */
const THREAD_ARENA_BYTES = 64 * 1024 * 1024;

/**
 * Where a process's resident memory is (/proc/<pid>/smaps), bytes: `cHeap` is the C allocator's main
 * heap (`[heap]`), `threadArenas` its heaps for other threads (anonymous mappings that start on a
 * 64 MiB boundary and, with the reserved rest that follows, span exactly 64 MiB), `anonymous` every
 * other private mapping of no file (V8's heap and code pages, the allocator's large blocks, thread
 * stacks), `files` what is mapped from files (the node binary and libraries: read from disk as they
 * are used, shared and never dirty).
 */
function residentParts(pid: number): {
  cHeap: number;
  threadArenas: number;
  anonymous: number;
  files: number;
} {
  const parts = { cHeap: 0, threadArenas: 0, anonymous: 0, files: 0 };
  let part: keyof typeof parts = 'anonymous';
  let arenaEnd = -1;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping !== null) {
      const start = Number.parseInt(mapping[1]!, 16);
      const end = Number.parseInt(mapping[2]!, 16);
      const name = mapping[3]!;
      if (name === '[heap]') part = 'cHeap';
      else if (name !== '' && !name.startsWith('[')) part = 'files';
      else if (start % THREAD_ARENA_BYTES === 0 && end - start <= THREAD_ARENA_BYTES) {
        // The arena's used part: its reserved rest (---p) follows up to the 64 MiB boundary.
        part = 'threadArenas';
        arenaEnd = start + THREAD_ARENA_BYTES;
      } else part = start < arenaEnd && end <= arenaEnd ? 'threadArenas' : 'anonymous';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss !== null) parts[part] += Number(rss[1]) * 1024;
  }
  return parts;
}

function syncHeapOf(reading: HeapReading | undefined): {
  syncHeap: number;
  syncHeapTotal: number;
  syncExternal: number;
} {
  return {
    syncHeap: reading?.heapUsedBytes ?? Number.NaN,
    syncHeapTotal: reading?.heapTotalBytes ?? Number.NaN,
    syncExternal: reading?.externalBytes ?? Number.NaN,
  };
}

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Total size of the write-ahead logs (`*-wal`) under `folder`. */
/**
 * With --snapshots DIR: each process's /proc/<pid>/smaps and what its descriptors point at, as
 * `<name>-<when>.smaps` and `<name>-<when>.fds`, so the mappings and files that grew between the end
 * of the warm-up and the end of the run can be diffed (issue 22: say what grows, not only that it does).
 */
function writeSnapshots(when: string, processes: Record<string, number>): void {
  const folder = flags.snapshots;
  if (folder === undefined) return;
  mkdirSync(folder, { recursive: true });
  for (const [name, pid] of Object.entries(processes)) {
    writeFileSync(join(folder, `${name}-${when}.smaps`), readFileSync(`/proc/${pid}/smaps`));
    const fds = readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return `${fd} ${readlinkSync(`/proc/${pid}/fd/${fd}`)}`;
      } catch {
        return `${fd} (closed while read)`;
      }
    });
    writeFileSync(join(folder, `${name}-${when}.fds`), `${fds.join('\n')}\n`);
  }
}

function walBytes(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('-wal')) {
      total += statSync(join(entry.parentPath, entry.name), { throwIfNoEntry: false })?.size ?? 0;
    }
  }
  return total;
}

interface Sample {
  atMs: number;
  serverRss: number;
  syncRss: number;
  /** the main thread's heap after a forced full collection */
  serverHeap: number;
  syncHeap: number;
  /** the pages V8 holds for the sync process's heap after that collection */
  syncHeapTotal: number;
  /** Buffers and other memory V8 counts outside its heap, after that collection */
  syncExternal: number;
  /** the sync process's RSS by part (residentParts) */
  syncCHeap: number;
  syncThreadArenas: number;
  syncAnonymous: number;
  syncFiles: number;
  serverFds: number;
  syncFds: number;
  serverWal: number;
  ledgerWal: number;
  filesSynced: number;
  uploads: number;
  reads: number;
  failures: number;
}

/** Least squares of y on x: slope and r² (1 for a perfect line, 0 for no line at all). */
function fit(points: readonly { x: number; y: number }[]): { slope: number; r2: number } {
  const n = points.length;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const { x, y } of points) {
    sxy += (x - meanX) * (y - meanY);
    sxx += (x - meanX) ** 2;
    syy += (y - meanY) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const r2 = sxx === 0 || syy === 0 ? 0 : (sxy * sxy) / (sxx * syy);
  return { slope, r2 };
}

/** Upward: positive, a real line (r² ≥ 0.5), and more than `marginPer30Min` over 30 minutes. */
function upward(slopePerHour: number, r2: number, marginPer30Min: number): boolean {
  return slopePerHour > 0 && r2 >= 0.5 && slopePerHour / 2 > marginPer30Min;
}

async function main(): Promise<void> {
  if (!existsSync('/proc/self/status')) {
    console.log('bench:soak reads /proc for memory and file descriptors: Linux only; skipped.');
    return;
  }

  console.log('1. The sync engine in this process: 500 files to warm up, then N = 1,000 and 3N = 3,000');
  const engineMemory = await measureEngineMemory({ warmUpFiles: 500, n: 1_000 });
  console.log(
    `   retained heap ${(engineMemory.afterNBytes / MB).toFixed(2)} MB after N, ${(engineMemory.after3NBytes / MB).toFixed(2)} MB after 3N: ` +
      `${engineMemory.bytesPerFile.toFixed(0)} bytes per synced file (target < 1,024)\n`,
  );

  const directory = mkdtempSync(join(tmpdir(), 'rideport-soak-'));
  const serverData = join(directory, 'server');
  const syncData = join(directory, 'sync');
  const folder = join(directory, 'device', 'Garmin', 'Activity');
  mkdirSync(serverData, { recursive: true });
  mkdirSync(folder, { recursive: true });
  const children: Child[] = [];
  try {
    const account = await createBenchAccount(join(serverData, 'rideport.sqlite'));
    const server = startRideport('rideport serve', ['serve', '--data', serverData, '--port', '0']);
    children.push(server);
    const url = await waitFor(
      'listening line',
      server,
      () => /listening on (http:\/\/\S+)/.exec(server.output())?.[1] ?? null,
    );
    const sync = startRideport('rideport sync', [
      'sync',
      join(directory, 'device'),
      '--server',
      url,
      '--api-key',
      account.apiKey,
      '--auth-token',
      account.authToken,
      '--import',
      'all',
      '--data',
      syncData,
      '--log-format',
      'json',
    ]);
    children.push(sync);
    await waitFor('start of rideport sync', sync, () =>
      sync.output().includes('stop with Ctrl-C') ? true : null,
    );
    const serverPid = server.process.pid!;
    const syncPid = sync.process.pid!;
    const serverInspector = flags.heap
      ? await Inspector.connect(
          await waitFor('inspector address', server, () => inspectorUrl(server.output())),
        )
      : null;
    const syncInspector = flags.heap
      ? await Inspector.connect(await waitFor('inspector address', sync, () => inspectorUrl(sync.output())))
      : null;

    let filesSynced = 0;
    let partialLine = '';
    sync.process.stdout.on('data', (chunk: Buffer) => {
      const lines = (partialLine + chunk.toString()).split('\n');
      partialLine = lines.pop() ?? '';
      filesSynced += lines.filter((line) => line.includes('"event":"synced"')).length;
    });
    const client = new RideportClient({
      baseUrl: url,
      credentials: { kind: 'auth-token', apiKey: account.apiKey, authToken: account.authToken },
      transport: undiciTransport(),
    });

    console.log(
      `2. rideport serve (pid ${serverPid}) and rideport sync (pid ${syncPid}) for ${RUN_MS / 60_000} min, ` +
        `${WARMUP_MS / 60_000} of them warm-up; a sample every ${SAMPLE_MS / 1000} s`,
    );
    let seed = 0;
    let uploads = 0;
    let reads = 0;
    let failures = 0;
    let filesDropped = 0;
    const taskIds: number[] = [];
    const failed = (what: string) => (error: unknown) => {
      failures += 1;
      if (failures <= 5)
        console.log(`   ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
    };
    const inFlight = new Set<Promise<unknown>>();
    const track = (work: Promise<unknown>): void => {
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    };
    const timers = [
      setInterval(() => {
        const ride = gpxRide(++seed, 600);
        track(
          client.legacy
            .uploadFile({ bytes: new TextEncoder().encode(ride), filename: `upload-${seed}.gpx` })
            .then(({ taskId }) => {
              uploads += 1;
              taskIds.push(taskId);
              if (taskIds.length > 100) taskIds.shift();
            }, failed('an upload')),
        );
      }, UPLOAD_EVERY_MS),
      setInterval(() => {
        const kind = reads % 4;
        const recent = taskIds.at(-1 - (reads % Math.max(1, taskIds.length)));
        const read: Promise<unknown> =
          kind === 0
            ? client.v1.trips.list({ page: 1, pageSize: 20 })
            : kind === 1
              ? client.v1.trips.list({ page: 1 + (reads % 5), pageSize: 50 })
              : kind === 2 && recent !== undefined
                ? client.legacy.taskStatus([recent], { includeObjects: true })
                : client.v1.trips.list({ page: 1, pageSize: 20 }).then((page) => {
                    const trip = page.items[reads % Math.max(1, page.items.length)];
                    return trip === undefined ? undefined : client.v1.trips.get(trip.id);
                  });
        track(
          read.then(() => {
            reads += 1;
          }, failed('a read')),
        );
      }, READ_EVERY_MS),
      setInterval(() => {
        // Written beside the folder and moved in, as a device's file appears whole.
        const name = `ride-${String(++filesDropped).padStart(6, '0')}.gpx`;
        const temporary = join(directory, name);
        writeFileSync(temporary, gpxRide(100_000 + filesDropped, 1200));
        renameSync(temporary, join(folder, name));
      }, FILE_EVERY_MS),
    ];

    const samples: Sample[] = [];
    const startMs = Date.now();
    const table = (sample: Sample): string =>
      [
        `${((sample.atMs - startMs) / 60_000).toFixed(2).padStart(6)} min`,
        `server ${(sample.serverRss / MB).toFixed(1)} MB ${sample.serverFds} fds`,
        ...(flags.heap ? [`heap ${(sample.serverHeap / MB).toFixed(1)} MB`] : []),
        `sync ${(sample.syncRss / MB).toFixed(1)} MB ${sample.syncFds} fds`,
        ...(flags.heap ? [`heap ${(sample.syncHeap / MB).toFixed(1)} MB`] : []),
        `WAL server ${(sample.serverWal / MB).toFixed(2)} MB ledger ${(sample.ledgerWal / MB).toFixed(2)} MB`,
        `${sample.filesSynced} files synced, ${sample.uploads} uploads, ${sample.reads} reads, ${sample.failures} failures`,
      ].join(' · ');
    while (Date.now() - startMs < RUN_MS) {
      await new Promise((done) => setTimeout(done, SAMPLE_MS - ((Date.now() - startMs) % SAMPLE_MS)));
      // RSS first: the collections below would lower it.
      const serverRss = rssBytes(serverPid);
      const syncRss = rssBytes(syncPid);
      const syncResident = residentParts(syncPid);
      const sample: Sample = {
        atMs: Date.now(),
        serverRss,
        syncRss,
        serverHeap: (await serverInspector?.heapAfterCollection())?.heapUsedBytes ?? Number.NaN,
        ...syncHeapOf(await syncInspector?.heapAfterCollection()),
        syncCHeap: syncResident.cHeap,
        syncThreadArenas: syncResident.threadArenas,
        syncAnonymous: syncResident.anonymous,
        syncFiles: syncResident.files,
        serverFds: openFds(serverPid),
        syncFds: openFds(syncPid),
        serverWal: walBytes(serverData),
        ledgerWal: walBytes(syncData),
        filesSynced,
        uploads,
        reads,
        failures,
      };
      samples.push(sample);
      console.log(`   ${table(sample)}`);
      if (samples.filter((taken) => taken.atMs - startMs >= WARMUP_MS).length === 1) {
        writeSnapshots('warm', { server: serverPid, sync: syncPid });
      }
    }
    writeSnapshots('end', { server: serverPid, sync: syncPid });
    for (const timer of timers) clearInterval(timer);
    await Promise.all(inFlight);

    // Everything uploaded and dropped becomes a trip, each exactly once.
    const expectedTrips = uploads + filesDropped;
    let trips = 0;
    for (let waitedMs = 0; waitedMs < 120_000; waitedMs += 1000) {
      trips = (await client.v1.trips.list({ page: 1, pageSize: 20 })).pagination.record_count;
      if (trips >= expectedTrips && filesSynced >= filesDropped) break;
      await new Promise((done) => setTimeout(done, 1000));
    }
    await client.close();
    serverInspector?.close();
    syncInspector?.close();
    sync.process.kill('SIGTERM');
    server.process.kill('SIGTERM');
    const [syncExit, serverExit] = await Promise.all([sync.exited, server.exited]);

    const measured = samples.filter((sample) => sample.atMs - startMs >= WARMUP_MS);
    const hours = (sample: Sample): number => (sample.atMs - startMs) / 3_600_000;
    const slopeRow = (
      name: string,
      value: (sample: Sample) => number,
      unit: string,
      scale: number,
      marginPer30Min: number,
      /** a size the series is held under by design (a checkpointed log): staying under it is the target */
      bound?: number,
    ): string[] => {
      const { slope, r2 } = fit(measured.map((sample) => ({ x: hours(sample), y: value(sample) / scale })));
      const digits = unit === 'fds' ? 0 : 1;
      const highest = Math.max(...measured.map(value)) / scale;
      const verdict =
        bound !== undefined && highest <= bound
          ? `bounded (≤ ${bound} ${unit})`
          : upward(slope, r2, marginPer30Min)
            ? 'upward'
            : 'flat';
      return [
        name,
        (value(measured[0]!) / scale).toFixed(digits),
        (value(measured.at(-1)!) / scale).toFixed(digits),
        highest.toFixed(digits),
        `${slope >= 0 ? '+' : ''}${slope.toFixed(unit === 'fds' ? 1 : 2)} ${unit}/h`,
        r2.toFixed(2),
        verdict,
      ];
    };
    console.log(
      `\nAfter the warm-up (${measured.length} samples; upward = positive, r² ≥ 0.5 and more than the margin in 30 min):`,
    );
    console.log(
      formatTable(
        ['series', 'first', 'last', 'highest', 'slope', 'r²', 'verdict'],
        [
          slopeRow('sync RSS (MB; margin 1 MB)', (s) => s.syncRss, 'MB', MB, 1),
          ...(flags.heap
            ? [
                slopeRow('sync heap after GC (MB; margin 1 MB)', (s) => s.syncHeap, 'MB', MB, 1),
                slopeRow('sync heap pages held (MB; margin 1 MB)', (s) => s.syncHeapTotal, 'MB', MB, 1),
                slopeRow('sync outside the heap (MB; margin 1 MB)', (s) => s.syncExternal, 'MB', MB, 1),
              ]
            : []),
          slopeRow('sync RSS: C heap (MB; margin 1 MB)', (s) => s.syncCHeap, 'MB', MB, 1),
          slopeRow('sync RSS: thread arenas (MB; margin 1 MB)', (s) => s.syncThreadArenas, 'MB', MB, 1),
          slopeRow('sync RSS: other anonymous (MB; margin 1 MB)', (s) => s.syncAnonymous, 'MB', MB, 1),
          slopeRow('sync RSS: mapped files (MB; margin 1 MB)', (s) => s.syncFiles, 'MB', MB, 1),
          slopeRow('server RSS (MB; margin 5 MB)', (s) => s.serverRss, 'MB', MB, 5),
          ...(flags.heap
            ? [slopeRow('server heap after GC (MB; margin 5 MB)', (s) => s.serverHeap, 'MB', MB, 5)]
            : []),
          slopeRow('sync fds (margin 2)', (s) => s.syncFds, 'fds', 1, 2),
          slopeRow('server fds (margin 2)', (s) => s.serverFds, 'fds', 1, 2),
          // The ledger's log is cut back to 1 MB after each checkpoint (packages/sync/src/ledger.ts), the
          // server's to 64 MB (packages/server/src/db/checkpointer.ts).
          slopeRow('ledger WAL (MB)', (s) => s.ledgerWal, 'MB', MB, 1, 1.1),
          slopeRow('server WAL (MB)', (s) => s.serverWal, 'MB', MB, 5, 64),
        ],
        ['left', 'right', 'right', 'right', 'right', 'right', 'left'],
      ),
    );

    // Low-water marks: a process's lowest RSS in each quarter of the run after the warm-up, what it
    // keeps between the minute's rounds of giving memory back, without the swings of the rounds.
    const quarters = [0, 1, 2, 3].map((quarter) =>
      measured.filter((_, index) => Math.floor((index * 4) / measured.length) === quarter),
    );
    const lowWater = (of: (sample: Sample) => number): number[] =>
      quarters.map((part) => Math.min(...part.map(of)) / MB);
    const lows = lowWater((sample) => sample.serverRss);
    const creep = lows.at(-1)! - lows[0]!;
    console.log(
      `\nServer low-water mark by quarter after the warm-up: ${lows.map((low) => `${low.toFixed(1)} MB`).join(', ')}; ` +
        `last − first ${creep >= 0 ? '+' : ''}${creep.toFixed(1)} MB (target: within 5 MB) → ${Math.abs(creep) <= 5 ? 'meets' : 'misses'}`,
    );

    const rssPerFile = fit(measured.map((sample) => ({ x: sample.filesSynced, y: sample.syncRss })));
    const heapPerFile = fit(measured.map((sample) => ({ x: sample.filesSynced, y: sample.syncHeap })));
    const filesInRun = measured.at(-1)!.filesSynced - measured[0]!.filesSynced;
    const heapWords = flags.heap
      ? `heap after GC ${heapPerFile.slope.toFixed(0)} bytes per file (r² ${heapPerFile.r2.toFixed(2)}), `
      : '';
    console.log(
      `rideport sync per file synced after the warm-up (${filesInRun} files): ${heapWords}` +
        `RSS ${(rssPerFile.slope / 1024).toFixed(1)} KB per file (r² ${rssPerFile.r2.toFixed(2)})`,
    );
    // The sync engine's memory per file by its low-water marks: the rise from the first quarter's to the
    // last's, over the files synced between the two quarters' middles (issue 36: under 1 KB a file).
    const syncLows = lowWater((sample) => sample.syncRss);
    const middleFiles = (part: readonly Sample[]): number =>
      part[Math.floor(part.length / 2)]?.filesSynced ?? Number.NaN;
    const filesBetween = middleFiles(quarters[3]!) - middleFiles(quarters[0]!);
    const lowPerFileKb = ((syncLows.at(-1)! - syncLows[0]!) * 1024) / filesBetween;
    console.log(
      `rideport sync low-water mark by quarter: ${syncLows.map((low) => `${low.toFixed(1)} MB`).join(', ')}; ` +
        `${lowPerFileKb.toFixed(2)} KB per file over ${filesBetween} files (target: under 1 KB) → ` +
        (lowPerFileKb < 1 ? 'meets' : 'misses'),
    );
    console.log(
      `Sync engine heap retained per file over 3,000 files (part 1): ${engineMemory.bytesPerFile.toFixed(0)} bytes (target < 1,024) → ${engineMemory.bytesPerFile < 1024 ? 'meets' : 'misses'}`,
    );
    const last = samples.at(-1)!;
    console.log(
      `Correctness: ${uploads} uploads and ${filesDropped} dropped files, ${trips} trips on the server (expected ${expectedTrips}), ` +
        `${filesSynced} files synced, ${last.reads} reads, ${failures} failed requests; ` +
        `rideport sync exited ${String(syncExit)}, rideport serve exited ${String(serverExit)}.`,
    );
    if (
      trips !== expectedTrips ||
      filesSynced !== filesDropped ||
      failures > 0 ||
      syncExit !== 0 ||
      serverExit !== 0
    ) {
      process.exitCode = 1;
    }
  } finally {
    for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
    if (flags.keep) console.log(`kept ${directory}`);
    else rmSync(directory, { recursive: true, force: true });
  }
}

await main();

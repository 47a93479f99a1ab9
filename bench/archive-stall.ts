/**
 * What the worst legal archive costs the other riders (`npm run bench:archive-stall`, issue 36, "a legal
 * archive stalls everyone").
 *
 * `rideport serve` runs in a process of its own on a SQLite data directory, as a rider or an operator
 * runs it (with the memory settings of a long-running process). The archive is a ZIP holding one GPX
 * ride that inflates to just under the server's gunzip limit (256 MB) with just under its point limit
 * (2,000,000 points, a ride of 23 days at one point a second), the most one upload may legally make
 * the server read and store. Then:
 *
 * 1. one such upload, then four at once (four riders, so neither the SHA-256 nor the same-recording
 *    check makes a duplicate of them), each carried to its end; then each rider reads their ride once
 *    (GET /api/v1/trips/{id}.json, the points' first reading); then the first rider sends the ride
 *    again in other bytes, which the same-recording check finds by comparing the points;
 * 2. meanwhile another rider asks `GET /api/v1/trips.json` in a loop over one kept-alive socket, and
 *    each answer's time is kept: that rider's p50, p99 and maximum per phase, beside the same loop with
 *    the server idle;
 * 3. the server's peak resident memory in each phase (VmHWM, reset through /proc/<pid>/clear_refs), its
 *    resident memory before the burst and one minute after the burst ended, and the database's size.
 *
 * Targets (issue 36): max stall ≤ 100 ms and peak RSS ≤ 600 MB with four such uploads at once; RSS back
 * within 20 % of its level before the burst within a minute. Prints figures and the verdict; exits 0
 * either way (tests never assert wall-clock times). Linux only (/proc); elsewhere it says so and exits 0.
 *
 * `-- --points N`, `-- --megabytes M`: a smaller archive (a quick look). `-- --heap`: the server runs with
 * the DevTools inspector, and at the end a full collection is forced there (bench/inspector.ts): the
 * RSS after it, and the main thread's heap and external memory, tell memory still in use from garbage
 * not yet collected.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { crc32, deflateRawSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { createBenchAccounts, type BenchAccount } from './account.js';
import { Inspector, inspectorUrl, type HeapReading } from './inspector.js';
import { formatTable } from './table.js';
import { resetPeak, status } from './proc-memory.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RIDEPORT = join(ROOT, 'packages', 'cli', 'bin', 'rideport.js');
const MB = 1024 * 1024;

const { values: flags } = parseArgs({
  options: {
    points: { type: 'string', default: '1990000' },
    megabytes: { type: 'string', default: '255' },
    'settle-seconds': { type: 'string', default: '60' },
    heap: { type: 'boolean', default: false },
  },
});
const POINTS = Number(flags.points);
const INFLATED_BYTES = Number(flags.megabytes) * MB;
const SETTLE_MS = Number(flags['settle-seconds']) * 1000;
const BURST = 4;
/** the pause between the polling rider's requests */
const POLL_PAUSE_MS = 5;
const IDLE_POLL_MS = 3000;

const TARGET_MAX_STALL_MS = 100;
const TARGET_PEAK_RSS_MB = 600;
const TARGET_SETTLED_RATIO = 1.2;

if (!existsSync('/proc/self/status')) {
  console.log('bench:archive-stall reads /proc: Linux only. Nothing measured.');
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------------
// The archive

/**
 * A GPX ride of `points` points, each padded with spaces to the same length so the file comes to about
 * `bytes`, written in parts of about 1 MB: a slow wander near Zürich, one point a second, with
 * elevation, so its stored points compress as a real ride's would rather than as one point repeated.
 */
function* gpxParts(points: number, bytes: number, creator = 'bench:archive-stall'): Generator<string> {
  const head =
    `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="${creator}" ` +
    'xmlns="http://www.topografix.com/GPX/1/1">' +
    '<trk><name>Longest legal ride</name><type>cycling</type><trkseg>\n';
  const tail = '</trkseg></trk></gpx>\n';
  const pointBytes = Math.floor((bytes - head.length - tail.length) / points);
  yield head;
  const startS = Date.UTC(2024, 5, 1) / 1000;
  let lat = 47.37;
  let lon = 8.54;
  let seed = 1;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  let part = '';
  for (let i = 0; i < points; i++) {
    lat += (random() - 0.5) * 1e-4;
    lon += (random() - 0.45) * 1e-4;
    const time = new Date((startS + i) * 1000).toISOString().replace('.000', '');
    // Positions, elevation and time: the most points the limit allows in the bytes it allows.
    const point =
      `<trkpt lat="${lat.toFixed(6)}" lon="${lon.toFixed(6)}"><ele>${(400 + 50 * Math.sin(i / 900)).toFixed(1)}</ele>` +
      `<time>${time}</time></trkpt>`;
    part += point.padEnd(pointBytes - 1) + '\n';
    if (part.length >= MB) {
      yield part;
      part = '';
    }
  }
  yield part + tail;
}

/** A ZIP of one entry, `name`, deflated; and the entry's inflated size. */
function zipOf(name: string, parts: Iterable<string>): { zip: Buffer; inflated: number } {
  const chunks: Buffer[] = [];
  let crc = 0;
  let inflated = 0;
  const raw: Buffer[] = [];
  for (const part of parts) {
    const bytes = Buffer.from(part, 'latin1');
    crc = crc32(bytes, crc);
    inflated += bytes.length;
    raw.push(bytes);
    if (raw.length >= 64) chunks.push(Buffer.concat(raw.splice(0)));
  }
  chunks.push(Buffer.concat(raw));
  // One deflate stream over the whole entry: deflateRawSync of the concatenation, a part at a time
  // would end the stream at each part.
  const data = deflateRawSync(Buffer.concat(chunks), { level: 6 });
  const nameBytes = Buffer.from(name, 'utf8');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(inflated, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(inflated, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE(0, 42);
  const centralOffset = local.length + nameBytes.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(centralOffset, 16);
  return { zip: Buffer.concat([local, nameBytes, data, central, nameBytes, end]), inflated };
}

// ---------------------------------------------------------------------------------------------------
// The server

interface Child {
  process: ChildProcessByStdio<null, Readable, Readable>;
  output: () => string;
}

function startServe(data: string): Child {
  const env = { ...process.env };
  // Without tsx's loader: the server runs from the build, as a rider runs it.
  delete env['NODE_OPTIONS'];
  const inspect = flags.heap ? ['--inspect=127.0.0.1:0'] : [];
  const child = spawn(process.execPath, [...inspect, RIDEPORT, 'serve', '--data', data, '--port', '0'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-100_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return { process: child, output: () => output };
}

async function listening(server: Child): Promise<string> {
  const startMs = Date.now();
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(server.output())?.[1];
    if (url !== undefined) return url.replace(/\/$/, '');
    if (server.process.exitCode !== null) throw new Error(`rideport serve exited: ${server.output()}`);
    if (Date.now() - startMs > 60_000) throw new Error(`rideport serve did not listen: ${server.output()}`);
    await sleep(100);
  }
}

/** The server's main thread after a full collection forced through the inspector, and its RSS then. */
async function afterCollection(server: Child, pid: number): Promise<{ rssMb: number; heap: HeapReading }> {
  const address = inspectorUrl(server.output());
  if (address === null) throw new Error('the server printed no inspector address');
  const inspector = await Inspector.connect(address);
  try {
    const heap = await inspector.heapAfterCollection();
    await sleep(1000);
    return { rssMb: status(pid, 'VmRSS'), heap };
  } finally {
    inspector.close();
  }
}

/** The database's files (the file and its write-ahead log), MB. */
function databaseMegabytes(data: string): number {
  const size = (path: string): number => (existsSync(path) ? statSync(path).size : 0);
  const file = join(data, 'rideport.sqlite');
  return (size(file) + size(`${file}-wal`)) / MB;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

// ---------------------------------------------------------------------------------------------------
// Riders

const uploads = new Agent({ connections: 8, bodyTimeout: 600_000, headersTimeout: 600_000 });

function query(account: BenchAccount): string {
  return new URLSearchParams({ apikey: account.apiKey, auth_token: account.authToken }).toString();
}

function basic(account: BenchAccount): string {
  return `Basic ${Buffer.from(`${account.apiKey}:${account.authToken}`).toString('base64')}`;
}

async function upload(url: string, account: BenchAccount, filename: string, bytes: Buffer): Promise<number> {
  const boundary = `----rideport-bench-${Math.random().toString(16).slice(2)}`;
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: application/octet-stream\r\n\r\n`;
  const response = await request(`${url}/trips.json?${query(account)}`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    dispatcher: uploads,
  });
  const answer = (await response.body.json()) as { task_id?: number; error?: string };
  if (answer.task_id === undefined) {
    throw new Error(`upload refused: ${response.statusCode} ${JSON.stringify(answer)}`);
  }
  return answer.task_id;
}

interface Ended {
  status: number;
  message: string;
  tripId: number | null;
}

/** Polls the task every 250 ms until it ends. */
async function untilEnded(url: string, account: BenchAccount, id: number): Promise<Ended> {
  for (;;) {
    const asked = `${url}/queued_tasks/status.json?${query(account)}&ids=${id}&include_objects=true`;
    const response = await request(asked, {
      dispatcher: uploads,
    });
    const answer = (await response.body.json()) as {
      queued_tasks: {
        status: number;
        message: string;
        associated_objects: { type: string; trip?: { id: number } }[];
      }[];
    };
    const [task] = answer.queued_tasks;
    if (task !== undefined && task.status !== 0) {
      const trip = task.associated_objects.find((object) => object.type === 'trip')?.trip;
      return { status: task.status, message: task.message, tripId: trip?.id ?? null };
    }
    await sleep(250);
  }
}

/** Reads a trip whole, with its points (their first reading renders them). */
async function readTrip(url: string, account: BenchAccount, id: number): Promise<number> {
  const response = await request(`${url}/api/v1/trips/${id}.json`, {
    headers: { authorization: basic(account) },
    dispatcher: uploads,
  });
  let bytes = 0;
  for await (const chunk of response.body) bytes += (chunk as Buffer).length;
  if (response.statusCode !== 200) throw new Error(`GET trip ${id}: ${response.statusCode}`);
  return bytes;
}

/** The other rider: GET /api/v1/trips.json in a loop over one socket until stopped; each answer's time, ms. */
function poll(url: string, account: BenchAccount): { stop(): Promise<number[]> } {
  const agent = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
  const times: number[] = [];
  const running = { value: true };
  const loop = (async () => {
    while (running.value) {
      const startMs = performance.now();
      const response = await request(`${url}/api/v1/trips.json`, {
        headers: { authorization: basic(account) },
        dispatcher: agent,
      });
      await response.body.arrayBuffer();
      if (response.statusCode !== 200) throw new Error(`poll: ${response.statusCode}`);
      times.push(performance.now() - startMs);
      await sleep(POLL_PAUSE_MS);
    }
  })();
  return {
    async stop() {
      running.value = false;
      await loop;
      await agent.close();
      return times;
    },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

interface Phase {
  name: string;
  seconds: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  peakMb: number;
}

async function phase(
  name: string,
  url: string,
  pid: number,
  poller: BenchAccount,
  work: () => Promise<unknown>,
): Promise<Phase> {
  resetPeak(pid);
  const startMs = performance.now();
  const probe = poll(url, poller);
  try {
    await work();
  } finally {
    const times = (await probe.stop()).sort((a, b) => a - b);
    const seconds = (performance.now() - startMs) / 1000;
    // eslint-disable-next-line no-unsafe-finally -- the phase's figures are its result
    return {
      name,
      seconds,
      requests: times.length,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      max: times.at(-1) ?? Number.NaN,
      peakMb: status(pid, 'VmHWM'),
    };
  }
}

// ---------------------------------------------------------------------------------------------------
// The run

const folder = mkdtempSync(join(tmpdir(), 'rideport-bench-archive-stall-'));
const data = join(folder, 'server');
mkdirSync(data);
let server: Child | null = null;
try {
  const madeMs = performance.now();
  const { zip, inflated } = zipOf('longest-ride.gpx', gpxParts(POINTS, INFLATED_BYTES));
  console.log(
    `The archive: a ZIP of ${(zip.length / MB).toFixed(1)} MB holding one GPX of ${POINTS.toLocaleString('en')} points ` +
      `that inflates to ${(inflated / MB).toFixed(1)} MB (made in ${((performance.now() - madeMs) / 1000).toFixed(1)} s).`,
  );
  const accounts = await createBenchAccounts(join(data, 'rideport.sqlite'), BURST + 2);
  const poller = accounts[BURST + 1]!;
  const [first, ...burstRiders] = accounts.slice(0, BURST + 1) as [BenchAccount, ...BenchAccount[]];
  server = startServe(data);
  const url = await listening(server);
  const pid = server.process.pid!;

  // A small upload first, so that the parse threads are running before anything is measured (they all
  // start with the first upload and are kept: docs/operators/memory.md).
  const small = zipOf('small.gpx', gpxParts(600, 600 * 400)).zip;
  await untilEnded(url, poller, await upload(url, poller, 'small.zip', small));
  await sleep(2000);

  const phases: Phase[] = [];
  phases.push(await phase('idle', url, pid, poller, () => sleep(IDLE_POLL_MS)));
  const beforeMb = status(pid, 'VmRSS');
  const databaseBefore = databaseMegabytes(data);

  const outcomes = new Map<BenchAccount, Ended>();
  const carry = async (rider: BenchAccount): Promise<void> => {
    outcomes.set(rider, await untilEnded(url, rider, await upload(url, rider, 'archive.zip', zip)));
  };
  phases.push(await phase('one archive', url, pid, poller, () => carry(first)));
  phases.push(
    await phase(`${BURST} archives at once`, url, pid, poller, () => Promise.all(burstRiders.map(carry))),
  );
  phases.push(
    await phase(`${BURST} first readings at once`, url, pid, poller, () =>
      Promise.all(
        burstRiders.map((rider) => {
          const id = outcomes.get(rider)?.tripId ?? null;
          return id === null ? Promise.resolve(0) : readTrip(url, rider, id);
        }),
      ),
    ),
  );
  // The first rider sends their ride again in other bytes (another creator): the SHA-256 differs and
  // the GPX names no device, so the same-recording check compares the two rides' points (issue 36).
  const again = zipOf(
    'longest-ride-again.gpx',
    gpxParts(POINTS, INFLATED_BYTES, 'bench:archive-stall, again'),
  ).zip;
  phases.push(
    await phase('the same ride again, other bytes', url, pid, poller, async () => {
      const ended = await untilEnded(url, first, await upload(url, first, 'again.zip', again));
      console.log(`The same ride again: ${ended.status}: ${ended.message}`);
    }),
  );
  const endedMs = performance.now();
  const databaseAfter = databaseMegabytes(data);
  const settle: { seconds: number; rssMb: number }[] = [];
  while (performance.now() - endedMs < SETTLE_MS) {
    await sleep(5000);
    settle.push({ seconds: (performance.now() - endedMs) / 1000, rssMb: status(pid, 'VmRSS') });
  }
  const settledMb = settle.at(-1)?.rssMb ?? Number.NaN;
  const collected = flags.heap ? await afterCollection(server, pid) : null;

  console.log(`\nAnother rider's GET /api/v1/trips.json, one socket, ${POLL_PAUSE_MS} ms apart:\n`);
  console.log(
    formatTable(
      ['phase', 'seconds', 'requests', 'p50, ms', 'p99, ms', 'max, ms', 'server peak RSS, MB'],
      phases.map((row) => [
        row.name,
        row.seconds.toFixed(1),
        String(row.requests),
        row.p50.toFixed(1),
        row.p99.toFixed(1),
        row.max.toFixed(1),
        row.peakMb.toFixed(0),
      ]),
      ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
    ),
  );
  console.log('\nTasks:');
  for (const outcome of outcomes.values()) console.log(`  ${outcome.status}: ${outcome.message}`);
  console.log(
    `\nServer RSS before the burst ${beforeMb.toFixed(0)} MB; after it ended: ` +
      settle.map((row) => `${row.seconds.toFixed(0)} s ${row.rssMb.toFixed(0)} MB`).join(', '),
  );
  if (collected !== null) {
    console.log(
      `After a full collection forced then: RSS ${collected.rssMb.toFixed(0)} MB; the main thread's heap ` +
        `${(collected.heap.heapUsedBytes / MB).toFixed(1)} MB in use of ${(collected.heap.heapTotalBytes / MB).toFixed(1)} MB, ` +
        `external ${(collected.heap.externalBytes / MB).toFixed(1)} MB.`,
    );
  }
  console.log(
    `Database (file and log): ${databaseBefore.toFixed(1)} MB before the burst, ${databaseAfter.toFixed(1)} MB after it.`,
  );
  const burst = phases.filter((row) => row.name !== 'idle');
  const maxStall = Math.max(...burst.map((row) => row.max));
  const peak = Math.max(...burst.map((row) => row.peakMb));
  const verdict = (ok: boolean): string => (ok ? 'meets' : 'misses');
  console.log(
    `\nTargets (issue 36): max stall ${maxStall.toFixed(0)} ms ≤ ${TARGET_MAX_STALL_MS} ms: ${verdict(maxStall <= TARGET_MAX_STALL_MS)}; ` +
      `peak RSS ${peak.toFixed(0)} MB ≤ ${TARGET_PEAK_RSS_MB} MB: ${verdict(peak <= TARGET_PEAK_RSS_MB)}; ` +
      `RSS a minute after ${settledMb.toFixed(0)} MB ≤ ${(beforeMb * TARGET_SETTLED_RATIO).toFixed(0)} MB (before + 20 %): ` +
      `${verdict(settledMb <= beforeMb * TARGET_SETTLED_RATIO)}.`,
  );
} catch (error) {
  // What the server said last: why it refused or reset a connection, or died.
  console.error(
    `The run failed; the server's last words:\n${server?.output().slice(-4000) ?? '(no server)'}`,
  );
  throw error;
} finally {
  if (server !== null && server.process.exitCode === null) {
    const exited = new Promise((done) => server!.process.once('close', done));
    server.process.kill('SIGTERM');
    await exited;
  }
  await uploads.close();
  rmSync(folder, { recursive: true, force: true });
}

/**
 * Upload queue benchmark (`npm run bench:upload`, issue 5, "Figures"): a real listening server in a
 * process of its own (bench/api-server.js: buildServer from the package's build, on a SQLite file, with
 * the default queue: one worker thread per core), driven over HTTP by this process with undici.
 *
 * 1. Upload → trip-ready: uploaders each POST /trips.json with the 1 MB Garmin Fenix 2 FIT file (its
 *    bytes varied per upload, so no two are duplicates: the header's profile version is changed and both
 *    CRCs written again, so every copy is a valid FIT file with the same 24,239 points), then poll
 *    GET /queued_tasks/status.json until the task is at status 1 (backing off from 5 ms to 50 ms).
 *    Measured per upload: the time to the `{"success": 1, "task_id"}` answer, and to the poll that saw
 *    status 1 (client side); and, from the task row, created_at → finished_at (server side, without
 *    the transfer and the polling). Target: with 20 concurrent uploaders, median ≤ 100 ms and 99th
 *    percentile ≤ 500 ms. Peers in the same run: one uploader at a time (no queueing); the physical
 *    bound, the same uploads against a reference server that only receives, hashes and parses them in
 *    the same worker pool (bench/api-server.js upload-reference, after ours has stopped); and parsing
 *    the file alone in this process (@rideport/ridefile, one thread).
 * 2. Sustained ingest: typical rides of about an hour (corpus FIT files of 0.9 to 1.3 h from Garmin, Stages,
 *    Karoo and Zwift recordings, varied the same way), uploaded by 8 concurrent uploaders as fast as
 *    the server takes them, while a prober asks status.json for five recent tasks every 20 ms and times
 *    each answer. Rides per second = uploads ÷ (last task finished − first task created), from the task
 *    rows. Targets: ≥ 50 rides/s, status median < 20 ms. Peer: the same probe with the server idle.
 *
 * 3. Engines (issue 18, "Figures"): the same sustained ingest (ENGINE_UPLOADS hour rides, 8 uploaders
 *    spread over the servers) on SQLite and on PostgreSQL with one, two and three server processes on
 *    one database, each on a fresh database in the same run, and each rate as a ratio to SQLite's.
 *    With one server, also with each uploader a rider of their own (a club: one rider's rides are
 *    stored one transaction at a time, several riders' side by side), beside SQLite's in the same way.
 *    Target: PostgreSQL with one server ≥ 70 % of SQLite's rides/s. PostgreSQL runs on a throwaway
 *    cluster on this machine with its durability settings on (bench/databases.ts); one server reaches
 *    it over its Unix socket (as on the database's own machine) and over TCP (as from another machine),
 *    several servers over TCP; skipped, and said, without PostgreSQL.
 *    `npm run bench:upload -- --engines-only` runs this part alone; `-- --queue-only` parts 1 and 2.
 *
 * Skips (exit 0) when the corpus is absent. Not part of `npm test`: tests never assert wall-clock times.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRideFile } from '@rideport/ridefile';
import { openPlatform, type Platform } from '@rideport/server';
import { Agent, request } from 'undici';
import { CORPUS_DIR, CORPUS_SKIP_REASON, corpusAvailable } from '../test/support/corpus.js';
import { startServer, type ServerProcess } from './server-process.js';
import { createBenchAccount, createBenchAccounts } from './account.js';
import { databaseOptionsOf, startBenchPostgres, type PostgresConnection } from './databases.js';
import { fitVariant, HOUR_FITS } from './rides.js';
import { formatTable } from './table.js';

const HEADLINE_FIT = 'fitparse__activity-large-fenxi2-multisport.fit';

const CONCURRENT_UPLOADERS = 20;
/** rounds of CONCURRENT_UPLOADERS uploads at once */
const CONCURRENT_ROUNDS = 5;
const SOLO_UPLOADS = 10;
const WARM_UP_UPLOADS = 20;
const INGEST_UPLOADS = 600;
const INGEST_UPLOADERS = 8;
const PROBE_INTERVAL_MS = 20;
const PROBE_IDLE_REQUESTS = 200;

const TARGET_MEDIAN_MS = 100;
const TARGET_P99_MS = 500;
const TARGET_RIDES_PER_SECOND = 50;
const TARGET_STATUS_MEDIAN_MS = 20;
const ENGINE_UPLOADS = 240;
const TARGET_POSTGRES_RATIO = 0.7;

interface Account {
  query: string;
}

// ---------------------------------------------------------------------------------------------------
// Files

function readFit(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(CORPUS_DIR, 'fit', name)));
}

/** Checks that a variant reads as the original does, and says what the file holds. */
function checkVariant(name: string): { points: number; hours: number } {
  const original = parseRideFile(readFit(name));
  const varied = parseRideFile(fitVariant(readFit(name), 1));
  const [track] = original.tracks;
  const [variedTrack] = varied.tracks;
  if (
    original.tracks.length !== 1 ||
    track === undefined ||
    variedTrack?.points.length !== track.points.length ||
    varied.warnings.length !== original.warnings.length
  ) {
    throw new Error(`${name}: a varied copy does not read as the original`);
  }
  return { points: track.points.length, hours: (track.summary.elapsedSeconds ?? 0) / 3600 };
}

// ---------------------------------------------------------------------------------------------------
// HTTP

const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });

function multipart(filename: string, bytes: Uint8Array): { body: Buffer; contentType: string } {
  const boundary = `----rideport-bench-${Math.random().toString(16).slice(2)}`;
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: application/octet-stream\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

async function upload(url: string, account: Account, filename: string, bytes: Uint8Array): Promise<number> {
  const { body, contentType } = multipart(filename, bytes);
  const response = await request(`${url}/trips.json?${account.query}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
    dispatcher: agent,
  });
  const answer = (await response.body.json()) as { task_id?: number; error?: string };
  if (response.statusCode !== 200 || answer.task_id === undefined) {
    throw new Error(`upload refused: ${response.statusCode} ${answer.error ?? ''}`);
  }
  return answer.task_id;
}

interface TaskStatus {
  id: number;
  status: number;
  response_code: string;
  message: string;
}

async function statuses(url: string, account: Account, ids: readonly number[]): Promise<TaskStatus[]> {
  const response = await request(`${url}/queued_tasks/status.json?${account.query}&ids=${ids.join(',')}`, {
    dispatcher: agent,
  });
  if (response.statusCode !== 200) throw new Error(`status.json answered ${response.statusCode}`);
  return ((await response.body.json()) as { queued_tasks: TaskStatus[] }).queued_tasks;
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Polls until the task has ended (backing off 5 ms → 50 ms); throws unless it ended as success. */
async function untilDone(url: string, account: Account, id: number): Promise<void> {
  for (let delay = 5; ; delay = Math.min(50, delay * 1.5)) {
    const [task] = await statuses(url, account, [id]);
    if (task === undefined) throw new Error(`task ${id} is missing`);
    if (task.status === 1 && task.response_code === 'success') return;
    if (task.status !== 0) throw new Error(`task ${id} ended as ${task.response_code}: ${task.message}`);
    await sleep(delay);
  }
}

// ---------------------------------------------------------------------------------------------------
// The server

async function createAccount(location: string): Promise<Account> {
  const { apiKey, authToken } = await createBenchAccount(location);
  return { query: new URLSearchParams({ apikey: apiKey, auth_token: authToken }).toString() };
}

/** created_at → finished_at of each task, ms, and the span from the first created to the last finished. */
async function serverTimes(
  platform: Platform,
  ids: readonly number[],
): Promise<{ each: number[]; spanMs: number }> {
  const each: number[] = [];
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const id of ids) {
    const task = await platform.store.tasks.find(id);
    if (task?.finished_at == null) throw new Error(`task ${id} did not finish`);
    each.push(task.finished_at - task.created_at);
    first = Math.min(first, task.created_at);
    last = Math.max(last, task.finished_at);
  }
  return { each, spanMs: last - first };
}

// ---------------------------------------------------------------------------------------------------
// Measures

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

const median = (values: readonly number[]): number => percentile(values, 0.5);
const ratioOf = (value: number, reference: number): string => `${(value / reference).toFixed(2)}×`;
const ms = (value: number): string => `${value.toFixed(1)} ms`;

interface UploadTiming {
  id: number;
  answerMs: number;
  readyMs: number;
}

let variantCounter = 0;

/** `count` copies of the file, each with bytes of its own; made before the clock runs. */
function variants(original: Uint8Array, count: number): Uint8Array[] {
  return Array.from({ length: count }, () => fitVariant(original, ++variantCounter));
}

async function timedUpload(
  url: string,
  account: Account,
  bytes: Uint8Array,
  name: string,
): Promise<UploadTiming> {
  const start = performance.now();
  const id = await upload(url, account, name, bytes);
  const answerMs = performance.now() - start;
  await untilDone(url, account, id);
  return { id, answerMs, readyMs: performance.now() - start };
}

/** Status requests, one every PROBE_INTERVAL_MS, until `until` resolves or `count` are done. */
async function probeStatus(
  url: string,
  account: Account,
  ids: () => number[],
  stop: { done: boolean },
  count = Number.POSITIVE_INFINITY,
): Promise<number[]> {
  const latencies: number[] = [];
  while (!stop.done && latencies.length < count) {
    const start = performance.now();
    await statuses(url, account, ids());
    latencies.push(performance.now() - start);
    await sleep(PROBE_INTERVAL_MS);
  }
  return latencies;
}

interface LatencyRuns {
  solo: UploadTiming[];
  concurrent: UploadTiming[];
}

/** Part 1 against the server at `url`: a warm-up, uploads one at a time, then rounds of 20 at once. */
async function latencyRuns(url: string, account: Account, fenix: Uint8Array): Promise<LatencyRuns> {
  // Warm-up: the worker threads start with the first task, and the code paths get compiled.
  for (const bytes of variants(fenix, WARM_UP_UPLOADS)) {
    await timedUpload(url, account, bytes, 'fenix.fit');
  }
  const solo: UploadTiming[] = [];
  for (const bytes of variants(fenix, SOLO_UPLOADS)) {
    solo.push(await timedUpload(url, account, bytes, 'fenix.fit'));
  }
  const concurrent: UploadTiming[] = [];
  for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
    const copies = variants(fenix, CONCURRENT_UPLOADERS);
    concurrent.push(
      ...(await Promise.all(copies.map((bytes) => timedUpload(url, account, bytes, 'fenix.fit')))),
    );
  }
  return { solo, concurrent };
}

function parseAloneMs(bytes: Uint8Array): number {
  for (let i = 0; i < 3; i++) parseRideFile(bytes);
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const start = performance.now();
    parseRideFile(bytes);
    times.push(performance.now() - start);
  }
  return median(times);
}

async function main(): Promise<void> {
  if (!corpusAvailable) {
    console.log(CORPUS_SKIP_REASON);
    return;
  }
  const hourFiles = HOUR_FITS.map((name) => ({ name, bytes: readFit(name), ...checkVariant(name) }));
  try {
    if (!process.argv.includes('--engines-only')) await queueFigures(hourFiles);
    if (!process.argv.includes('--queue-only')) await engineFigures(hourFiles);
  } finally {
    await agent.close();
  }
}

type HourFile = { name: string; bytes: Uint8Array; points: number; hours: number };

/** Parts 1 and 2, on SQLite. */
async function queueFigures(hourFiles: HourFile[]): Promise<void> {
  const headline = checkVariant(HEADLINE_FIT);
  const directory = mkdtempSync(join(tmpdir(), 'rideport-bench-upload-'));
  const databasePath = join(directory, 'rideport.sqlite');
  try {
    const account = await createAccount(databasePath);
    const server = await startServer(['api', databasePath, 'http://127.0.0.1']);
    const fenix = readFit(HEADLINE_FIT);
    let solo: UploadTiming[] = [];
    let concurrent: UploadTiming[] = [];
    let idleProbe: number[] = [];
    let ingestProbe: number[] = [];
    const ingestIds: number[] = [];
    let ingestWallMs = 0;
    try {
      ({ solo, concurrent } = await latencyRuns(server.url, account, fenix));

      const probeIds = (): number[] =>
        ingestIds.length >= 5 ? ingestIds.slice(-5) : concurrent.slice(-5).map((t) => t.id);
      idleProbe = await probeStatus(server.url, account, probeIds, { done: false }, PROBE_IDLE_REQUESTS);

      const ingestFiles = Array.from({ length: INGEST_UPLOADS }, (_, k) => {
        const file = hourFiles[k % hourFiles.length]!;
        return { name: file.name, bytes: fitVariant(file.bytes, ++variantCounter) };
      });
      const stop = { done: false };
      const probing = probeStatus(server.url, account, probeIds, stop);
      const start = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: INGEST_UPLOADERS }, async () => {
          for (let k = next++; k < INGEST_UPLOADS; k = next++) {
            const file = ingestFiles[k]!;
            ingestIds.push(await upload(server.url, account, file.name, file.bytes));
          }
        }),
      );
      for (;;) {
        let pending = 0;
        for (let i = 0; i < ingestIds.length; i += 200) {
          const chunk = await statuses(server.url, account, ingestIds.slice(i, i + 200));
          for (const task of chunk) {
            if (task.status === 0) pending++;
            else if (task.response_code !== 'success') throw new Error(`task ${task.id}: ${task.message}`);
          }
        }
        if (pending === 0) break;
        await sleep(100);
      }
      ingestWallMs = performance.now() - start;
      stop.done = true;
      ingestProbe = await probing;
    } finally {
      await server.stop();
    }

    const referenceServer = await startServer(['upload-reference']);
    let reference: LatencyRuns;
    try {
      reference = await latencyRuns(referenceServer.url, account, fenix);
    } finally {
      await referenceServer.stop();
    }

    const platform = await openPlatform({ databasePath, baseUrl: 'http://127.0.0.1' });
    let soloServer: number[];
    let concurrentServer: number[];
    let ingest: { each: number[]; spanMs: number };
    try {
      soloServer = (
        await serverTimes(
          platform,
          solo.map((t) => t.id),
        )
      ).each;
      concurrentServer = (
        await serverTimes(
          platform,
          concurrent.map((t) => t.id),
        )
      ).each;
      ingest = await serverTimes(platform, ingestIds);
    } finally {
      await platform.close();
    }
    const parseMs = parseAloneMs(fenix);

    const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
    console.log(
      `Upload queue: ${availableParallelism()} cores (${cpu}), Node ${process.version}; server in its own process with the default queue (one worker thread per core).\n`,
    );
    console.log(
      `1. Upload → trip-ready, the ${(fenix.length / 1e6).toFixed(2)} MB Fenix 2 FIT file (${headline.points} points, ${headline.hours.toFixed(1)} h), each upload's bytes varied (no duplicates). Target: 20 uploaders, median ≤ ${TARGET_MEDIAN_MS} ms, p99 ≤ ${TARGET_P99_MS} ms.\n`,
    );
    const latencyRow = (label: string, timings: UploadTiming[], serverSide: number[]): string[] => [
      label,
      String(timings.length),
      ms(median(timings.map((t) => t.answerMs))),
      ms(median(timings.map((t) => t.readyMs))),
      ms(
        percentile(
          timings.map((t) => t.readyMs),
          0.99,
        ),
      ),
      serverSide.length === 0 ? '' : ms(median(serverSide)),
      serverSide.length === 0 ? '' : ms(percentile(serverSide, 0.99)),
      `${(median(timings.map((t) => t.readyMs)) / parseMs).toFixed(1)}×`,
    ];
    console.log(
      formatTable(
        [
          'uploaders',
          'uploads',
          'answer p50',
          'ready p50',
          'ready p99',
          'server p50',
          'server p99',
          'ready p50 ÷ parse',
        ],
        [
          latencyRow('1 at a time', solo, soloServer),
          latencyRow(
            `${CONCURRENT_UPLOADERS} at once (${CONCURRENT_ROUNDS} rounds)`,
            concurrent,
            concurrentServer,
          ),
          latencyRow('reference: 1 at a time', reference.solo, []),
          latencyRow(`reference: ${CONCURRENT_UPLOADERS} at once`, reference.concurrent, []),
          ['parse alone, in-process (peer)', '10', '', ms(parseMs), '', '', '', '1.0×'],
        ],
        ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
      ),
    );
    const concurrentMedian = median(concurrent.map((t) => t.readyMs));
    const concurrentP99 = percentile(
      concurrent.map((t) => t.readyMs),
      0.99,
    );
    const referenceReady = reference.concurrent.map((t) => t.readyMs);
    console.log(
      `\nready = upload start → the poll that saw status 1 (client); server = task created → finished (task row). reference = bench/api-server.js upload-reference: bare Fastify receiving and hashing the same uploads and parsing them in the same worker pool, status from memory, no database or credentials (the least these uploads cost on this machine). 20 uploaders: median ${ms(concurrentMedian)} (${concurrentMedian <= TARGET_MEDIAN_MS ? 'meets' : 'misses'} ≤ ${TARGET_MEDIAN_MS} ms; ${ratioOf(concurrentMedian, median(referenceReady))} the reference's), p99 ${ms(concurrentP99)} (${concurrentP99 <= TARGET_P99_MS ? 'meets' : 'misses'} ≤ ${TARGET_P99_MS} ms; ${ratioOf(concurrentP99, percentile(referenceReady, 0.99))} the reference's).\n`,
    );

    const ridesPerSecond = (INGEST_UPLOADS / ingest.spanMs) * 1000;
    const statusMedian = median(ingestProbe);
    console.log(
      `2. Sustained ingest: ${INGEST_UPLOADS} rides of about an hour (${hourFiles.map((f) => `${f.points} pts`).join(', ')}), ${INGEST_UPLOADERS} uploaders; status.json probed every ${PROBE_INTERVAL_MS} ms meanwhile. Targets: ≥ ${TARGET_RIDES_PER_SECOND} rides/s, status median < ${TARGET_STATUS_MEDIAN_MS} ms.\n`,
    );
    console.log(
      formatTable(
        ['measure', 'value', 'target', 'verdict'],
        [
          [
            'rides/s (first created → last finished)',
            ridesPerSecond.toFixed(1),
            `≥ ${TARGET_RIDES_PER_SECOND}`,
            ridesPerSecond >= TARGET_RIDES_PER_SECOND ? 'meets' : 'misses',
          ],
          [
            'rides/s (client wall clock, incl. polling)',
            ((INGEST_UPLOADS / ingestWallMs) * 1000).toFixed(1),
            '',
            '',
          ],
          ['task created → finished, p50', ms(median(ingest.each)), '', ''],
          [
            `status.json during ingest, p50 (${ingestProbe.length} requests)`,
            ms(statusMedian),
            `< ${TARGET_STATUS_MEDIAN_MS} ms`,
            statusMedian < TARGET_STATUS_MEDIAN_MS ? 'meets' : 'misses',
          ],
          ['status.json during ingest, p99', ms(percentile(ingestProbe, 0.99)), '', ''],
          [`status.json idle, p50 (peer, ${idleProbe.length} requests)`, ms(median(idleProbe)), '', ''],
        ],
        ['left', 'right', 'right', 'left'],
      ),
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * Sustained ingest of ENGINE_UPLOADS hour rides on the database at `location` with `nodes` servers:
 * 8 uploaders, upload k to server k mod nodes; rides/s from the task rows (first created → last
 * finished). `riders` 1: every upload is one rider's, whose rides are stored one transaction at a
 * time (the duplicate checks); INGEST_UPLOADERS: uploader u uploads as rider u, as a club's members do.
 */
async function ingestOn(
  location: string,
  nodes: number,
  hourFiles: HourFile[],
  riders: 1 | typeof INGEST_UPLOADERS,
): Promise<number> {
  const accounts = (await createBenchAccounts(location, riders)).map(({ apiKey, authToken }) => ({
    query: new URLSearchParams({ apikey: apiKey, auth_token: authToken }).toString(),
  }));
  const servers: ServerProcess[] = [];
  for (let node = 0; node < nodes; node++)
    servers.push(await startServer(['api', location, 'http://127.0.0.1']));
  const ids: { id: number; account: Account }[] = [];
  try {
    const files = Array.from({ length: ENGINE_UPLOADS }, (_, k) => {
      const file = hourFiles[k % hourFiles.length]!;
      return { name: file.name, bytes: fitVariant(file.bytes, ++variantCounter) };
    });
    let next = 0;
    await Promise.all(
      Array.from({ length: INGEST_UPLOADERS }, async (_, uploader) => {
        const account = accounts[uploader % riders]!;
        for (let k = next++; k < ENGINE_UPLOADS; k = next++) {
          const id = await upload(servers[k % nodes]!.url, account, files[k]!.name, files[k]!.bytes);
          ids.push({ id, account });
        }
      }),
    );
    for (const account of accounts) {
      const own = ids.filter((task) => task.account === account).map((task) => task.id);
      await untilAllEnded(servers[0]!.url, account, own);
    }
  } finally {
    for (const server of servers) await server.stop();
  }
  const platform = await openPlatform({ ...databaseOptionsOf(location), baseUrl: 'http://127.0.0.1' });
  try {
    const spanMs = (
      await serverTimes(
        platform,
        ids.map((task) => task.id),
      )
    ).spanMs;
    return (ENGINE_UPLOADS / spanMs) * 1000;
  } finally {
    await platform.close();
  }
}

/** Polls status.json until every task of `ids` has ended; throws at one that did not succeed. */
async function untilAllEnded(url: string, account: Account, ids: readonly number[]): Promise<void> {
  for (;;) {
    let pending = 0;
    // status.json takes at most 200 ids at a time.
    for (let i = 0; i < ids.length; i += 200) {
      for (const task of await statuses(url, account, ids.slice(i, i + 200))) {
        if (task.status === 0) pending++;
        else if (task.response_code !== 'success') throw new Error(`task ${task.id}: ${task.message}`);
      }
    }
    if (pending === 0) return;
    await sleep(100);
  }
}

/**
 * Part 3: SQLite against PostgreSQL with one, two and three servers, in this run; each with every
 * upload one rider's, and with one server also with each uploader a rider of their own (a club).
 */
async function engineFigures(hourFiles: HourFile[]): Promise<void> {
  const postgres = await startBenchPostgres();
  if ('skipped' in postgres) {
    console.log(`\n3. Engines: skipped (PostgreSQL is not installed here: ${postgres.skipped}).`);
    return;
  }
  const directory = mkdtempSync(join(tmpdir(), 'rideport-bench-engines-'));
  try {
    // A folder each: a data directory holds one database.
    const sqlite = await ingestOn(join(directory, 'rider', 'rideport.sqlite'), 1, hourFiles, 1);
    const sqliteClub = await ingestOn(
      join(directory, 'club', 'rideport.sqlite'),
      1,
      hourFiles,
      INGEST_UPLOADERS,
    );
    const ratio = (rate: number, reference: number): string => `${(rate / reference).toFixed(2)}×`;
    const rows: string[][] = [
      ['SQLite, 1 server', sqlite.toFixed(1), '1.00×', sqliteClub.toFixed(1), '1.00×', ''],
    ];
    // One server reaches its database as it would on one machine, over the Unix socket, and as it
    // would on another machine, over TCP; several servers over TCP, as nodes on machines of their own.
    const configurations: {
      nodes: number;
      synchronousCommit: boolean;
      club: boolean;
      via: PostgresConnection;
    }[] = [
      { nodes: 1, synchronousCommit: true, club: true, via: 'unix socket' },
      { nodes: 1, synchronousCommit: true, club: true, via: 'tcp' },
      { nodes: 1, synchronousCommit: false, club: false, via: 'unix socket' },
      { nodes: 2, synchronousCommit: true, club: false, via: 'tcp' },
      { nodes: 3, synchronousCommit: true, club: false, via: 'tcp' },
    ];
    for (const { nodes, synchronousCommit, club, via } of configurations) {
      const database = (): Promise<string> => postgres.newDatabase({ synchronousCommit, via });
      const rate = await ingestOn(await database(), nodes, hourFiles, 1);
      const clubRate = club ? await ingestOn(await database(), nodes, hourFiles, INGEST_UPLOADERS) : null;
      const verdict =
        nodes === 1 && synchronousCommit
          ? `${rate / sqlite >= TARGET_POSTGRES_RATIO ? 'meets' : 'misses'} ≥ ${TARGET_POSTGRES_RATIO * 100} %`
          : '';
      const commits = synchronousCommit ? '' : ', synchronous_commit off';
      rows.push([
        `PostgreSQL, ${nodes} server${nodes === 1 ? '' : 's'}, ${via === 'tcp' ? 'TCP' : 'Unix socket'}${commits}`,
        rate.toFixed(1),
        ratio(rate, sqlite),
        clubRate === null ? '' : clubRate.toFixed(1),
        clubRate === null ? '' : ratio(clubRate, sqliteClub),
        verdict,
      ]);
    }
    console.log(
      `\n3. Engines: sustained ingest of ${ENGINE_UPLOADS} hour rides, ${INGEST_UPLOADERS} uploaders spread over the servers; each server in its own process with one parse worker per core (${availableParallelism()}), on one fresh database each. PostgreSQL on a throwaway cluster on this machine, reached by one server over its Unix socket (as a server on the database's machine connects) and over TCP (as from another machine, here through the loopback device), by several servers over TCP. Its default durability (each commit waits for its WAL on disk), and once synchronous_commit off, which is what SQLite's WAL with synchronous=NORMAL does (a power loss may lose the last moments, never corrupts). "1 rider": all uploads are one rider's, whose rides are stored one transaction at a time (the duplicate checks, issue 18); "${INGEST_UPLOADERS} riders": each uploader is a rider of their own, as in a club.\n`,
    );
    console.log(
      formatTable(
        [
          'database',
          'rides/s, 1 rider',
          '÷ SQLite',
          `rides/s, ${INGEST_UPLOADERS} riders`,
          '÷ SQLite',
          'target (1 rider)',
        ],
        rows,
        ['left', 'right', 'right', 'right', 'right', 'left'],
      ),
    );
  } finally {
    postgres.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();

/**
 * v1 API benchmark (`npm run bench:api`, issue 4): requests per second and latency of two v1 endpoints
 * against a bare Fastify "hello" route as the ceiling, all measured in the same run with autocannon 8:
 *   - ceiling: GET /hello → {"hello":"world"} on a Fastify app with nothing else registered;
 *   - GET /api/v1/routes.json?page_size=200, with a library of ≥ 200 routes made from real corpus tracks
 *     (each a full record: 200 of them per response). Target: ≥ 40 % of the ceiling's requests/s;
 *   - GET /api/v1/trips/{id}.json for a trip of exactly 10,000 points (a corpus ride cut to 10,000), the
 *     record with its track_points. Target: median latency ≤ 15 ms, measured with one connection: the
 *     latency of the endpoint itself. With n connections the median is about n × the time per response
 *     (Little's law), a measure of the queue in front of one Node process, not of the endpoint; that row
 *     is printed too, for the requests per second.
 * Both v1 requests authenticate with Basic (API key + auth token) on every request, as clients do;
 * GET /api/v1/users/current.json, which does little else, is measured beside them to show what that
 * costs.
 * Repeated requests for the same routes page are answered from the server's page cache, which is checked
 * against the change log with one indexed query per request (api/v1/asset-endpoints.ts,
 * versioned-cache.ts); what rendering a page afresh costs (a cache miss, after every change to the
 * library) is timed in-process and printed below the table.
 *
 * On PostgreSQL too (issue 18, "Figures"): the same library written into a database on a throwaway
 * cluster (bench/databases.ts; skipped, and said, without PostgreSQL), served by the same build, and its
 * routes index measured in the same rounds; printed as a ratio to SQLite's. Target: ≥ 70 %.
 *
 * The servers run in processes of their own (bench/api-server.js; the API server from the package's
 * build, on a SQLite file in a temporary folder, as `rideport serve` runs it), so the server and
 * autocannon each have a core. The targets take turns, round after round, so machine noise falls on all
 * of them alike; each round starts with an unmeasured warm-up. The table shows the median over the
 * rounds. Skips (exit 0) when the corpus is absent. Not part of `npm test`: tests never assert
 * wall-clock times.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRideFile, type Track } from '@rideport/ridefile';
import { buildServer } from '@rideport/server';
import autocannon from 'autocannon';
import { CORPUS_SKIP_REASON, corpusAvailable, corpusFiles } from '../test/support/corpus.js';
import { addBenchAccount } from './account.js';
import { databaseOptionsOf, startBenchPostgres } from './databases.js';
import { startServer, type ServerProcess } from './server-process.js';
import { formatTable } from './table.js';
import { median } from './child-timing.js';

const ROUTES_IN_LIBRARY = 250;
const PAGE_SIZE = 200;
/** issue 18: the routes index on PostgreSQL at least this share of SQLite's requests/s */
const POSTGRES_TARGET_RATIO = 0.7;
const TRIP_POINTS = 10_000;
/** Library routes come from tracks up to this size, so the database stays small. */
const MAX_ROUTE_POINTS = 20_000;
/** Rides to cut the 10,000-point trip from, in order of preference. */
const TRIP_SOURCES = [
  'fitparse__garmin-edge-500-activity.fit',
  'fitparse__coros-pace-2-cycling-misaligned-fields.fit',
  'fitparse__2019-02-17-062644-ELEMNT-297E-195-0.fit',
];
const ROUTES_TARGET_RATIO = 0.4;
const TRIP_TARGET_P50_MS = 15;

const ROUNDS = 3;
const CONNECTIONS = 10;
const WARM_UP_SECONDS = 1;
const MEASURE_SECONDS = 5;

interface Library {
  /** a SQLite file or a postgres:// URL */
  location: string;
  authorization: string;
  tripId: number;
  /** ms to render a page of PAGE_SIZE routes afresh, in-process */
  renderMs: number;
  routeCount: number;
  routeSources: number;
}

/** The tracks of every corpus file that parses, in name order. */
function corpusTracks(): { name: string; track: Track }[] {
  const tracks: { name: string; track: Track }[] = [];
  for (const file of corpusFiles()) {
    try {
      for (const track of parseRideFile(new Uint8Array(readFileSync(file.path)), { filename: file.name })
        .tracks) {
        tracks.push({ name: file.name, track });
      }
    } catch {
      // Files that hold no track (metadata only, empty) have nothing to offer the library.
    }
  }
  return tracks;
}

/** The 10,000-point trip: the first source ride with enough points, cut to exactly 10,000. */
function benchTrip(tracks: { name: string; track: Track }[]): { name: string; track: Track } {
  for (const name of TRIP_SOURCES) {
    const found = tracks.find((entry) => entry.name === name && entry.track.points.length >= TRIP_POINTS);
    if (found !== undefined) {
      return { name, track: { ...found.track, points: found.track.points.slice(0, TRIP_POINTS) } };
    }
  }
  const ride = tracks.find(
    (entry) => entry.track.kind === 'ride' && entry.track.points.length >= TRIP_POINTS,
  );
  if (ride === undefined) throw new Error(`no corpus ride has ${TRIP_POINTS} points`);
  return { name: ride.name, track: { ...ride.track, points: ride.track.points.slice(0, TRIP_POINTS) } };
}

/** A user, an API client, an auth token, the route library and the trip, written through the store. */
async function buildLibrary(location: string, baseUrl: string): Promise<Library & { tripSource: string }> {
  const app = await buildServer({ ...databaseOptionsOf(location), baseUrl });
  try {
    const { store } = app.rideport;
    const { userId, apiKey, authToken } = await addBenchAccount(store);
    const tracks = corpusTracks();
    // Every corpus track (rides too) becomes a route, round after round, until the library is full.
    const sources = tracks.filter((entry) => entry.track.points.length <= MAX_ROUTE_POINTS);
    for (let i = 0; i < ROUTES_IN_LIBRARY; i++) {
      const { track } = sources[i % sources.length]!;
      await store.assets.createFromTrack(userId, { ...track, kind: 'route' });
    }
    const trip = benchTrip(tracks);
    const created = await store.assets.createFromTrack(userId, trip.track, { name: 'Bench trip' });
    return {
      renderMs: await timeRender(async () => {
        await store.assets.listRecordsJson(
          'route',
          userId,
          { offset: 0, limit: PAGE_SIZE },
          { prefix: `${baseUrl}/api/v1/routes/`, suffix: '.json' },
        );
      }),
      location,
      authorization: `Basic ${Buffer.from(`${apiKey}:${authToken}`).toString('base64')}`,
      tripId: created.row.id,
      routeCount: ROUTES_IN_LIBRARY,
      routeSources: sources.length,
      tripSource: trip.name,
    };
  } finally {
    await app.close();
  }
}

/** Median ms of `render` over batches, after a warm-up batch. */
async function timeRender(render: () => Promise<void>): Promise<number> {
  const BATCHES = 10;
  const RUNS = 50;
  const batches: number[] = [];
  for (let batch = -1; batch < BATCHES; batch++) {
    const start = performance.now();
    for (let run = 0; run < RUNS; run++) await render();
    if (batch >= 0) batches.push((performance.now() - start) / RUNS);
  }
  return median(batches);
}

interface Target {
  label: string;
  url: string;
  headers: Record<string, string>;
  connections: number;
  goal: ((result: Summary) => { text: string; met: boolean }) | null;
}

interface Run {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerResponse: number;
  /** responses that were not 2xx, plus connection errors and timeouts */
  failures: number;
}

/** A target's runs over the rounds: medians, and the median of its per-round ratios to the ceiling. */
interface Summary extends Run {
  ratio: number;
}

async function load(target: Target, seconds: number): Promise<Run> {
  const result = await autocannon({
    url: target.url,
    headers: target.headers,
    connections: target.connections,
    duration: seconds,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    bytesPerResponse: result.requests.total > 0 ? result.throughput.total / result.requests.total : 0,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

async function benchmark(): Promise<void> {
  if (!corpusAvailable) {
    console.log(`bench:api skipped: ${CORPUS_SKIP_REASON}`);
    return;
  }
  const cpu = cpus();
  console.log(`rideport v1 API benchmark, ${new Date().toISOString()}`);
  console.log(
    `Node ${process.version}, ${process.platform} ${process.arch}, ${cpu.length} × ${cpu[0]?.model ?? '?'}`,
  );

  const directory = mkdtempSync(join(tmpdir(), 'rideport-bench-api-'));
  const servers: ServerProcess[] = [];
  const postgres = await startBenchPostgres();
  try {
    const baseUrl = 'http://127.0.0.1:4242';
    const library = await buildLibrary(join(directory, 'rideport.sqlite'), baseUrl);
    const hello = await startServer(['hello']);
    servers.push(hello);
    const api = await startServer(['api', library.location, baseUrl]);
    servers.push(api);
    let postgresRoutesUrl: string | null = null;
    let postgresHeaders = {};
    if (!('skipped' in postgres)) {
      const onPostgres = await buildLibrary(await postgres.newDatabase(), baseUrl);
      const postgresApi = await startServer(['api', onPostgres.location, baseUrl]);
      servers.push(postgresApi);
      postgresRoutesUrl = `${postgresApi.url}/api/v1/routes.json?page_size=${PAGE_SIZE}`;
      postgresHeaders = { authorization: onPostgres.authorization };
    }
    const headers = { authorization: library.authorization };
    const routesUrl = `${api.url}/api/v1/routes.json?page_size=${PAGE_SIZE}`;
    // The same page's bytes from a bare Fastify route: what sending them costs on this machine, with
    // no work at all behind them (the routes target's ratio cannot exceed this row's).
    const pagePath = join(directory, 'routes-page.json');
    writeFileSync(pagePath, Buffer.from(await (await fetch(routesUrl, { headers })).arrayBuffer()));
    const bytes = await startServer(['bytes', pagePath]);
    servers.push(bytes);
    const tripUrl = `${api.url}/api/v1/trips/${library.tripId}.json`;
    const tripLabel = `GET /api/v1/trips/{id}.json (${TRIP_POINTS.toLocaleString('en')} points)`;
    const targets: Target[] = [
      {
        label: 'ceiling: bare Fastify GET /hello',
        url: `${hello.url}/hello`,
        headers: {},
        connections: CONNECTIONS,
        goal: null,
      },
      {
        label: `reference: bare Fastify sending the routes page`,
        url: `${bytes.url}/page`,
        headers: {},
        connections: CONNECTIONS,
        goal: null,
      },
      {
        // Not a target: any authenticated v1 request, for what the credential check alone costs.
        label: 'GET /api/v1/users/current.json (auth only)',
        url: `${api.url}/api/v1/users/current.json`,
        headers,
        connections: CONNECTIONS,
        goal: null,
      },
      {
        label: `GET /api/v1/routes.json?page_size=${PAGE_SIZE}`,
        url: routesUrl,
        headers,
        connections: CONNECTIONS,
        goal: (result) => ({
          text: `≥ ${ROUTES_TARGET_RATIO * 100} % of ceiling`,
          met: result.ratio >= ROUTES_TARGET_RATIO,
        }),
      },
      {
        label: tripLabel,
        url: tripUrl,
        headers,
        connections: 1,
        goal: (result) => ({
          text: `p50 ≤ ${TRIP_TARGET_P50_MS} ms`,
          met: result.p50Ms <= TRIP_TARGET_P50_MS,
        }),
      },
      { label: tripLabel, url: tripUrl, headers, connections: CONNECTIONS, goal: null },
      ...(postgresRoutesUrl === null
        ? []
        : [
            {
              label: `PostgreSQL: GET /api/v1/routes.json?page_size=${PAGE_SIZE}`,
              url: postgresRoutesUrl,
              headers: postgresHeaders,
              connections: CONNECTIONS,
              goal: null,
            },
          ]),
    ];
    console.log(
      [
        `Library: ${library.routeCount} routes made from ${library.routeSources} corpus tracks; the trip: ` +
          `${library.tripSource} cut to ${TRIP_POINTS} points.`,
        `autocannon, no pipelining; ${ROUNDS} rounds, each target ${WARM_UP_SECONDS} s warm-up + ` +
          `${MEASURE_SECONDS} s measured per round, in turn; the table shows medians over the rounds;` +
          ' ÷ ceiling is the median of per-round ratios.',
        'Servers in processes of their own (bench/api-server.js); the API server is buildServer() on a SQLite',
        'file, with Basic authentication checked on every request.',
      ].join('\n'),
    );

    const runs = targets.map((): Run[] => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < targets.length; k++) {
        // Who goes first rotates from round to round.
        const index = (round + k) % targets.length;
        const target = targets[index]!;
        await load(target, WARM_UP_SECONDS);
        const run = await load(target, MEASURE_SECONDS);
        runs[index]!.push(run);
        console.log(
          `  round ${round + 1}: ${target.label}, ${target.connections} conn.: ` +
            `${Math.round(run.requestsPerSecond)} req/s, ` +
            `p50 ${ms(run.p50Ms)} ms, p99 ${ms(run.p99Ms)} ms` +
            (run.failures > 0 ? `, ${run.failures} FAILED requests` : ''),
        );
      }
    }

    // Ratios are taken round by round (each target against the ceiling of its own round, measured
    // seconds apart), then the median: the load of other processes moves both alike.
    const ceilingRuns = runs[0]!;
    const summary = runs.map((list) => ({
      requestsPerSecond: median(list.map((run) => run.requestsPerSecond)),
      p50Ms: median(list.map((run) => run.p50Ms)),
      p99Ms: median(list.map((run) => run.p99Ms)),
      bytesPerResponse: median(list.map((run) => run.bytesPerResponse)),
      failures: list.reduce((sum, run) => sum + run.failures, 0),
      ratio: ratioOf(list, ceilingRuns),
    }));
    const rows = targets.map((target, i) => {
      const result = summary[i]!;
      const goal = target.goal?.(result) ?? null;
      let verdict = goal === null ? '' : goal.met ? 'pass' : 'FAIL';
      if (result.failures > 0) verdict = `FAIL (${result.failures} failed requests)`;
      return [
        target.label,
        String(target.connections),
        Math.round(result.requestsPerSecond).toLocaleString('en'),
        ms(result.p50Ms),
        ms(result.p99Ms),
        `${(result.bytesPerResponse / 1000).toFixed(1)} kB`,
        `${(result.ratio * 100).toFixed(1)} %`,
        goal?.text ?? '',
        verdict,
      ];
    });
    console.log(
      `\n${formatTable(
        ['endpoint', 'conn.', 'req/s', 'p50 ms', 'p99 ms', 'response', '÷ ceiling', 'target', ''],
        rows,
        ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
      )}`,
    );
    console.log('response = bytes per response, headers included, as autocannon counts them');
    const runsOf = (url: string): Run[] => runs[targets.findIndex((target) => target.url === url)]!;
    const ofReference = ratioOf(runsOf(routesUrl), runsOf(`${bytes.url}/page`));
    console.log(`routes index ÷ bare Fastify sending the same page: ${(ofReference * 100).toFixed(1)} %`);
    console.log(
      `A routes page rendered afresh (cache miss: count + page query, ${PAGE_SIZE} records spliced): ` +
        `${ms(library.renderMs)} ms median in-process, server time only.`,
    );
    if (postgresRoutesUrl === null) {
      console.log(`PostgreSQL: skipped (${'skipped' in postgres ? postgres.skipped : ''}).`);
    } else {
      const ofSqlite = ratioOf(runsOf(postgresRoutesUrl), runsOf(routesUrl));
      console.log(
        `routes index on PostgreSQL ÷ on SQLite: ${(ofSqlite * 100).toFixed(1)} % (` +
          `${ofSqlite >= POSTGRES_TARGET_RATIO ? 'meets' : 'misses'} ≥ ${POSTGRES_TARGET_RATIO * 100} %)`,
      );
    }
  } finally {
    for (const server of servers) await server.stop();
    if (!('skipped' in postgres)) postgres.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The median over the rounds of `runs`' requests per second ÷ `reference`'s in the same round. */
function ratioOf(runs: Run[], reference: Run[]): number {
  return median(runs.map((run, round) => run.requestsPerSecond / reference[round]!.requestsPerSecond));
}

await benchmark();

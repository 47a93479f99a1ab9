/**
 * An operator's path on PostgreSQL (issue 18), end to end: `rideport admin` and two `rideport serve`
 * processes on one database URL with one shared master key; a revocation made through one server is
 * refused at once by the other; a server with `--no-workers` whose uploads a `rideport worker` reads. On a throwaway cluster (skipped, and said, without PostgreSQL).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ownPostgresCluster } from '../../../server/src/test-support/postgres-cluster.js';
import { sharedPostgres } from '../../../server/src/test-support/shared-postgres.js';
import { spawnRideport, type RideportChild } from '../test-support/child.js';
import { buildCli, rideport, temporaryDirectory } from '../test-support/run.js';

// The run's cluster (issue 35); the test that stops its database server starts a cluster of its own.
const cluster = sharedPostgres('rideport on PostgreSQL');

let keyFile: string;
let directory: { path: string; remove: () => void } | undefined;
const children: RideportChild[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.process.kill('SIGKILL');
});

async function newDatabaseUrl(): Promise<string> {
  return cluster.url(await cluster.newDatabase('cli'));
}

function serve(url: string): RideportChild {
  const child = spawnRideport(['serve', '--port', '0', '--database', url, '--master-key-file', keyFile]);
  children.push(child);
  return child;
}

/** Cookies and CSRF as a browser keeps them, over a real socket (the developer pages' forms). */
class Visitor {
  readonly #cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  async get(path: string): Promise<string> {
    const response = await request(`${this.base}${path}`, { headers: this.#headers() });
    this.#keep(response.headers['set-cookie']);
    return response.body.text();
  }

  async post(path: string, form: Record<string, string>): Promise<number> {
    const response = await request(`${this.base}${path}`, {
      method: 'POST',
      headers: { ...this.#headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    this.#keep(response.headers['set-cookie']);
    await response.body.dump();
    return response.statusCode;
  }

  async csrf(path: string): Promise<string> {
    const match = /name="_csrf" value="([^"]+)"/.exec(await this.get(path));
    if (match === null) throw new Error(`no form on ${path}`);
    return match[1]!;
  }

  #headers(): Record<string, string> {
    return { cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  #keep(header: string | string[] | undefined): void {
    for (const line of header === undefined ? [] : Array.isArray(header) ? header : [header]) {
      const [pair = ''] = line.split(';', 1);
      const equals = pair.indexOf('=');
      this.#cookies.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
    }
  }
}

/** A small GPX ride of its own: `index` moves its start, so no two are the same recording. */
function gpxRide(index: number): string {
  const start = Date.parse('2025-05-01T08:00:00Z') + index * 86_400_000;
  const points = Array.from({ length: 30 }, (_, second) => {
    const time = new Date(start + second * 10_000).toISOString();
    return `<trkpt lat="${(47 + second * 0.0005).toFixed(5)}" lon="8.5"><ele>400</ele><time>${time}</time></trkpt>`;
  }).join('');
  return `<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${points}</trkseg></trk></gpx>`;
}

/** Uploads through the legacy API (POST /trips.json); the task id. */
async function uploadRide(base: string, query: string, index: number): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([gpxRide(index)]), `ride-${index}.gpx`);
  const response = await fetch(`${base}/trips.json?${query}`, { method: 'POST', body: form });
  const answer = (await response.json()) as { task_id?: number };
  if (typeof answer.task_id !== 'number') throw new Error(`not accepted: ${JSON.stringify(answer)}`);
  return answer.task_id;
}

async function taskStatuses(base: string, query: string, ids: number[]): Promise<number[]> {
  const response = await request(`${base}/queued_tasks/status.json?${query}&ids=${ids.join(',')}`);
  const { queued_tasks } = (await response.body.json()) as { queued_tasks: { status: number }[] };
  return queued_tasks.map((task) => task.status);
}

async function until(what: string, done: () => Promise<boolean> | boolean): Promise<void> {
  for (let waited = 0; !(await done()); waited += 50) {
    if (waited > 60_000) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `rideport admin` makes ops@example.com, an API client of theirs and an auth token. */
async function accountAndToken(
  url: string,
): Promise<{ apiKey: string; authToken: string; clientId: string }> {
  const on = ['--database', url, '--master-key-file', keyFile, '--json'];
  const admin = async (...args: string[]): Promise<Record<string, unknown>> => {
    const run = await rideport(['admin', ...args, ...on]);
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };
  await admin('create-user', '--email', 'ops@example.com', '--password', 'long enough');
  const client = await admin('create-client', '--owner', 'ops@example.com', '--name', 'Club app');
  const token = await admin('create-token', '--user', 'ops@example.com', '--api-key', String(client.api_key));
  return { apiKey: String(token.api_key), authToken: String(token.auth_token), clientId: String(client.id) };
}

async function currentUser(base: string, apiKey: string, authToken: string): Promise<number> {
  const response = await request(`${base}/api/v1/users/current.json`, {
    headers: { 'x-service-api-key': apiKey, 'x-service-auth-token': authToken },
  });
  await response.body.dump();
  return response.statusCode;
}

describe.skipIf(cluster.skipped !== null)('rideport on PostgreSQL', () => {
  beforeAll(async () => {
    await buildCli();
    directory = temporaryDirectory();
    keyFile = join(directory.path, 'master.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
  }, 120_000);
  afterAll(() => {
    directory?.remove();
  });

  it('admin and two servers on one URL: a client deleted on one is refused at once on the other', async () => {
    const url = await newDatabaseUrl();
    const { apiKey, authToken, clientId } = await accountAndToken(url);

    const [a, b] = [serve(url), serve(url)];
    const [urlA, urlB] = await Promise.all([a.listening(), b.listening()]);
    expect(await currentUser(urlA, apiKey, authToken)).toBe(200);
    expect(await currentUser(urlB, apiKey, authToken)).toBe(200);
    // Each server's first lookup starts its change listener; once both listen, each keeps the token's
    // lookup between requests, and only the change signal can tell B (issue 18, db/change-listener.ts).
    const database = new pg.Client({ connectionString: url });
    await database.connect();
    await until('both servers listening for changes', async () => {
      await currentUser(urlA, apiKey, authToken);
      await currentUser(urlB, apiKey, authToken);
      const { rows } = await database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'rideport change listener'`,
      );
      return rows[0]?.n === 2;
    });
    await database.end();
    expect(await currentUser(urlB, apiKey, authToken)).toBe(200);

    // The owner deletes the client on the developer page of server A.
    const visitor = new Visitor(urlA);
    const signIn = await visitor.post('/sign_in', {
      _csrf: await visitor.csrf('/sign_in'),
      email: 'ops@example.com',
      password: 'long enough',
      return_to: '/developer',
    });
    expect(signIn).toBe(303);
    const clientPage = `/developer/api_clients/${clientId}`;
    const deleted = await visitor.post(`${clientPage}/delete`, { _csrf: await visitor.csrf(clientPage) });
    expect(deleted).toBe(303);

    // Server B never saw the request, yet the token fails on its very next use there.
    expect(await currentUser(urlB, apiKey, authToken)).toBe(401);
    expect(await currentUser(urlA, apiKey, authToken)).toBe(401);
  });

  it('admin and serve on the Unix socket, as libpq writes its URL (a user, the host in the query)', async () => {
    const name = new URL(await newDatabaseUrl()).pathname.slice(1);
    const url = cluster.socketUrl(name);
    const { apiKey, authToken } = await accountAndToken(url);
    const server = serve(url);
    const base = await server.listening();
    expect(await currentUser(base, apiKey, authToken)).toBe(200);
  });

  it('serve --no-workers accepts uploads that only a rideport worker reads', async () => {
    const url = await newDatabaseUrl();
    const { apiKey, authToken } = await accountAndToken(url);
    const query = new URLSearchParams({ apikey: apiKey, auth_token: authToken }).toString();
    const on = ['--database', url, '--master-key-file', keyFile];

    const server = spawnRideport(['serve', '--port', '0', '--no-workers', ...on]);
    children.push(server);
    const base = await server.listening();
    await until('the server says who reads uploads', () =>
      server
        .output()
        .includes('Uploads are read by `rideport worker` processes on this database (--no-workers).'),
    );
    const ids = [
      await uploadRide(base, query, 1),
      await uploadRide(base, query, 2),
      await uploadRide(base, query, 3),
    ];
    // Well past the server's poll interval (1 s at most): no task was claimed by it.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await taskStatuses(base, query, ids)).toEqual([0, 0, 0]);
    const database = new pg.Client({ connectionString: url });
    await database.connect();
    const claimed = await database.query('SELECT count(*)::int AS n FROM queued_tasks WHERE attempts > 0');
    expect(claimed.rows[0]).toEqual({ n: 0 });

    const worker = spawnRideport(['worker', '--workers', '1', ...on]);
    children.push(worker);
    await until('every upload read', async () =>
      (await taskStatuses(base, query, ids)).every((status) => status === 1),
    );
    expect(worker.output()).toContain(`Rideport worker: reading uploads from ${url} with 1 parse worker`);
    const trips = await database.query('SELECT count(*)::int AS n FROM trips');
    expect(trips.rows[0]).toEqual({ n: 3 });
    await database.end();

    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('SIGTERM: stopping (running uploads finish or go back to the queue)');
  });

  it('serve and worker say in words, in their default text log, when the database goes away and comes back', async () => {
    // A cluster of its own, which it stops and starts: the run's is shared with other tests.
    const ownCluster = await ownPostgresCluster('rideport on PostgreSQL, its database stopped').start();
    onTestFinished(() => {
      ownCluster.stop();
    });
    const admin = new pg.Client({ connectionString: ownCluster.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE cli_outage');
    await admin.end();
    const url = ownCluster.url('cli_outage');
    const { apiKey, authToken } = await accountAndToken(url);
    const server = serve(url);
    const worker = spawnRideport([
      'worker',
      '--workers',
      '1',
      '--database',
      url,
      '--master-key-file',
      keyFile,
    ]);
    children.push(worker);
    const base = await server.listening();
    await until('the worker started', () => worker.output().includes('Rideport worker: reading uploads'));
    const said = (text: string): boolean => [server, worker].every((child) => child.output().includes(text));
    ownCluster.pause();
    try {
      // Each one's queue polls for uploads at least once a second, and finds the database gone.
      await until('both said the outage', () =>
        said('warning: upload queue: the database cannot be reached; uploads wait until it can'),
      );
    } finally {
      ownCluster.resume();
    }
    await until('both said it passed', () =>
      said('upload queue: the database can be reached again; waiting uploads go on'),
    );
    expect(await currentUser(base, apiKey, authToken)).toBe(200);
    // Both still run: the worker, which no listening socket holds, used to end with status 13.
    expect([server.process.exitCode, worker.process.exitCode]).toEqual([null, null]);
    for (const child of [server, worker]) {
      const lines = child.output().trimEnd().split('\n');
      // Lines of words, not the JSON log, and none per request.
      expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
      expect(lines.filter((line) => line.includes('/api/v1/users/current.json'))).toEqual([]);
      for (const line of lines.filter((text) => /^\d{4}-/.test(text))) {
        expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ((warning|error): )?\S/);
      }
    }
  }, 120_000);

  it("admin sign-in-link on PostgreSQL: asks for the servers' address, and its link signs in on a server", async () => {
    const url = await newDatabaseUrl();
    await accountAndToken(url);
    const on = ['--database', url, '--master-key-file', keyFile];
    const refused = await rideport(['admin', 'sign-in-link', '--user', 'ops@example.com', ...on]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      "admin sign-in-link: on PostgreSQL give --base-url <the servers' public address, e.g. https://rides.example>",
    );
    const base = await serve(url).listening();
    const made = await rideport([
      'admin',
      'sign-in-link',
      '--user',
      'ops@example.com',
      '--base-url',
      base,
      ...on,
      '--json',
    ]);
    expect(made.stderr).toBe('');
    const link = (JSON.parse(made.stdout) as { url: string }).url;
    expect(link.startsWith(`${base}/sign-in/link?token=`)).toBe(true);
    const opened = await request(link);
    await opened.body.dump();
    expect(opened.statusCode).toBe(303);
    expect(opened.headers['location']).toBe('/dashboard');
    expect(opened.headers['set-cookie']).toBeDefined();
  });

  it('refuses in words to serve PostgreSQL without the shared master key, or with a wrong URL', async () => {
    const url = await newDatabaseUrl();
    const noKey = await rideport(['serve', '--database', url], undefined, {});
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toContain(
      'serve: a server on PostgreSQL needs the master key every node shares: give --master-key-file <file> or RIDEPORT_MASTER_KEY',
    );
    const notPostgres = await rideport(['admin', 'purge-tasks', '--database', 'mysql://db/x'], undefined, {});
    expect(notPostgres.status).toBe(2);
    expect(notPostgres.stderr).toContain('takes a postgres:// URL; mysql: is not one');
    const short = await rideport(['admin', 'purge-tasks', '--database', url], undefined, {
      RIDEPORT_MASTER_KEY: 'c2hvcnQ=',
    });
    expect(short.status).toBe(2);
    expect(short.stderr).toContain('RIDEPORT_MASTER_KEY does not hold a 32-byte key in base64');
  });

  it('takes the URL and key from the environment, and says a taken email in words', async () => {
    const url = await newDatabaseUrl();
    const env = { RIDEPORT_DATABASE_URL: url, RIDEPORT_MASTER_KEY: randomBytes(32).toString('base64') };
    const args = ['admin', 'create-user', '--email', 'a@example.com', '--password', 'long enough'];
    expect((await rideport(args, undefined, env)).status).toBe(0);
    const taken = await rideport(
      ['admin', 'create-user', '--email', 'A@EXAMPLE.com', '--password', 'long enough'],
      undefined,
      env,
    );
    expect(taken.status).toBe(1);
    expect(taken.stderrLines).toEqual([
      'rideport: admin create-user: RIDEPORT_CONFLICT: a user with the email A@EXAMPLE.com exists already',
    ]);
  });
});

/**
 * A throwaway PostgreSQL cluster for tests (issue 18): Debian's `initdb` and `pg_ctl` run as the
 * `postgres` user in a temporary directory, on a free port, listening on loopback and a private socket
 * folder; stopped and removed by `stop()`, or by a watchdog process when the process that started it
 * ends without stopping it (a Vitest run killed by a signal runs no global teardown). About two seconds here. Tests share the
 * run's one cluster (postgres-global-setup.ts, shared-postgres.ts); a test file about the cluster itself
 * (one that stops it) takes one of its own through `ownPostgresCluster`. Both say that the file's tests
 * skipped when PostgreSQL is not installed (`.ci/run` installs it, so CI runs them).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DEBIAN_ROOT = '/usr/lib/postgresql';
/** The operating-system user that owns and runs the cluster: PostgreSQL refuses to run as root. */
const CLUSTER_USER = 'postgres';

export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
}

/** The newest installed PostgreSQL's tools, or null with the reason when there is none. */
export function postgresBinaries(): PostgresBinaries | { missing: string } {
  const versions = existsSync(DEBIAN_ROOT)
    ? readdirSync(DEBIAN_ROOT)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const bin = join(DEBIAN_ROOT, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) {
      if (spawnSync('id', ['-u', CLUSTER_USER]).status !== 0) {
        return { missing: `the operating-system user "${CLUSTER_USER}" does not exist` };
      }
      return { initdb: join(bin, 'initdb'), pgCtl: join(bin, 'pg_ctl') };
    }
  }
  return { missing: `PostgreSQL's initdb and pg_ctl were not found under ${DEBIAN_ROOT}` };
}

/**
 * A test file's own throwaway cluster, or the reason it cannot have one, said once under `label` so a
 * run without PostgreSQL shows which tests skipped (`describe.skipIf(ownCluster.skipped !== null)`).
 */
export function ownPostgresCluster(label: string): {
  skipped: string | null;
  start(options?: { durable?: boolean }): Promise<PostgresCluster>;
} {
  const binaries = postgresBinaries();
  if ('missing' in binaries) {
    console.warn(`${label} skipped: ${binaries.missing}`);
    return {
      skipped: binaries.missing,
      start: () => Promise.reject(new Error(`${label}: ${binaries.missing}`)),
    };
  }
  return { skipped: null, start: (options) => startPostgresCluster(binaries, options) };
}

/**
 * Where a cluster listens: enough to name its databases, and plain data, so that Vitest's global setup
 * can hand it to the test workers (postgres-global-setup.ts).
 */
export interface ClusterAddress {
  port: number;
  /** the folder of its Unix socket */
  socketDirectory: string;
}

/** `postgres://postgres@127.0.0.1:<port>/<database>`: over TCP, as nodes on other machines connect */
export function clusterUrl({ port }: ClusterAddress, database: string): string {
  return `postgres://${CLUSTER_USER}@127.0.0.1:${port}/${database}`;
}

/** The same database over the cluster's Unix socket (libpq's URI form, the host in the query). */
export function clusterSocketUrl({ port, socketDirectory }: ClusterAddress, database: string): string {
  return `postgres://${CLUSTER_USER}@/${database}?host=${socketDirectory}&port=${port}`;
}

export interface PostgresCluster {
  address: ClusterAddress;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`: over TCP, as nodes on other machines connect */
  url(database: string): string;
  /**
   * The same database over the cluster's Unix socket (libpq's URI form, the host in the query), as a
   * server on the database's own machine connects.
   */
  socketUrl(database: string): string;
  /** Stops the server as an administrator's restart does (mode "fast": sessions are ended), keeping its data. */
  pause(): void;
  /** Starts the paused server again, on the same port and socket. */
  resume(): void;
  stop(): void;
}

export async function startPostgresCluster(
  binaries: PostgresBinaries,
  /**
   * durable: PostgreSQL's own durability settings (fsync, synchronous commit), for benchmarks that set
   * it beside SQLite's; by default they are off, which makes the tests several times faster
   */
  { durable = false }: { durable?: boolean } = {},
): Promise<PostgresCluster> {
  const directory = mkdtempSync(join(tmpdir(), 'rideport-pg-'));
  // The cluster runs as another user, who must be able to enter and write the directory.
  chmodSync(directory, 0o777);
  const data = join(directory, 'data');
  const port = await freePort();
  const asClusterUser = (command: string, args: string[]): void => {
    execFileSync('runuser', ['-u', CLUSTER_USER, '--', command, ...args], { stdio: 'pipe' });
  };
  const start = (): void => {
    asClusterUser(binaries.pgCtl, [
      '--pgdata',
      data,
      '--log',
      join(directory, 'server.log'),
      '--wait',
      '--options',
      `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c max_connections=200` +
        (durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off'),
      'start',
    ]);
  };
  try {
    asClusterUser(binaries.initdb, [
      '--pgdata',
      data,
      '--username',
      CLUSTER_USER,
      '--auth',
      'trust',
      '--encoding',
      'UTF8',
      '--no-sync',
    ]);
    start();
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const watchdog = stopWhenGone(process.pid, binaries, data, directory);
  const address: ClusterAddress = { port, socketDirectory: directory };
  return {
    address,
    url: (database) => clusterUrl(address, database),
    socketUrl: (database) => clusterSocketUrl(address, database),
    pause() {
      asClusterUser(binaries.pgCtl, ['--pgdata', data, '--mode', 'fast', '--wait', 'stop']);
    },
    resume: start,
    stop() {
      watchdog.kill();
      try {
        asClusterUser(binaries.pgCtl, ['--pgdata', data, '--mode', 'immediate', '--wait', 'stop']);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A detached shell that waits for `pid` to end and then stops the cluster and removes its folder: the
 * cluster is a process of its own and outlives a test run killed by SIGTERM, SIGINT or SIGKILL, which
 * no handler inside that run could cover in every case. `stop()` kills the watchdog first.
 */
function stopWhenGone(pid: number, binaries: PostgresBinaries, data: string, directory: string) {
  const script = [
    `while kill -0 ${pid} 2>/dev/null; do sleep 1; done`,
    `runuser -u ${CLUSTER_USER} -- "$0" --pgdata "$1" --mode immediate --wait stop`,
    `rm -rf "$2"`,
  ].join('\n');
  const watchdog = spawn('sh', ['-c', script, binaries.pgCtl, data, directory], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.unref();
  return watchdog;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no port was given'));
        else resolve(address.port);
      });
    });
  });
}

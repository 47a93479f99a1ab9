/**
 * The databases the benchmarks run on (issue 18, "Figures": bench:upload and bench:api on SQLite and on
 * PostgreSQL in the same run): a SQLite file in a folder, or a database on a throwaway PostgreSQL
 * cluster started here with PostgreSQL's own durability settings (fsync and synchronous commit on, as
 * SQLite's WAL syncs too), named by one string, as the tests' test-database.ts does.
 */
import pg from 'pg';
import {
  postgresBinaries,
  startPostgresCluster,
  type PostgresCluster,
} from '../packages/server/src/test-support/postgres-cluster.js';

/**
 * The master key of every server on a benchmark's PostgreSQL database; bench/api-server.js reads it
 * from RIDEPORT_MASTER_KEY, which this module sets for the child processes it starts.
 */
const BENCH_MASTER_KEY = Buffer.alloc(32, 11);
process.env['RIDEPORT_MASTER_KEY'] = BENCH_MASTER_KEY.toString('base64');

/** The server options that open the database at `location` (a SQLite file or a postgres:// URL). */
export function databaseOptionsOf(
  location: string,
): { databasePath: string } | { databasePath: string; databaseUrl: string; masterKey: Buffer } {
  return location.startsWith('postgres://')
    ? { databasePath: '', databaseUrl: location, masterKey: BENCH_MASTER_KEY }
    : { databasePath: location };
}

/**
 * How a server reaches the database: over TCP to 127.0.0.1, as nodes on other machines do (through the
 * whole network stack, here on the loopback device), or over the cluster's Unix socket, as a server on
 * the database's own machine connects.
 */
export type PostgresConnection = 'tcp' | 'unix socket';

export interface BenchPostgres {
  /**
   * A new, empty database on the cluster (the first server migrates it). `synchronousCommit: false`:
   * commits return before their WAL is on disk, as SQLite's WAL with synchronous=NORMAL does (a power
   * loss may lose the last moments, never corrupts); by default PostgreSQL's own, which waits for it.
   */
  newDatabase(options?: { synchronousCommit?: boolean; via?: PostgresConnection }): Promise<string>;
  stop(): void;
}

let databases = 0;

/** A throwaway cluster, or the reason there is none (PostgreSQL is not installed here). */
export async function startBenchPostgres(): Promise<BenchPostgres | { skipped: string }> {
  const binaries = postgresBinaries();
  if ('missing' in binaries) return { skipped: binaries.missing };
  const cluster: PostgresCluster = await startPostgresCluster(binaries, { durable: true });
  return {
    async newDatabase({ synchronousCommit = true, via = 'tcp' } = {}) {
      databases += 1;
      const admin = new pg.Client({ connectionString: cluster.url('postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE bench_${databases}`);
        if (!synchronousCommit)
          await admin.query(`ALTER DATABASE bench_${databases} SET synchronous_commit = off`);
      } finally {
        await admin.end();
      }
      return via === 'tcp' ? cluster.url(`bench_${databases}`) : cluster.socketUrl(`bench_${databases}`);
    },
    stop: () => {
      cluster.stop();
    },
  };
}

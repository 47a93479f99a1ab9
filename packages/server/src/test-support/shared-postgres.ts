/**
 * The run's PostgreSQL cluster, for tests that need PostgreSQL but are not about the cluster itself
 * (issue 35: one cluster a run, not one a file). postgres-global-setup.ts starts it once for the
 * projects that name it in vitest.config.ts; each test file makes databases of its own on it. A test
 * that stops its database server takes a cluster of its own instead (`ownPostgresCluster`).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { clusterSocketUrl, clusterUrl, postgresBinaries } from './postgres-cluster.js';

export interface SharedPostgres {
  /** why the tests skip (PostgreSQL is not installed), or null */
  skipped: string | null;
  /** a database of the cluster over TCP */
  url(database: string): string;
  /** a database of the cluster over its Unix socket, as libpq writes the URL */
  socketUrl(database: string): string;
  /** a new, empty database named `<prefix>_<random>`, for this file alone; its name */
  newDatabase(prefix: string): Promise<string>;
}

/**
 * The run's cluster, or the reason there is none, said once under `label` so that a run without
 * PostgreSQL shows which tests skipped (`describe.skipIf(postgres.skipped !== null)`).
 */
export function sharedPostgres(label: string): SharedPostgres {
  // (The provided keys are declared in test-database.ts.)
  const address = inject('postgresCluster');
  if (address === undefined) {
    const binaries = postgresBinaries();
    const reason =
      'missing' in binaries
        ? binaries.missing
        : "this project's run started no PostgreSQL cluster (postgres-global-setup.ts in vitest.config.ts)";
    console.warn(`${label} skipped: ${reason}`);
    const refuse = (): never => {
      throw new Error(`${label}: ${reason}`);
    };
    return {
      skipped: reason,
      url: refuse,
      socketUrl: refuse,
      newDatabase: () => Promise.reject(new Error(reason)),
    };
  }
  return {
    skipped: null,
    url: (database) => clusterUrl(address, database),
    socketUrl: (database) => clusterSocketUrl(address, database),
    async newDatabase(prefix) {
      // Unique in the run: files of several workers make databases on the one cluster at once.
      const name = `${prefix}_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: clusterUrl(address, 'postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return name;
    },
  };
}

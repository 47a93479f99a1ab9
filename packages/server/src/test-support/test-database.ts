/**
 * The database a test server runs on (issue 18): SQLite in memory, or, in the PostgreSQL run of the
 * server tests (vitest.config.ts, project "server-postgres"), a fresh clone of the migrated template
 * database on the run's throwaway cluster (postgres-global-setup.ts). Cloning a template takes a few
 * milliseconds where migrating would take a second.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { ClusterAddress } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the run's cluster, as its owner connects (postgres-global-setup.ts) */
    postgresAdminUrl: string;
    /** where the run's cluster listens; missing when PostgreSQL is not installed (shared-postgres.ts) */
    postgresCluster: ClusterAddress | undefined;
  }
}

export const TEMPLATE_DATABASE = 'rideport_template';

/** Whether this run of the tests is the one on PostgreSQL. */
export const onPostgres = process.env.RIDEPORT_TEST_ENGINE === 'postgres';

let cloneCount = 0;

/** A `postgres://` URL of a new database for one test server, or undefined in the SQLite run. */
export async function testDatabaseUrl(): Promise<string | undefined> {
  if (!onPostgres) return undefined;
  const adminUrl = inject('postgresAdminUrl');
  cloneCount += 1;
  const name = `test_${process.pid}_${cloneCount}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Two clones of one template at the same moment: PostgreSQL refuses the second while the first
    // copies ("source database is being accessed by other users", SQLSTATE 55006); it waits its turn.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
        break;
      } catch (error) {
        if ((error as { code?: unknown }).code !== '55006' || attempt === 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/**
 * A database the tests can open again (a restart, a second connection, a child process), named by one
 * string: a SQLite file in a new folder, or, in the PostgreSQL run, a new database's URL.
 */
export async function reopenableDatabase(): Promise<{ location: string; remove(): void }> {
  const url = await testDatabaseUrl();
  if (url !== undefined) return { location: url, remove: () => undefined };
  const directory = mkdtempSync(join(tmpdir(), 'rideport-test-'));
  return {
    location: join(directory, 'rideport.sqlite'),
    remove: () => {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Vitest's global setup for every project whose tests need PostgreSQL (issue 18; issue 35: one cluster a
 * run, not one a file): one throwaway cluster for the whole run, shared by the projects that name this
 * setup in vitest.config.ts, stopped and removed when the last of them ends. Its address reaches the
 * tests through `provide`/`inject` (shared-postgres.ts). For the server's tests on PostgreSQL (project
 * "server-postgres", RIDEPORT_TEST_ENGINE=postgres) it also makes the migrated template database that
 * every test server clones (test-database.ts).
 *
 * Without PostgreSQL it starts nothing, and the tests that need it say that they skipped; the project
 * "server-postgres" is then left out of the run by vitest.config.ts, which says so.
 */
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPostgres } from '../db/postgres.js';
import { postgresBinaries, startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';
import { takeRunResource } from './run-resource.js';
import { TEMPLATE_DATABASE } from './test-database.js';

/** The run's cluster, and the template database once a project on PostgreSQL has made it. */
interface RunCluster {
  cluster: PostgresCluster;
  template: Promise<void> | undefined;
}

async function createTemplate(cluster: PostgresCluster): Promise<void> {
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  const template = await openPostgres(cluster.url(TEMPLATE_DATABASE));
  await template.close();
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const binaries = postgresBinaries();
  // (A project that sets no env has none, whatever Vitest's types say.)
  const env = project.config.env as Partial<Record<string, string>> | undefined;
  const onPostgres = env?.['RIDEPORT_TEST_ENGINE'] === 'postgres';
  if ('missing' in binaries) {
    if (onPostgres) throw new Error(`the PostgreSQL tests need PostgreSQL: ${binaries.missing}`);
    return () => Promise.resolve();
  }
  const run = takeRunResource<RunCluster>(
    'rideportTestPostgresCluster',
    async () => ({ cluster: await startPostgresCluster(binaries), template: undefined }),
    ({ cluster }) => {
      cluster.stop();
    },
  );
  try {
    const shared = await run.value;
    if (onPostgres) await (shared.template ??= createTemplate(shared.cluster));
    project.provide('postgresCluster', shared.cluster.address);
    project.provide('postgresAdminUrl', shared.cluster.url('postgres'));
  } catch (error) {
    await run.release();
    throw error;
  }
  return run.release;
}

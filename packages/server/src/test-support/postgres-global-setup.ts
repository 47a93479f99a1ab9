/**
 * Vitest's global setup for the server tests on PostgreSQL (issue 18; vitest.config.ts, project
 * "server-postgres"): one throwaway cluster for the run, with a migrated template database that every
 * test server clones (test-database.ts), stopped and removed when the run ends.
 */
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPostgres } from '../db/postgres.js';
import { postgresBinaries, startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';
import { TEMPLATE_DATABASE } from './test-database.js';

let cluster: PostgresCluster | undefined;

export async function setup(project: TestProject): Promise<void> {
  const binaries = postgresBinaries();
  if ('missing' in binaries) throw new Error(`the PostgreSQL tests need PostgreSQL: ${binaries.missing}`);
  const started = await startPostgresCluster(binaries);
  cluster = started;
  try {
    const admin = new pg.Client({ connectionString: started.url('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
    await admin.end();
    const template = await openPostgres(started.url(TEMPLATE_DATABASE));
    await template.close();
  } catch (error) {
    started.stop();
    throw error;
  }
  project.provide('postgresAdminUrl', started.url('postgres'));
}

export function teardown(): void {
  cluster?.stop();
}

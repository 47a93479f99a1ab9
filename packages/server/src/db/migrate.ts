/**
 * Brings a database to the newest schema: the one migration tree (migrations/index.ts), with the engine's
 * answers to what the engines do differently (issue 35). Kysely's migrator records each migration
 * (table kysely_migration) and holds a lock while it runs, so several server processes starting at
 * once on one PostgreSQL database migrate it once (issue 18). Before it reads that record, the engine
 * adopts what older versions recorded under other names (`MigrationDialect.adoptHistory`).
 */
import { Migrator, type Kysely } from 'kysely';
import type { MigrationDb, MigrationDialect } from './migrations/dialect.js';
import { migrationProvider } from './migrations/index.js';

export async function migrate<DB>(db: Kysely<DB>, dialect: MigrationDialect): Promise<void> {
  try {
    await dialect.adoptHistory(db as unknown as MigrationDb);
  } catch (error) {
    throw new Error(`reading the database's migration history failed: ${reasonOf(error)}`, { cause: error });
  }
  const { error, results } = await new Migrator({
    db,
    provider: migrationProvider(dialect),
  }).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${reasonOf(error)}`, { cause: error });
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : JSON.stringify(error);
}

/**
 * Brings a database to the newest schema of its engine. Kysely's migrator records each migration
 * (table kysely_migration) and holds a lock while it runs, so several server processes starting at
 * once on one PostgreSQL database migrate it once (issue 18).
 */
import { Migrator, type Kysely, type MigrationProvider } from 'kysely';

export async function migrate<DB>(db: Kysely<DB>, provider: MigrationProvider): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    const reason = error instanceof Error ? error.message : JSON.stringify(error);
    throw new Error(`database migration ${failed} failed: ${reason}`, { cause: error });
  }
}

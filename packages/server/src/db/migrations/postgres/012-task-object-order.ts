/** Migration 12 (issue 18) on PostgreSQL; see ../012-task-object-order.ts. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE task_objects ADD COLUMN position BIGINT NOT NULL DEFAULT 0`.execute(db);
}

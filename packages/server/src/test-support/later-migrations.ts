/**
 * Tests that make a SQLite database as an older version of the server left it take back the newer
 * migrations first, newest first: Kysely's migrator runs only migrations named after the last one it
 * ran. Each migration after 009 adds its undoing here.
 */
export const UNDO_MIGRATIONS_AFTER_009 = `
  ALTER TABLE task_objects DROP COLUMN position;
  DELETE FROM kysely_migration WHERE name > '009-z';`;

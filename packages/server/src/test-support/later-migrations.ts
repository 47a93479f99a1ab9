/**
 * Tests that make a SQLite database as an older version of the server left it take back the newer
 * migrations first, newest first: Kysely's migrator runs only migrations named after the last one it
 * ran. Each migration after 009 adds its undoing here.
 */
export const UNDO_MIGRATIONS_AFTER_009 = `
  DROP TRIGGER task_uploads_large_value_gone;
  DROP TRIGGER original_files_large_value_gone;
  DROP INDEX task_uploads_large_value;
  DROP INDEX original_files_large_value;
  ALTER TABLE task_uploads DROP COLUMN large_value_id;
  ALTER TABLE original_files DROP COLUMN large_value_id;
  DROP TABLE large_value_parts;
  DROP TABLE large_values;
  ALTER TABLE queued_tasks DROP COLUMN gzipped_by_server;
  -- 014-change-signals and 015-blob-storage change nothing on SQLite: their names go with the rest below.
  DROP TABLE rate_windows;
  ALTER TABLE task_objects DROP COLUMN position;
  DROP TABLE user_preferences;
  DROP TABLE trip_power_curves;
  DROP TRIGGER trips_original_file_gone;
  DROP TRIGGER routes_original_file_gone;
  DROP INDEX trips_original_file;
  DROP INDEX routes_original_file;
  DROP INDEX trips_external_id;
  DROP INDEX routes_external_id;
  ALTER TABLE trips DROP COLUMN original_file_id;
  ALTER TABLE trips DROP COLUMN external_id;
  ALTER TABLE trips DROP COLUMN external_client_id;
  ALTER TABLE routes DROP COLUMN original_file_id;
  ALTER TABLE routes DROP COLUMN external_id;
  ALTER TABLE routes DROP COLUMN external_client_id;
  ALTER TABLE queued_tasks DROP COLUMN external_id;
  DROP TABLE original_files;
  DELETE FROM kysely_migration WHERE name > '009-z';`;

/**
 * PostgreSQL's migrations (issue 18), named as SQLite's are: each later migration has one of each
 * engine under the same name, and migrations/schema-parity.test.ts keeps the two schemas equal.
 */
import type { Migration, MigrationProvider } from 'kysely';
import * as baseline from './009-baseline.js';
import * as originalFiles from './010-original-files.js';
import * as preferences from './011-preferences.js';
import * as taskObjectOrder from './012-task-object-order.js';
import * as rateWindows from './013-rate-windows.js';
import * as changeSignals from './014-change-signals.js';
import * as blobStorage from './015-blob-storage.js';

const MIGRATIONS: Record<string, Migration> = {
  '009-baseline': baseline,
  '010-original-files': originalFiles,
  '011-preferences': preferences,
  '012-task-object-order': taskObjectOrder,
  '013-rate-windows': rateWindows,
  '014-change-signals': changeSignals,
  '015-blob-storage': blobStorage,
};

export const postgresMigrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(MIGRATIONS),
};

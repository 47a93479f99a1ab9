/**
 * The numbered migrations, in order, one tree for both engines (issue 35): each migration is written
 * once, and is handed its engine's answers to what the engines do differently (dialect.ts). Each runs
 * once and is recorded by Kysely's migrator (table kysely_migration); never edit one that has shipped,
 * nor anything it imports (frozen/, the dialects' members it calls): add the next number.
 *
 * A migration imports nothing from outside this folder but Kysely (eslint.config.js), so that a change
 * to the store or the parser never changes what an old migration does.
 */
import type { Migration, MigrationProvider } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';
import * as platform from './001-platform.js';
import * as assetRecords from './002-asset-records.js';
import * as queueClubsWebhooks from './003-queue-clubs-webhooks.js';
import * as packedTrackPoints from './004-packed-track-points.js';
import * as laps from './005-laps.js';
import * as signInLinks from './006-sign-in-links.js';
import * as assetWarnings from './007-asset-warnings.js';
import * as recordings from './008-recordings.js';
import * as boundedText from './009-bounded-text.js';
import * as originalFiles from './010-original-files.js';
import * as preferences from './011-preferences.js';
import * as taskObjectOrder from './012-task-object-order.js';
import * as rateWindows from './013-rate-windows.js';
import * as changeSignals from './014-change-signals.js';
import * as blobStorage from './015-blob-storage.js';
import * as tasksGzippedByServer from './016-tasks-gzipped-by-server.js';
import * as largeValuesInParts from './017-large-values-in-parts.js';
import * as silentChannels from './018-silent-channels.js';

/** A migration of this tree: it changes the schema of `db`, asking `dialect` where the engines differ. */
export interface DialectMigration {
  up(db: MigrationDb, dialect: MigrationDialect): Promise<void>;
}

/** By the names Kysely records; SQLite databases since 001 have them so. */
export const MIGRATIONS: Readonly<Record<string, DialectMigration>> = {
  '001-platform': platform,
  '002-asset-records': assetRecords,
  '003-queue-clubs-webhooks': queueClubsWebhooks,
  '004-packed-track-points': packedTrackPoints,
  '005-laps': laps,
  '006-sign-in-links': signInLinks,
  '007-asset-warnings': assetWarnings,
  '008-recordings': recordings,
  '009-bounded-text': boundedText,
  '010-original-files': originalFiles,
  '011-preferences': preferences,
  '012-task-object-order': taskObjectOrder,
  '013-rate-windows': rateWindows,
  '014-change-signals': changeSignals,
  '015-blob-storage': blobStorage,
  '016-tasks-gzipped-by-server': tasksGzippedByServer,
  '017-large-values-in-parts': largeValuesInParts,
  '018-silent-channels': silentChannels,
};

/** The tree as Kysely's migrator reads it, for the engine `dialect` answers for. */
export function migrationProvider(dialect: MigrationDialect): MigrationProvider {
  const migrations: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (db) => migration.up(db as MigrationDb, dialect) };
  }
  return { getMigrations: () => Promise.resolve(migrations) };
}

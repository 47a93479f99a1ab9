/**
 * The numbered migrations, in order. Each runs once, in its own transaction, and is recorded by
 * Kysely's migrator (table kysely_migration); never edit one that has shipped: add the next number.
 */
import type { Migration, MigrationProvider } from 'kysely';
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

const MIGRATIONS: Record<string, Migration> = {
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
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(MIGRATIONS),
};

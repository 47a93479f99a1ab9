/**
 * What lives in a data directory (docs/contributors/architecture.md: "Data lives in the per-user data directory"; issue 17):
 * the names every module that reads or writes one takes from here.
 */
import { join } from 'node:path';

/** the SQLite database (platform.ts databasePathIn) */
export const DATABASE_FILE = 'rideport.sqlite';
/** the key client secrets derive from (master-key.ts) */
export const MASTER_KEY_FILE = 'master.key';
/** the API key and auth token of the account `rideport up` and the desktop app sync as (local-account.ts) */
export const LOCAL_ACCOUNT_FILE = 'local-account.json';
/**
 * The ledger and inbox of the sync engine that uploads to this directory's own server: @rideport/sync's
 * `syncFolders(directory, 'local')`, which this package cannot import (docs/contributors/architecture.md: the server
 * does not depend on sync); packages/cli's data-directory test holds the two together.
 */
export const LOCAL_SYNC_FOLDER = join('sync', 'local');
/** always empty: the file whose lock the running server holds (data-directory/lock.ts) */
export const LOCK_FILE = 'rideport.lock';
/** who holds the lock and where it listens, for the message a second process prints (holder.ts) */
export const HOLDER_FILE = 'rideport.lock.json';

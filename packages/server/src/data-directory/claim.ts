/**
 * One server per data directory (issue 17): two servers on one directory both ran the upload queue
 * and both delivered webhooks (100 of 200 notifications arrived twice). Every host of a server
 * (`rideport serve`, `rideport up`, the desktop app) claims the directory before it opens anything in
 * it and keeps the claim until it has closed everything; a second claim fails at once with a sentence
 * naming the holder. The claim is an exclusive lock on rideport.lock (db/file-lock.ts), which the
 * operating system drops when its process ends, however it ends: a stale lock does not exist.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inspectDatabase } from '../db/database-state.js';
import { lockFile, type FileLock } from '../db/file-lock.js';
import { openDatabase } from '../db/open.js';
import { DataDirectoryError, DataDirectoryErrorCode } from '../errors.js';
import { isoTime } from '../iso-time.js';
import { databasePathIn } from '../platform.js';
import { inUseMessage, readHolder, removeHolder, writeHolder, type Holder } from './holder.js';
import { LOCK_FILE } from '../data-layout.js';
import { createOwnerOnlyFile, makeOwnerOnlyFolder, tightenOwnerOnly } from './owner-only.js';

/** The claiming process, in words, for the message a second one prints. */
export interface DataDirectoryHolder {
  /** what runs: `rideport serve`, `the Rideport desktop app` */
  command: string;
  /** how a person stops it: `press Ctrl-C where it runs, or run \`kill 4242\`` */
  howToStop: string;
}

export interface DataDirectoryLock {
  readonly directory: string;
  /** Says where the server listens, for the message a second process prints; never fails. */
  listening(url: string): Promise<void>;
  /** Gives the directory up, once the server and everything else on it are closed. */
  release(): Promise<void>;
}

/**
 * Claims `directory` for this process, or fails with a DataDirectoryError: IN_USE when another process
 * holds it, a database error (db/database-state.ts) when its database is missing, empty or unreadable
 * beside other state. A new directory is initialised here, under the lock, so that its database exists
 * before the host writes anything else into it (the sync engine's ledger counts as other state).
 */
export async function claimDataDirectory(
  directory: string,
  holder: DataDirectoryHolder,
): Promise<DataDirectoryLock> {
  const databasePath = databasePathIn(directory);
  const lockPath = join(directory, LOCK_FILE);
  // Without a lock file, nothing holds the directory (a holder makes it before anything else): a
  // refusal then leaves the directory exactly as it was, not even with a lock file in it. With one, the
  // lock decides: who holds it is the first thing to say, and the look under the lock is the one that
  // counts (a holder starting at this instant may be half-way through making the database).
  try {
    inspectDatabase(databasePath);
  } catch (error) {
    if (!existsSync(lockPath)) throw error;
  }
  makeOwnerOnlyFolder(directory);
  createOwnerOnlyFile(lockPath);
  const lock = takeLock(lockPath, directory);
  if (lock === null) {
    throw new DataDirectoryError(
      DataDirectoryErrorCode.IN_USE,
      inUseMessage(directory, await readHolder(directory)),
    );
  }
  const record: Holder = { pid: process.pid, ...holder, url: null, since: isoTime(Date.now()) };
  try {
    // Issue 20: a directory made before with looser modes becomes its owner's alone, under the lock.
    tightenOwnerOnly(directory);
    if (inspectDatabase(databasePath) === 'new') await (await openDatabase(databasePath)).close();
    await writeHolder(directory, record);
  } catch (error) {
    lock.release();
    throw error;
  }
  let released = false;
  return {
    directory,
    listening: async (url) => {
      if (released) return;
      record.url = url;
      // The record only describes the holder: failing to update it (a full disk) must not stop a
      // server that runs; a refused process then says the holder is still starting.
      await writeHolder(directory, record).catch(() => undefined);
    },
    release: async () => {
      if (released) return;
      released = true;
      // The record first, while the lock is still ours: a new holder's record is never removed.
      try {
        await removeHolder(directory);
      } finally {
        lock.release();
      }
    },
  };
}

function takeLock(lockPath: string, directory: string): FileLock | null {
  try {
    return lockFile(lockPath);
  } catch (error) {
    throw new DataDirectoryError(
      DataDirectoryErrorCode.UNUSABLE,
      `cannot lock ${lockPath} (${(error as Error).message}): it must be an empty file Rideport can write; with no Rideport running on ${directory}, delete it`,
      { cause: error },
    );
  }
}

/**
 * A data directory is its owner's alone (issue 20): it holds every GPS track, credentials and the
 * master key, yet rideport.sqlite and its -wal and -shm, the sync ledger, sync/ and inbox/ were made
 * readable by everyone (0644/0755, 0777 under umask 000). Folders are made 0700 and files 0600
 * whatever the umask, and a directory made before with looser modes is tightened when a host starts.
 * SQLite makes a database's -wal and -shm with the database file's own mode, so a database file made
 * 0600 here (before SQLite opens it) keeps them private too. Windows has no such modes; these are no-ops
 * there. Issue 35: here, beside the atomic write, for the server, the sync engine and the command line.
 */
import { chmodSync, closeSync, fchmodSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const OWNER_ONLY_FOLDER_MODE = 0o700;
export const OWNER_ONLY_FILE_MODE = 0o600;

const POSIX = process.platform !== 'win32';

/**
 * The error for a file or folder that cannot be made its owner's alone (another user's): `message` is a
 * sentence naming it, `cause` the file system's refusal. The server's claim of a data directory says it
 * as its own DataDirectoryError.
 */
export type OwnerOnlyRefusal = (message: string, cause: unknown) => Error;

/** By default the refusal keeps the file system's code (EPERM), as the command line shows it. */
const systemRefusal: OwnerOnlyRefusal = (message, cause) =>
  Object.assign(new Error(message, { cause }), { code: (cause as NodeJS.ErrnoException).code ?? 'EPERM' });

/** Makes `folder` (and missing parents) 0700; an existing `folder` is left as it is (tighten it). */
export function makeOwnerOnlyFolder(folder: string): void {
  const made = mkdirSync(folder, { recursive: true, mode: OWNER_ONLY_FOLDER_MODE });
  // mkdir applies the umask (0700 & ~umask); chmod does not, so a strange umask cannot lock us out.
  if (made !== undefined && POSIX) chmodSync(folder, OWNER_ONLY_FOLDER_MODE);
}

/** Creates `path` empty with mode 0600 if it does not exist, before SQLite (or anyone) opens it. */
export function createOwnerOnlyFile(path: string): void {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'wx', OWNER_ONLY_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    if (POSIX) fchmodSync(descriptor, OWNER_ONLY_FILE_MODE);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Takes the group's and others' permissions off `directory` and everything in it (a folder 0755
 * becomes 0700, a file 0644 becomes 0600); symbolic links are not followed. A file that cannot be
 * changed (another user's) fails with `refuse`'s error, a sentence naming it.
 */
export function tightenOwnerOnly(directory: string, refuse: OwnerOnlyRefusal = systemRefusal): void {
  if (!POSIX) return;
  const visit = (path: string): void => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    // Gone since the folder was listed (SQLite removes -shm as its last connection closes), or a link.
    if (stats === undefined || stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) {
      try {
        chmodSync(path, stats.mode & 0o700);
      } catch (error) {
        throw refuse(
          `cannot make ${path} readable by its owner only (${(error as Error).message}); it holds rides and credentials: give it to the user that runs Rideport (chown) and try again`,
          error,
        );
      }
    }
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(directory);
}

/**
 * `directory` made if missing, and it and everything in it its owner's alone: for the hosts that claim
 * no lock (`rideport sync`, `rideport admin`); a server's claim does the same under its lock.
 */
export function ownerOnlyDirectory(directory: string): void {
  makeOwnerOnlyFolder(directory);
  tightenOwnerOnly(directory);
}

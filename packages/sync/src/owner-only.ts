/**
 * The data directory of `rideport sync` made its user's alone (issue 20: it holds the rides and the
 * ledger, whatever the umask and whatever came before), here rather than in the server (issue 35): a
 * rider who only syncs has no server installed.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Makes `directory` (and missing parents) 0700, and takes group and other access from all below it. */
export function ownerOnlySyncDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const tighten = (path: string): void => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    // Gone since its folder was listed (SQLite removes -shm as it closes), or a link: left alone.
    if (stats === undefined || stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) chmodSync(path, stats.mode & 0o700);
    if (stats.isDirectory()) for (const name of readdirSync(path)) tighten(join(path, name));
  };
  tighten(directory);
}

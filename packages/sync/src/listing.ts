/**
 * Listing a source folder (docs/contributors/architecture.md, "Sync engine": "list each source"): every ride file under it
 * with its size and modification time, which is all a rescan needs when nothing changed.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { RIDE_FILE_EXTENSION } from '@rideport/ridefile';

/** Stats in flight at once: enough to hide a slow (USB, MTP) disk's latency, few enough not to flood it. */
const STAT_CONCURRENCY = 32;

export interface ListedFile {
  /** path below the listed folder, with '/' separators on every platform */
  relativePath: string;
  absolutePath: string;
  sizeBytes: number;
  mtimeMs: number;
}

/** What `parseRideFile` reads by name (RIDE_FILE_EXTENSION; KMZ too, issue 20), and no hidden file. */
export function isRideFileName(name: string): boolean {
  // Names starting with a dot are not rides: macOS leaves `._Ride.fit` resource forks on FAT volumes,
  // and editors leave hidden temporary files.
  return !name.startsWith('.') && RIDE_FILE_EXTENSION.test(name);
}

/**
 * The ride files under `folder` (recursively), or null when the folder is not there: a missing folder
 * is a device that is not present, never a sign that files were deleted. Files that vanish or cannot
 * be read while the listing runs are left out; the next pass sees them again if they come back.
 */
export async function listRideFiles(folder: string): Promise<ListedFile[] | null> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true, recursive: true });
  } catch (error) {
    if (isGone(error)) return null;
    throw error;
  }
  const candidates = entries
    .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && isRideFileName(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
  const listed: ListedFile[] = [];
  for (let start = 0; start < candidates.length; start += STAT_CONCURRENCY) {
    const batch = candidates.slice(start, start + STAT_CONCURRENCY);
    const stats = await Promise.all(batch.map((path) => stat(path).catch(() => null)));
    stats.forEach((found, index) => {
      if (found === null || !found.isFile()) return;
      const absolutePath = batch[index]!;
      listed.push({
        relativePath: relative(folder, absolutePath).split(sep).join('/'),
        absolutePath,
        sizeBytes: found.size,
        mtimeMs: Math.trunc(found.mtimeMs),
      });
    });
  }
  return listed;
}

/** The errors that mean "not there (any more)": unplugged, unmounted, removed. */
export function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENODEV' || code === 'EIO' || code === 'ENXIO';
}

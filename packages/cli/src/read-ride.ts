/** Reads a ride file from disk into a RideFile: the one place the commands touch the library's parser. */
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { parseRideFile, type RideFile } from '@rideport/ridefile';

/**
 * `file` is resolved against `cwd`. The name goes along only as a hint: the library sniffs the
 * content and unwraps gzip itself, so `ride.fit.gz` needs nothing special here.
 */
export async function readRide(file: string, cwd: string): Promise<RideFile> {
  const path = resolve(cwd, file);
  const bytes = await readFile(path).catch((error: unknown) => {
    // A folder fails at read(2), whose error names no path: name it, for the words (errors.ts).
    if (error instanceof Error && (error as NodeJS.ErrnoException).path === undefined) {
      Object.assign(error, { path });
    }
    throw error;
  });
  return parseRideFile(bytes, { filename: basename(file) });
}

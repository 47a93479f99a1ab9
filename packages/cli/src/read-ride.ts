/** Reads a ride file from disk into a RideFile: the one place the commands touch the library's parser. */
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { parseRideFile, type RideFile } from '@rideport/ridefile';

/**
 * `file` is resolved against `cwd`. The name goes along only as a hint: the library sniffs the
 * content and unwraps gzip itself, so `ride.fit.gz` needs nothing special here.
 */
export async function readRide(file: string, cwd: string): Promise<RideFile> {
  const bytes = await readFile(resolve(cwd, file));
  return parseRideFile(bytes, { filename: basename(file) });
}

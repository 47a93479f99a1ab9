/**
 * The inbox (docs/contributors/architecture.md, "Sync engine": "copy each new complete file into the app's inbox with its
 * SHA-256, upload from the inbox"): rides leave the device as soon as they are whole, so unplugging
 * the device afterwards loses nothing, and uploads read a copy that cannot change underneath them.
 * Files are named by their content's SHA-256, and written to a temporary name, synced and renamed, so
 * a crash or a full disk never leaves a half-written copy under a real name.
 */
import { createHash } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkRideFileComplete, RIDE_FILE_EXTENSION } from '@rideport/ridefile';
import { writeFileAtomically } from '@rideport/files';
import { isGone } from './listing.js';

export type Reading =
  /** the file vanished or its device went away while it was read */
  | { kind: 'gone' }
  /** the file changed while it was read: it is still being written */
  | { kind: 'changing' }
  /** the bytes do not make a whole ride file yet */
  | { kind: 'incomplete'; reason: string; bytes: Uint8Array }
  | { kind: 'complete'; bytes: Uint8Array };

/**
 * Reads a file from a source and judges it: complete (FIT header size and CRC, XML well-formed to the
 * end, via @rideport/ridefile) and unchanged from the listing to after the read.
 */
export async function readSourceFile(
  absolutePath: string,
  listed: { sizeBytes: number; mtimeMs: number },
): Promise<Reading> {
  let bytes: Uint8Array;
  let after;
  try {
    bytes = await readFile(absolutePath);
    after = await stat(absolutePath);
  } catch (error) {
    if (isGone(error)) return { kind: 'gone' };
    throw error;
  }
  if (
    after.size !== listed.sizeBytes ||
    Math.trunc(after.mtimeMs) !== listed.mtimeMs ||
    bytes.length !== after.size
  ) {
    return { kind: 'changing' };
  }
  const completeness = checkRideFileComplete(bytes);
  return completeness.complete
    ? { kind: 'complete', bytes }
    : { kind: 'incomplete', reason: completeness.reason, bytes };
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class Inbox {
  readonly #folder: string;

  constructor(folder: string) {
    this.#folder = folder;
  }

  /** The inbox name of a ride: its SHA-256 and the original extension (the server sniffs content). */
  static nameFor(sha256: string, filename: string): string {
    const extension = RIDE_FILE_EXTENSION.exec(filename)?.[0].toLowerCase() ?? '';
    return `${sha256}${extension}`;
  }

  /** Stores bytes under `name` durably; a copy already there (same content, same name) is kept. */
  async store(name: string, bytes: Uint8Array): Promise<void> {
    const target = join(this.#folder, name);
    const existing = await stat(target).catch(() => null);
    if (existing?.size === bytes.length) return;
    // Owner-only whatever the umask (issue 20): the inbox holds every ride.
    await writeFileAtomically(target, bytes, { folderMode: 0o700 });
  }

  /** The bytes of an inbox file, or null when it is missing. */
  async read(name: string): Promise<Uint8Array | null> {
    try {
      return await readFile(join(this.#folder, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Drops a copy that is no longer needed (its ride is synced). */
  async remove(name: string): Promise<void> {
    await rm(join(this.#folder, name), { force: true });
  }
}

/**
 * Writes a file so that a crash leaves the old content or the new, never half of one (issue 35: written
 * once for the server's holder record, the sync engine's inbox, the local account, the desktop app's
 * settings and credentials, and the command line's `--out` files): a temporary file beside the target
 * (same folder, hence same file system), flushed to disk, then renamed over it, which is atomic within
 * a folder on every platform we ship. On any failure the temporary file is removed and the target is
 * left as it was.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OWNER_ONLY_FILE_MODE } from './owner-only.js';

/** Where a producer writes the file's content, chunk by chunk, in order. */
export interface FileSink {
  write(chunk: string | Uint8Array): Promise<void>;
}

/**
 * What the file holds: text (UTF-8), bytes, or a producer that writes them to a sink (a large output,
 * such as `rideport convert` of a long track, is never held whole in memory).
 */
export type FileContent = string | Uint8Array | ((sink: FileSink) => Promise<void>);

export interface WriteFileOptions {
  /**
   * permissions of a new file, less the umask; default 0o600, the owner's alone, as most files a
   * Rideport process keeps hold rides or credentials
   */
  mode?: number;
  /** when given, the folder (and missing parents) is made with this mode; else it must exist */
  folderMode?: number;
}

export async function writeFileAtomically(
  path: string,
  content: FileContent,
  options: WriteFileOptions = {},
): Promise<void> {
  const folder = dirname(path);
  if (options.folderMode !== undefined) await mkdir(folder, { recursive: true, mode: options.folderMode });
  const temporary = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temporary, 'wx', options.mode ?? OWNER_ONLY_FILE_MODE);
    const file = handle;
    // A file handle's writeFile writes from where the last write ended, and writes all of it.
    if (typeof content === 'function') await content({ write: (chunk) => file.writeFile(chunk) });
    else await file.writeFile(content);
    await file.sync();
    handle = undefined;
    await file.close();
    await rename(temporary, path);
  } catch (error) {
    // The failure that stopped the write is the one to report, not a failure to close after it.
    await handle?.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}

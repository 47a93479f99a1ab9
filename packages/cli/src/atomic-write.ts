/**
 * `--out` files are written whole or not at all (issue: "an interrupted write never leaves half a
 * file"): the output goes to a temporary file in the target's directory, is flushed to disk, and is
 * renamed over the target, which is atomic within one file system.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { FileError, writeFailureWords } from './errors.js';
import type { TextSink } from './sink.js';

export async function writeFileAtomically(
  path: string,
  produce: (sink: TextSink) => Promise<void>,
  /** permissions of the new file (default 0o666, less the umask); 0o600 for secrets */
  mode = 0o666,
): Promise<void> {
  // A dot-file beside the target: same directory, hence same file system, so rename is atomic.
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', mode).catch((error: unknown) => {
    throw asFileError(error, path);
  });
  let renamed = false;
  try {
    await produce({
      async write(text: string): Promise<void> {
        await handle.write(text);
      },
    });
    await handle.sync();
    await handle.close();
    await rename(temporary, path);
    renamed = true;
  } catch (error) {
    throw asFileError(error, path);
  } finally {
    if (!renamed) {
      await handle.close().catch(() => undefined);
      await rm(temporary, { force: true });
    }
  }
}

/** A file-system error that names the target, not the temporary file the syscall saw. */
function asFileError(error: unknown, path: string): unknown {
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'string') return error;
  const code = (error as Error & { code: string }).code;
  return new FileError(code, writeFailureWords(error, path), { cause: error });
}

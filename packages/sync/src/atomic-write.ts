/**
 * Writes a file so that a crash leaves the old content or the new, never half of one: a temporary file
 * beside it, flushed, then renamed over it (rename is atomic within a folder on every platform we ship).
 * The inbox's copies and the desktop app's settings and credentials are written this way.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writeFileAtomically(
  path: string,
  content: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  const folder = dirname(path);
  // Owner-only whatever the umask (issue 20): the inbox holds every ride, the app's folder credentials.
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temporary = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'w', mode);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * `--out` files are written whole or not at all (issue: "an interrupted write never leaves half a
 * file"), by @rideport/files' writeFileAtomically (issue 35); here its failures are said in the
 * command line's words, naming the target rather than the temporary file the syscall saw.
 */
import { writeFileAtomically as writeWhole } from '@rideport/files';
import { FileError, writeFailureWords } from './errors.js';
import type { TextSink } from './sink.js';

export async function writeFileAtomically(
  path: string,
  produce: (sink: TextSink) => Promise<void>,
  /** permissions of the new file (default 0o666, less the umask); 0o600 for secrets */
  mode = 0o666,
): Promise<void> {
  try {
    await writeWhole(path, produce, { mode });
  } catch (error) {
    throw asFileError(error, path);
  }
}

/** A file-system error that names the target, not the temporary file the syscall saw. */
function asFileError(error: unknown, path: string): unknown {
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== 'string') return error;
  const code = (error as Error & { code: string }).code;
  return new FileError(code, writeFailureWords(error, path), { cause: error });
}

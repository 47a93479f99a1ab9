/**
 * A full disk (issue 17, "Faults said in words"): the one fault of storage that is not a bug and passes
 * by itself once space is freed. SQLite reports it as SQLITE_FULL, the file system as ENOSPC (or EDQUOT
 * when a quota is used up). The server answers 507 and its upload queue waits for space; the sync
 * engine waits and tries again, its files staying where they are. Issue 35: one predicate for both.
 */
import { someCause } from './causes.js';

const DISK_FULL_CODES: ReadonlySet<string> = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/** Whether `error`, or an error it wraps (`someCause`), says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  return someCause(error, (cause) => {
    const { code } = cause as { code?: unknown };
    return typeof code === 'string' && DISK_FULL_CODES.has(code);
  });
}

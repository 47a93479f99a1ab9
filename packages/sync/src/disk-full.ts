/**
 * The sync engine's own disk is full (issue 17): its ledger (SQLite: SQLITE_FULL) or its inbox (the
 * file system: ENOSPC, EDQUOT) cannot be written. With `rideport up` and the desktop app that is the
 * server's disk too. Nothing is lost meanwhile: files stay where they are on the device or in their
 * folder, and rides in the inbox stay queued; the engine waits and tries again.
 */

const DISK_FULL_CODES: ReadonlySet<string> = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/** Whether `error` (or its cause) says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

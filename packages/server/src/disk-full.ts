/**
 * A full disk (issue 17, "Faults said in words"): the one fault of the server's storage that is not a
 * bug and passes by itself once space is freed. SQLite reports it as SQLITE_FULL, the file system as
 * ENOSPC (or EDQUOT when a quota is used up). Requests that need to write answer 507 Insufficient
 * Storage with these words (RFC 4918 §11.5: "unable to store the representation needed to complete
 * the request"), the upload queue waits for space instead of failing tasks (queue/queue.ts), and
 * nothing is marked failed for good because of it.
 */
import { ApiError, ApiErrorCode } from './errors.js';

/** What a request that could not be stored is told (v1, legacy, OAuth and the pages alike). */
export const DISK_FULL_PROBLEM = "the server's disk is full; try again later";

const DISK_FULL_CODES: ReadonlySet<string> = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/**
 * Whether `error`, or an error it wraps, says the disk is full: its `cause`, or the `inner` error of
 * the OAuth library's ServerError (oauth/token.ts).
 */
export function isDiskFull(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, cause, inner } = current as { code?: unknown; cause?: unknown; inner?: unknown };
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    current = cause ?? inner;
  }
  return false;
}

/** The 507 answer for an error that says the disk is full; null for any other error. */
export function diskFullError(error: unknown): ApiError | null {
  return isDiskFull(error) ? new ApiError(ApiErrorCode.INSUFFICIENT_STORAGE, DISK_FULL_PROBLEM) : null;
}

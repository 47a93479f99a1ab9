/**
 * A full disk (issue 17, "Faults said in words"): the one fault of the server's storage that is not a
 * bug and passes by itself once space is freed. SQLite reports it as SQLITE_FULL, the file system as
 * ENOSPC (or EDQUOT when a quota is used up). Requests that need to write answer 507 Insufficient
 * Storage with these words (RFC 4918 §11.5: "unable to store the representation needed to complete
 * the request"), the upload queue waits for space instead of failing tasks (queue/queue.ts), and
 * nothing is marked failed for good because of it.
 */
import { isDiskFull } from '@rideport/files';
import { ServerError, ServerErrorCode } from './errors.js';

// The predicate is the one every Rideport process uses (@rideport/files, issue 35).
export { isDiskFull };

/** What a request that could not be stored is told (v1, legacy, OAuth and the pages alike). */
export const DISK_FULL_PROBLEM = "the server's disk is full; try again later";

/** The 507 answer for an error that says the disk is full; null for any other error. */
export function diskFullError(error: unknown): ServerError | null {
  return isDiskFull(error) ? new ServerError(ServerErrorCode.INSUFFICIENT_STORAGE, DISK_FULL_PROBLEM) : null;
}

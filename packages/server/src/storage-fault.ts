/**
 * Faults of the server's storage that pass by themselves, answered in words instead of "internal
 * server error" (issue 17, "Faults said in words"; issue 18): a full disk is 507 (disk-full.ts), a
 * database that cannot be reached for now is 503 Service Unavailable with Retry-After (RFC 9110
 * §15.6.4: "temporarily unable to handle the request"). The cause's details (host, port) stay in the
 * server's log: a client is told what it can act on, when to try again.
 */
import { diskFullError, isDiskFull } from './disk-full.js';
import { ApiError, ApiErrorCode, DatabaseUnreachableError, someCause } from './errors.js';

export const DATABASE_UNREACHABLE_PROBLEM =
  'the server cannot reach its database just now; try again in a few seconds';

/** Seconds a client is asked to wait while the database cannot be reached. */
export const DATABASE_UNREACHABLE_RETRY_SECONDS = 5;

/** Whether `error`, or an error it wraps (errors.ts, `someCause`), says the database is out of reach. */
export function isDatabaseUnreachable(error: unknown): boolean {
  return someCause(error, (cause) => cause instanceof DatabaseUnreachableError);
}

/** The answer for a storage fault (507 or 503); null for any other error. */
export function storageFaultError(error: unknown): ApiError | null {
  if (isDatabaseUnreachable(error)) {
    return new ApiError(ApiErrorCode.SERVICE_UNAVAILABLE, DATABASE_UNREACHABLE_PROBLEM, {
      retryAfterSeconds: DATABASE_UNREACHABLE_RETRY_SECONDS,
    });
  }
  return diskFullError(error);
}

/** A fault of the storage that passes by itself, during which the upload queue waits (queue/queue.ts). */
export type StorageFault = 'disk full' | 'database unreachable';

/** Which passing storage fault `error` is, if it is one. */
export function passingStorageFault(error: unknown): StorageFault | null {
  if (isDiskFull(error)) return 'disk full';
  if (isDatabaseUnreachable(error)) return 'database unreachable';
  return null;
}

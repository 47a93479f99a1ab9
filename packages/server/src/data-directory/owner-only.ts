/**
 * The owner-only helpers live in @rideport/files (issue 35); the database layer (db/sqlite.ts) and the
 * claim import them from here. A file the claim cannot make its owner's alone refuses the data
 * directory as unusable, in the server's own words for it.
 */
import { tightenOwnerOnly as tighten } from '@rideport/files';
import { DataDirectoryError, DataDirectoryErrorCode } from '../errors.js';

export { createOwnerOnlyFile, makeOwnerOnlyFolder } from '@rideport/files';

/** @rideport/files' tightenOwnerOnly, refusing with a DataDirectoryError (UNUSABLE). */
export function tightenOwnerOnly(directory: string): void {
  tighten(
    directory,
    (message, cause) => new DataDirectoryError(DataDirectoryErrorCode.UNUSABLE, message, { cause }),
  );
}

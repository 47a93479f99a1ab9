/**
 * The `external_id` the engine sends with each ride (issue 20): the same for every upload of one ride,
 * so a retry after a lost answer, or a second engine on a restored ledger, is a duplicate on the server
 * whatever it recognises of the bytes. Made of the source (device or folder), the file's path in it
 * and its content hash: a ride is one file of one source, and a file edited in place is a new ride.
 * Hashed, so no path (which may hold a person's name) leaves the machine; 64 hex digits after a prefix
 * naming the scheme, well inside the server's 255 characters.
 */
import { createHash } from 'node:crypto';
import type { RideRow } from './ledger.js';

export function rideExternalId(ride: Pick<RideRow, 'sourceId' | 'relativePath' | 'sha256'>): string {
  const digest = createHash('sha256')
    // JSON keeps the parts apart whatever characters they hold.
    .update(JSON.stringify([ride.sourceId, ride.relativePath, ride.sha256]))
    .digest('hex');
  return `rideport-sync:v1:${digest}`;
}

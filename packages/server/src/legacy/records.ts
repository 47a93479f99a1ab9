/**
 * Legacy record shapes. The specification shows few legacy fields (docs/integrators/api.md: the user object
 * carries `auth_token` at login; "other fields … not shown"), so the legacy records are the v1 records
 * of docs/contributors/decisions.md §2, field for field, and the same on every legacy endpoint:
 *
 * - user: `id, name, display_name, first_name, last_name, created_at, updated_at`, plus `email` only
 *   when the caller is that user (docs/contributors/decisions.md §5); the login answer adds `auth_token`.
 * - route and trip: every field of the v1 record (docs/contributors/decisions.md §2), with `url` naming the record on
 *   this interface (`<base>/routes/<id>.json`) rather than on v1. Single-record answers add
 *   `track_points`; lists and the created trip leave them out, as v1 lists do.
 * - club: v1's club record (api/v1/records.ts), with `url` on this interface.
 *
 * `visibility` stays in v1 words (`public`, `private`, `friends_only`) in every answer; only the
 * `trip[visibility]` input of a new ride also takes the legacy numbers (0, 1, 2).
 */
import { userRecord, type UserRecord } from '../api/v1/records.js';
import type { AssetType, UserRow } from '../db/schema.js';
import type { RecordUrl } from '../store/index.js';

/** The site root of the public base URL, where the legacy paths hang (docs/contributors/decisions.md §5). */
export function legacyUrlPrefix(baseUrl: URL): string {
  return `${baseUrl.origin}${baseUrl.pathname.replace(/\/+$/, '')}`;
}

/** How legacy route and trip records name their URL: `<prefix>/routes/<id>.json`. */
export function legacyAssetUrl(prefix: string, type: AssetType): RecordUrl {
  return { prefix: `${prefix}/${type}s/`, suffix: '.json' };
}

export type LegacyUserRecord = UserRecord;

/** A user as the legacy interface shows them to `viewerId` (null: a caller without a user). */
export function legacyUserRecord(user: UserRow, viewerId: number | null): LegacyUserRecord {
  return userRecord(user, viewerId);
}

/** A route or trip record, from its JSON as the data-access layer renders it (with `url`). */
export function parsedRecord(recordJson: string): Record<string, unknown> {
  return JSON.parse(recordJson) as Record<string, unknown>;
}

/**
 * v1 records built from the server's rows (docs/contributors/decisions.md §2), in the shapes of
 * wire/records.ts, which this module passes on to the v1 handlers with the functions that build them.
 */
import type { AssetType, EventRow, UserRow } from '../../db/schema.js';
import type { ClubRow } from '../../store/index.js';
import { isoTime } from '../../iso-time.js';
import { recordWithUrl, type RecordUrl } from '../../store/index.js';
import { ERRORS_SCHEMA, type ClubRecord, type EventRecord, type UserRecord } from '../../wire/records.js';

export * from '../../wire/records.js';

export function userRecord(user: UserRow, viewerId: number | null): UserRecord {
  return {
    id: user.id,
    name: user.name,
    display_name: user.name,
    first_name: user.first_name,
    last_name: user.last_name,
    ...(viewerId === user.id ? { email: user.email } : {}),
    created_at: isoTime(user.created_at),
    updated_at: isoTime(user.updated_at),
  };
}

/** The error body under each of these statuses, for a route's response schemas. */
export function errorResponses(...statuses: number[]): Record<number, typeof ERRORS_SCHEMA> {
  return Object.fromEntries(statuses.map((status) => [status, ERRORS_SCHEMA]));
}

/** How records of `type` name their URL (`<prefix>/routes/<id>.json`), for the data-access layer. */
export function assetRecordUrl(prefix: string, type: AssetType): RecordUrl {
  return { prefix: `${prefix}/${type}s/`, suffix: '.json' };
}

/** One route or trip record as JSON, from the stored record (store/asset-records.ts) and its URL. */
export function assetRecordJson(prefix: string, type: AssetType, recordJson: string): string {
  return recordWithUrl(recordJson, assetRecordUrl(prefix, type));
}

export function eventRecord(row: EventRow): EventRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    location: row.location,
    url: row.url,
    start_date: row.start_date,
    end_date: row.end_date,
    visibility: row.visibility,
    user_id: row.user_id,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

/**
 * A club (docs/contributors/decisions.md §5: "name, description, member count"), the same on v1 and the legacy interface
 * but for `url`, which names it on the interface that answers (`prefix`: v1's or the legacy site root).
 */
export function clubRecord(club: ClubRow, prefix: string): ClubRecord {
  return {
    id: club.id,
    url: `${prefix}/clubs/${club.id}.json`,
    name: club.name,
    description: club.description,
    member_count: club.member_count,
    created_at: isoTime(club.created_at),
    updated_at: isoTime(club.updated_at),
  };
}

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
import {
  ROUTE_SCHEMA,
  TRIP_SCHEMA,
  USER_SCHEMA,
  userRecord,
  type RecordOf,
  type UserRecord,
} from '../api/v1/records.js';
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

/**
 * The user of the legacy login answer (`GET /users/current.json` signed in with a password or a
 * token): the user record and the auth token to send next. Like the v1 records, the schema is the one
 * source of the shape (issue 35): it documents the answer and names the client's LegacyUser.
 */
export const LEGACY_USER_SCHEMA = {
  type: 'object',
  title: 'LegacyUser',
  description: "The legacy login answer's user: the user record with the auth token to send next.",
  required: [...USER_SCHEMA.required, 'auth_token'],
  properties: {
    ...USER_SCHEMA.properties,
    auth_token: { type: 'string', description: 'sent as `auth_token` with the next requests' },
  },
} as const;

export type LegacySignedInUser = RecordOf<typeof LEGACY_USER_SCHEMA>;

/** A trip or route an upload task made (or found, for a duplicate upload), on the legacy interface. */
const ASSOCIATED_OBJECT_SCHEMA = {
  title: 'AssociatedObject',
  description: 'A trip or route an upload task made (or found, for a duplicate upload).',
  oneOf: [
    {
      type: 'object',
      required: ['type', 'trip'],
      properties: { type: { type: 'string', const: 'trip' }, trip: TRIP_SCHEMA },
    },
    {
      type: 'object',
      required: ['type', 'route'],
      properties: { type: { type: 'string', const: 'route' }, route: ROUTE_SCHEMA },
    },
  ],
} as const;

/** A queued upload task (`GET /queued_tasks/status.json`; legacy/queued-tasks.ts). */
export const QUEUED_TASK_SCHEMA = {
  type: 'object',
  title: 'QueuedTask',
  description: 'A queued upload task and what became of it.',
  required: [
    'id',
    'status',
    'message',
    'error_code',
    'response_code',
    'progress',
    'created_at',
    'updated_at',
    'user_id',
    'external_id',
    'associated_objects',
  ],
  properties: {
    id: { type: 'integer' },
    status: { type: 'integer', enum: [-1, 0, 1], description: '-1 failed, 0 pending, 1 success' },
    message: {
      type: 'string',
      description:
        'in words for people: what the upload made and what was wrong with the file, or why it failed',
    },
    error_code: {
      type: ['string', 'null'],
      description:
        "a failed task's stable code for programs (RIDEFILE_MALFORMED, UPLOAD_PARSER_CRASHED, …), null otherwise",
    },
    response_code: { type: 'string', enum: ['pending', 'success', 'duplicate', 'failed'] },
    progress: { type: 'integer', description: '0..100' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    user_id: { type: 'integer' },
    external_id: { type: ['string', 'null'], description: "the upload's `external_id`; null without one" },
    associated_objects: {
      type: 'array',
      items: ASSOCIATED_OBJECT_SCHEMA,
      description: 'filled only when asked for (include_objects)',
    },
  },
} as const;

export type QueuedTaskRecord = RecordOf<typeof QUEUED_TASK_SCHEMA>;

/** A user as the legacy interface shows them to `viewerId` (null: a caller without a user). */
export function legacyUserRecord(user: UserRow, viewerId: number | null): LegacyUserRecord {
  return userRecord(user, viewerId);
}

/** A route or trip record, from its JSON as the data-access layer renders it (with `url`). */
export function parsedRecord(recordJson: string): Record<string, unknown> {
  return JSON.parse(recordJson) as Record<string, unknown>;
}

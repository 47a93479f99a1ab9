/**
 * The records the API answers with, as the client sees them (docs/integrators/api.md, "Resources and
 * their fields"). Field names are the wire names: these are specification fields, so they keep the
 * specification's snake_case and units. Servers may add keys ("clients must tolerate unknown keys");
 * nothing here rejects them.
 *
 * Issue 35: the v1 shapes are generated from the server's OpenAPI document into records.generated.ts
 * (scripts/generate-client-types.ts), so they cannot drift from what the server sends; this file
 * gives them the client's names, and says where the client reads more loosely than this server
 * sends. The legacy interface's own shapes (its login, its lists, upload tasks) are not in the
 * document's schemas and are written here.
 */
import type { PaginationMeta, RouteRecord, TrackPoint, TripRecord, UserRecord } from './records.generated.js';

// `warnings` and `external_id`, which servers before issues 16 and 20 leave out, are optional in
// RouteRecord and TripRecord (the generator's LATER_FIELDS): a record without them is still read.
export type {
  AuthTokenRecord,
  ClubRecord,
  EventFields,
  EventRecord,
  PageMeta,
  PaginationMeta,
  RecordWarning,
  RouteRecord,
  SyncItem,
  SyncResult,
  Terrain,
  TrackPoint,
  TrackType,
  TripRecord,
  UserRecord,
  Visibility,
} from './records.generated.js';

/** A single-record answer adds the points (list items leave them out). */
export type WithTrackPoints<T> = T & { track_points: TrackPoint[] };

/** The legacy login answer's user: the user record with the auth token to send next. */
export interface LegacyUser extends UserRecord {
  auth_token: string;
}

/** One page of a v1 list: the records under the root key, and the pagination. */
export interface Page<T> {
  items: T[];
  pagination: PaginationMeta;
}

/** A legacy version-2 list (decisions.md §5): one page, and how many the caller may see in all. */
export interface LegacyList<T> {
  results: T[];
  results_count: number;
}

/** A trip or route an upload task made (or found, for a duplicate upload). */
export type AssociatedObject = { type: 'trip'; trip: TripRecord } | { type: 'route'; route: RouteRecord };

/** A queued upload task (platform-api.md, "States and transitions"; decisions.md §5). */
export interface QueuedTask {
  id: number;
  /** -1 failed, 0 pending, 1 success */
  status: -1 | 0 | 1;
  /** in words for people: what the upload made and what was wrong with the file, or why it failed */
  message: string;
  /**
   * a failed task's stable code for programs (RIDEFILE_MALFORMED, UPLOAD_PARSER_CRASHED, …), null
   * otherwise (issue 16); absent from servers that do not send it
   */
  error_code?: string | null;
  response_code: 'pending' | 'success' | 'duplicate' | 'failed';
  /** 0..100 */
  progress: number;
  created_at: string;
  updated_at: string;
  user_id: number;
  /** the upload's `external_id` (issue 20); absent from servers that do not send it */
  external_id?: string | null;
  /** filled only when asked for (include_objects) */
  associated_objects: AssociatedObject[];
}

/**
 * The records the API answers with, as the client sees them (docs/integrators/api.md, "Resources and
 * their fields"). Field names are the wire names: these are specification fields, so they keep the
 * specification's snake_case and units. Servers may add keys ("clients must tolerate unknown keys");
 * nothing here rejects them.
 *
 * Issue 35: the v1 shapes are generated from the server's OpenAPI document into records.generated.ts
 * (scripts/generate-client-types.ts), so they cannot drift from what the server sends; this file
 * gives them the client's names, and says where the client reads more loosely than this server
 * sends. The page and legacy list wrappers are the client's own and are written here.
 */
import type { PaginationMeta, TrackPoint } from './records.generated.js';

// `warnings`, `error_code` and `external_id`, which servers before issues 16 and 20 leave out, are
// optional (the generator's LATER_FIELDS): a record without them is still read.
export type {
  AssociatedObject,
  AuthTokenRecord,
  ClubRecord,
  EventFields,
  EventRecord,
  LegacyUser,
  PageMeta,
  PaginationMeta,
  QueuedTask,
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

/** One page of a v1 list: the records under the root key, and the pagination. */
export interface Page<T> {
  items: T[];
  pagination: PaginationMeta;
}

/** A legacy version-2 list (docs/contributors/decisions.md §5): one page, and how many the caller may see in all. */
export interface LegacyList<T> {
  results: T[];
  results_count: number;
}

/**
 * The records the API answers with, as the client sees them (docs/integrators/api.md, "Resources and their
 * fields"; docs/contributors/decisions.md §2 for v1 records, §5 for the legacy ones). Field names are the wire names:
 * these are specification fields, so they keep the specification's snake_case and units (house style:
 * units in names only where the value is not a specification field). Servers may add keys
 * (docs/integrators/api.md, Versioning: "clients must tolerate unknown keys"); nothing here rejects them.
 */

export type Visibility = 'public' | 'private' | 'friends_only';

/**
 * A legacy track point (docs/integrators/api.md, "Track point"): single-letter keys, each present only when
 * known. `t` is whole Unix seconds, never milliseconds; `s` (m/s) and `d` (m) only from a wheel sensor.
 */
export interface TrackPoint {
  /** longitude, degrees */
  x?: number;
  /** latitude, degrees */
  y?: number;
  /** elevation, m */
  e?: number;
  /** time, integer Unix seconds */
  t?: number;
  /** cadence, rpm */
  c?: number;
  /** heart rate, bpm */
  h?: number;
  /** power, W */
  p?: number;
  /** speed, m/s (wheel sensor only) */
  s?: number;
  /** distance from start, m (wheel sensor only) */
  d?: number;
  /** temperature, °C */
  T?: number;
}

/** A user (docs/contributors/decisions.md §2): `email` only when the caller is that user. */
export interface UserRecord {
  id: number;
  name: string;
  display_name: string;
  first_name: string | null;
  last_name: string | null;
  email?: string | null;
  created_at: string;
  updated_at: string;
}

/** The legacy login answer's user (docs/contributors/decisions.md §5): the user record with the auth token to send next. */
export interface LegacyUser extends UserRecord {
  auth_token: string;
}

/** `auth_token` of POST /api/v1/auth_tokens.json (docs/integrators/api.md, "Authentication token record"). */
export interface AuthTokenRecord {
  auth_token: string;
  api_key: string;
  created_at: string;
  updated_at: string;
  user: UserRecord;
}

/** The shape of a track, as the API names it. */
export type TrackType = 'loop' | 'out_and_back' | 'point_to_point' | 'unknown';
/** How hilly a track is, as the API names it. */
export type Terrain = 'flat' | 'rolling' | 'climbing';

/** A route (docs/contributors/decisions.md §2). Distances and elevations in m; null when the file does not give them. */
export interface RouteRecord {
  id: number;
  /** this record's URL on the interface that answered (v1 or legacy) */
  url: string;
  name: string;
  description: string | null;
  user_id: number;
  visibility: Visibility;
  created_at: string;
  updated_at: string;
  distance: number | null;
  elevation_gain: number | null;
  elevation_loss: number | null;
  first_lat: number | null;
  first_lng: number | null;
  last_lat: number | null;
  last_lng: number | null;
  sw_lat: number | null;
  sw_lng: number | null;
  ne_lat: number | null;
  ne_lng: number | null;
  track_type: TrackType;
  terrain: Terrain;
  /**
   * What was wrong with the file it was read from: cut off, damaged, partly unreadable (issue 16);
   * empty for a sound file. Optional: other servers of this API may not send it, which means none known.
   */
  warnings?: RecordWarning[];
}

/** One problem of the file a route or trip was read from. */
export interface RecordWarning {
  /** stable, for programs: @rideport/ridefile's warning code, e.g. RIDEFILE_TRUNCATED */
  code: string;
  /** plain words for people: "This file ends early: the ride was read up to 14:32." */
  message: string;
}

/** A trip (ride): a route's fields plus the ride's (docs/contributors/decisions.md §2); speeds in km/h, times in s. */
export interface TripRecord extends RouteRecord {
  departed_at: string | null;
  /** IANA name at the first position */
  time_zone: string | null;
  /** e.g. cycling:road, cycling:virtual, running:generic */
  activity_type: string | null;
  is_stationary: boolean;
  duration: number | null;
  moving_time: number | null;
  avg_speed: number | null;
  max_speed: number | null;
  avg_cad: number | null;
  min_cad: number | null;
  max_cad: number | null;
  avg_hr: number | null;
  min_hr: number | null;
  max_hr: number | null;
  avg_watts: number | null;
  min_watts: number | null;
  max_watts: number | null;
  calories: number | null;
  /** e.g. "Garmin Edge 530" */
  device: string | null;
  /**
   * the uploader's own id of the upload the trip came from (Strava's external_id; issue 20), null
   * without one; absent from servers before it
   */
  external_id?: string | null;
}

/** A single-record answer adds the points (list items leave them out). */
export type WithTrackPoints<T> = T & { track_points: TrackPoint[] };

/** An event (docs/contributors/decisions.md §2). Dates are YYYY-MM-DD. */
export interface EventRecord {
  id: number;
  name: string;
  description: string | null;
  location: string | null;
  /** the event's own web page */
  url: string | null;
  start_date: string;
  end_date: string | null;
  visibility: Visibility;
  user_id: number;
  created_at: string;
  updated_at: string;
}

/**
 * What an event is created or changed with. The server requires `name` and `start_date` when creating
 * and answers 422 listing every missing or invalid field (docs/integrators/api.md, Errors), which the client
 * passes on as REJECTED with the server's messages rather than second-guessing.
 */
export interface EventFields {
  name?: string;
  start_date?: string;
  end_date?: string | null;
  description?: string | null;
  location?: string | null;
  url?: string | null;
  visibility?: Visibility;
}

/** `meta.pagination` (docs/integrators/api.md, "Pagination metadata"). */
export interface PaginationMeta {
  record_count: number;
  page_count: number;
  page_size: number;
  /** absolute; null on the last page */
  next_page_url: string | null;
}

/** The `meta` of a v1 list. */
export interface PageMeta {
  pagination: PaginationMeta;
}

/** One page of a v1 list: the records under the root key, and the pagination. */
export interface Page<T> {
  items: T[];
  pagination: PaginationMeta;
}

/** One change of `GET /api/v1/sync.json` (docs/contributors/decisions.md §2). */
export interface SyncItem {
  item_type: 'route' | 'trip';
  item_id: number;
  item_user_id: number;
  item_url: string;
  action: 'created' | 'updated' | 'deleted';
  datetime: string;
  collection: null;
}

/** What `v1.sync` answers: the changes since the time asked, and where to ask next time. */
export interface SyncResult {
  items: SyncItem[];
  meta: {
    service_datetime: string;
    /** the same query with `since` set to `service_datetime` */
    next_sync_url: string;
  };
}

/** A legacy version-2 list (docs/contributors/decisions.md §5): one page, and how many the caller may see in all. */
export interface LegacyList<T> {
  results: T[];
  results_count: number;
}

/** A club (docs/contributors/decisions.md §5: "name, description, member count"). */
export interface ClubRecord {
  id: number;
  url: string;
  name: string;
  description: string | null;
  member_count: number;
  created_at: string;
  updated_at: string;
}

/** A trip or route an upload task made (or found, for a duplicate upload). */
export type AssociatedObject = { type: 'trip'; trip: TripRecord } | { type: 'route'; route: RouteRecord };

/** A queued upload task (docs/integrators/api.md, "States and transitions"; docs/contributors/decisions.md §5). */
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

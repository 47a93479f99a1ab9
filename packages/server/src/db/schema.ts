/**
 * The tables, as Kysely sees them (one interface per table; the migrations create them). Times are
 * Unix milliseconds (INTEGER); the API formats them. Visibility is stored in v1 words.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

export type Visibility = 'public' | 'friends_only' | 'private';
export type AccountKind = 'person' | 'organization';
export type MembershipRole = 'admin' | 'member';
export type AssetType = 'route' | 'trip';
export type ChangeAction = 'created' | 'updated' | 'deleted';

export interface UsersTable {
  id: Generated<number>;
  kind: AccountKind;
  /** null for organizations (they sign in through their administrators) */
  email: string | null;
  name: string;
  first_name: string | null;
  last_name: string | null;
  description: string | null;
  /** scrypt, see security/passwords.ts; null for organizations */
  password_hash: string | null;
  created_at: number;
  updated_at: number;
}

/** Migration 11 (issue 19): a rider's units, time zone and training thresholds. */
export interface UserPreferencesTable {
  user_id: number;
  units: Units;
  /** IANA zone; null: not set (times without a zone of their own are shown in UTC) */
  time_zone: string | null;
  /** functional threshold power, W */
  ftp_watts: number | null;
  /** lactate threshold heart rate, bpm */
  threshold_hr: number | null;
  max_hr: number | null;
  updated_at: number;
}

export type Units = 'metric' | 'imperial';

/** Migration 11: a ride's power curve, computed once (store/power-curves.ts). */
export interface TripPowerCurvesTable {
  trip_id: number;
  /** JSON: watts or null per POWER_CURVE_SECONDS window; [] when the ride has no power */
  curve: string;
}

/** Migration 13: one fixed window of a rate limit, shared by every server on the database (store/rate-windows.ts). */
export interface RateWindowsTable {
  /** SHA-256 (base64url) of the limit's key: an address, an account, or both */
  key: string;
  hits: number;
  /** when the window ends, on the server's clock (ms since 1970) */
  ends_ms: number;
}

export interface MembershipsTable {
  organization_id: number;
  user_id: number;
  role: MembershipRole;
  created_at: number;
}

export interface ApiClientsTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  /** also the OAuth client_id */
  api_key: string;
  /** SHA-256 of the client secret (security/secrets.ts derives the secret itself from the master key) */
  secret_hash: string;
  /** bumped when the secret is regenerated, so the derived secret changes */
  secret_generation: number;
  /** JSON array of exact redirect URIs */
  redirect_uris: string;
  webhook_url: string | null;
  /** comma-separated asset kinds the webhook wants: 'route', 'trip' */
  webhook_assets: string;
  /** legacy interface version current when the client was issued (docs/contributors/decisions.md §1) */
  legacy_version: number;
  created_at: number;
  updated_at: number;
}

export interface AuthTokensTable {
  id: Generated<number>;
  user_id: number;
  api_client_id: number;
  token_hash: string;
  created_at: number;
  updated_at: number;
  last_used_at: number;
  revoked_at: number | null;
}

export interface OAuthGrantsTable {
  id: Generated<number>;
  code_hash: string;
  api_client_id: number;
  user_id: number;
  redirect_uri: string;
  scope: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface OAuthTokensTable {
  id: Generated<number>;
  token_hash: string;
  api_client_id: number;
  user_id: number;
  grant_id: number | null;
  scope: string;
  created_at: number;
  revoked_at: number | null;
}

export interface SessionsTable {
  id: Generated<number>;
  session_hash: string;
  user_id: number;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

/** One-time sign-in links (migration 6; store/sign-in-links.ts). */
export interface SignInLinksTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number;
  /** the same-site path the link goes on to once it has signed the browser in */
  next_path: string;
  created_at: number;
  expires_at: number;
}

/** Columns routes and trips share (docs/contributors/decisions.md §2, route and trip records). */
export interface AssetColumns {
  id: Generated<number>;
  user_id: number;
  name: string;
  description: string | null;
  visibility: Visibility;
  created_at: number;
  updated_at: number;
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
  track_type: string;
  terrain: string;
  point_count: number;
  /**
   * The v1 record but its url, rendered as JSON from the columns above (store/asset-records.ts;
   * migration 002); null for rows written before it
   */
  record_json: string | null;
  /** RECORD_FORMAT of record_json when it was rendered */
  record_format: number | null;
  /** SHA-256 of the upload the asset came from (migration 3): the same user's identical bytes are a duplicate */
  source_sha256: string | null;
  /**
   * The laps the file records, as the JSON array of @rideport/ridefile's Lap objects (migration 5;
   * issue 7); null for rows written before it
   */
  laps: string | null;
  /**
   * What was wrong with the file the asset was read from: the JSON array of @rideport/ridefile's
   * warnings of the track, `[{"code","message"}]` (migration 7; issue 16); null for rows written
   * before it, which read as none
   */
  warnings: string | null;
  /** Unix milliseconds of the last point that has a time (migration 7); null when none has */
  last_point_at: number | null;
  /** the file the asset was read from (migration 10; issue 20); null for rows without one */
  original_file_id: number | null;
  /** the uploader's own id of the upload (Strava's external_id; migration 10), and its API client */
  external_id: string | null;
  external_client_id: number | null;
}

/** An upload's file as sent, gzip-compressed (migration 10; issue 20, "Original files"). */
export interface OriginalFilesTable {
  id: Generated<number>;
  user_id: number;
  filename: string | null;
  /** the format the parser read (fit, tcx, gpx, kml) */
  format: string;
  /** 1: `bytes` is the upload itself, which was gzip; 0: the server gzipped the upload */
  uploaded_gzip: number;
  /** bytes of the upload as sent */
  byte_length: number;
  /** the file gzip-compressed; empty when it is a large value (large_value_id) */
  bytes: Buffer;
  created_at: number;
  /** the large value holding the file's bytes (migration 017), or null when `bytes` holds them */
  large_value_id: ColumnType<number | null, number | null | undefined, never>;
}

export type RoutesTable = AssetColumns;

export interface TripsTable extends AssetColumns {
  departed_at: number | null;
  time_zone: string | null;
  activity_type: string | null;
  is_stationary: number;
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
  device: string | null;
  /** the recording device's serial number (migration 8; issue 16, "One ride per ride"); null when unknown */
  recording_serial: string | null;
  /** when the device created the file (FIT file_id.time_created), Unix ms; null when unknown */
  recording_created_at: number | null;
  /** the first timed point, Unix ms (whole seconds); null for a trip without times */
  started_at: number | null;
  /** the last timed point, Unix ms; never before started_at */
  ended_at: number | null;
}

/** A row holds `points`, `packed`, or both (migration 004; store/track-points.ts). */
export interface TrackPointsTable {
  asset_id: number;
  /** the points' JSON array text, rendered from `packed` when first read */
  points: string | null;
  /** the points packed as binary columns, as stored when the asset was created */
  packed: Buffer | null;
}

export interface EventsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  description: string | null;
  location: string | null;
  url: string | null;
  /** YYYY-MM-DD */
  start_date: string;
  end_date: string | null;
  visibility: Visibility;
  created_at: number;
  updated_at: number;
}

/** Every create, update and delete of a route or trip, for /api/v1/sync.json and the webhook outbox. */
export interface AssetChangesTable {
  id: Generated<number>;
  item_type: AssetType;
  item_id: number;
  item_user_id: number;
  /** who acted */
  user_id: number;
  action: ChangeAction;
  at: number;
}

/** The last id handed out per table (migration 002): ids of deleted rows are never used again. */
export interface IdSequencesTable {
  name: 'routes' | 'trips' | 'events';
  last_id: number;
}

export type TaskStatus = -1 | 0 | 1;
export type TaskResponseCode = 'pending' | 'success' | 'duplicate' | 'failed';

/** An uploaded file waiting for, being, or done with processing (migration 3; docs/contributors/decisions.md §5). */
export interface QueuedTasksTable {
  id: Generated<number>;
  user_id: number;
  api_client_id: number | null;
  /** -1 failed, 0 pending, 1 success (docs/integrators/api.md, States and transitions) */
  status: TaskStatus;
  response_code: TaskResponseCode;
  message: string;
  /** 0..100 */
  progress: number;
  sha256: string;
  filename: string | null;
  /** the file's length: as sent, or unzipped when `gzipped_by_server` */
  byte_length: number;
  /**
   * 1: the task's bytes are the file gzipped by the server (a ride of a ZIP archive kept as its
   * compressed data; migration 16, issue 36); 0: the file as sent
   */
  gzipped_by_server: Generated<number>;
  /** JSON: the upload's trip[name], trip[description], trip[visibility] */
  metadata: string;
  /** how many times a worker has started on it */
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  /**
   * the stable code of a failed task, for programs (migration 7; issue 16): a RideFileErrorCode or
   * the queue's own (queue/queue.ts); `message` says it in words. Null for every other task
   */
  error_code: string | null;
  /** the uploader's own id of the upload (Strava's external_id; migration 10; issue 20) */
  external_id: string | null;
}

export interface TaskUploadsTable {
  task_id: number;
  /** the upload's bytes; empty when they are a large value (large_value_id) */
  bytes: Buffer;
  /** the large value holding the upload's bytes (migration 017), or null when `bytes` holds them */
  large_value_id: ColumnType<number | null, number | null | undefined, never>;
}

/** A byte value stored in parts (migration 017, store/large-values.ts). */
export interface LargeValuesTable {
  id: Generated<number>;
  byte_length: number;
  created_at: number;
}

export interface LargeValuePartsTable {
  value_id: number;
  /** 0, 1, …: the parts in order */
  part: number;
  bytes: Buffer;
}

export interface TaskObjectsTable {
  task_id: number;
  asset_type: AssetType;
  asset_id: number;
  /** the order of the task's objects (migration 012) */
  position: number;
}

export interface ClubRoutesTable {
  organization_id: number;
  route_id: number;
  shared_by: number;
  created_at: number;
}

/** One notification for one API client (docs/contributors/decisions.md §6), waiting for or done with delivery. */
export interface WebhookOutboxTable {
  id: Generated<number>;
  api_client_id: number;
  /** who acted */
  user_id: number;
  item_type: AssetType;
  item_id: number;
  item_user_id: number;
  action: ChangeAction;
  created_at: number;
  /** the delivery (batch) the notification went out in, kept across retries; null until batched */
  delivery_id: string | null;
  next_attempt_at: number;
  attempts: number;
  delivered_at: number | null;
  failed_at: number | null;
  last_error: string | null;
}

/** One attempt to deliver one batch, for the developer settings page. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  api_client_id: number;
  delivery_id: string;
  url: string;
  notification_count: number;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: number;
}

export interface Database {
  users: UsersTable;
  user_preferences: UserPreferencesTable;
  trip_power_curves: TripPowerCurvesTable;
  memberships: MembershipsTable;
  api_clients: ApiClientsTable;
  auth_tokens: AuthTokensTable;
  oauth_grants: OAuthGrantsTable;
  oauth_tokens: OAuthTokensTable;
  sessions: SessionsTable;
  sign_in_links: SignInLinksTable;
  routes: RoutesTable;
  trips: TripsTable;
  route_track_points: TrackPointsTable;
  trip_track_points: TrackPointsTable;
  events: EventsTable;
  asset_changes: AssetChangesTable;
  id_sequences: IdSequencesTable;
  queued_tasks: QueuedTasksTable;
  original_files: OriginalFilesTable;
  task_uploads: TaskUploadsTable;
  large_values: LargeValuesTable;
  large_value_parts: LargeValuePartsTable;
  task_objects: TaskObjectsTable;
  club_routes: ClubRoutesTable;
  webhook_outbox: WebhookOutboxTable;
  webhook_deliveries: WebhookDeliveriesTable;
  rate_windows: RateWindowsTable;
}

export type UserRow = Selectable<UsersTable>;
export type ApiClientRow = Selectable<ApiClientsTable>;
export type AuthTokenRow = Selectable<AuthTokensTable>;
export type RouteRow = Selectable<RoutesTable>;
export type TripRow = Selectable<TripsTable>;
export type EventRow = Selectable<EventsTable>;
export type NewRoute = Insertable<RoutesTable>;
export type NewTrip = Insertable<TripsTable>;
export type EventUpdate = Updateable<EventsTable>;

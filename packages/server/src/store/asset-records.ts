/**
 * The v1 record of a route or trip (docs/contributors/decisions.md §2), but for `url`, which depends on the configured
 * public base URL and is spliced in when the record is sent (Assets' recordWithUrl). It is built here,
 * in the data-access layer, because each row keeps it rendered as JSON, `{"id":…,"name":…,…}` (column
 * record_json, migration 002): a page of 200 records is then 200 short strings read by one indexed
 * query, where materialising 200 rows of 45 numeric columns costs more than everything else the request
 * does (issue 4's benchmark, bench/api.ts).
 *
 * The rendered JSON is a cache of the columns, kept in step by every write in Assets. When the record's
 * shape changes, bump RECORD_FORMAT: rows rendered in an older format are then rendered again from their
 * columns when read (Assets.listRecords), so no stale shape is ever served.
 */
import { saidWarnings, type WarnedTrack, type Warning } from '@rideport/ridefile';
// Types only: the record shapes are the v1 schemas' (issue 35); nothing of the API runs here.
import type { RecordWarning, RouteRecord, Terrain, TrackType, TripRecord } from '../wire/records.js';
import type { AssetType, RoutesTable, TripsTable } from '../db/schema.js';
import { isoTime } from '../iso-time.js';

/**
 * The format of record_json; rows whose record_format differs are rendered again when read.
 * 2: `warnings` (issue 16). 3: trips' `external_id` (issue 20).
 */
export const RECORD_FORMAT = 3;

/** The columns a record is built from (a row, or the values about to be inserted). */
export type RouteRecordSource = Omit<RoutesTable, 'id' | 'record_json' | 'record_format'>;
export type TripRecordSource = Omit<TripsTable, 'id' | 'record_json' | 'record_format'>;

/**
 * A route's record but `id` and `url`: every field, null when unknown. The shapes are the v1 record
 * schemas' (wire/records.ts, issue 35), so what is rendered here and what is sent are one type.
 * `warnings`: what was wrong with the file it was read from (issue 16), the library's code and the
 * words for people (warning-words.ts); empty for a sound file and for rows stored before migration 7.
 */
export type RouteRecordFields = Omit<RouteRecord, 'id' | 'url'>;

/** A trip's record but `id` and `url`: a route's fields and the ride's. */
export type TripRecordFields = Omit<TripRecord, 'id' | 'url'>;

export function routeRecordFields(row: RouteRecordSource): RouteRecordFields {
  return { ...sharedFields(row), warnings: recordWarnings('route', row) };
}

/** The fields routes and trips share but `warnings`, which trips list last, after their own. */
function sharedFields(row: RouteRecordSource): Omit<RouteRecordFields, 'warnings'> {
  return {
    name: row.name,
    description: row.description,
    user_id: row.user_id,
    visibility: row.visibility,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    distance: row.distance,
    elevation_gain: row.elevation_gain,
    elevation_loss: row.elevation_loss,
    first_lat: row.first_lat,
    first_lng: row.first_lng,
    last_lat: row.last_lat,
    last_lng: row.last_lng,
    sw_lat: row.sw_lat,
    sw_lng: row.sw_lng,
    ne_lat: row.ne_lat,
    ne_lng: row.ne_lng,
    // The columns hold only the words the parser gives (ridefile's TrackType and Terrain).
    track_type: row.track_type as TrackType,
    terrain: row.terrain as Terrain,
  };
}

export function tripRecordFields(row: TripRecordSource): TripRecordFields {
  return {
    ...sharedFields(row),
    departed_at: row.departed_at === null ? null : isoTime(row.departed_at),
    time_zone: row.time_zone,
    activity_type: row.activity_type,
    is_stationary: row.is_stationary !== 0,
    duration: row.duration,
    moving_time: row.moving_time,
    avg_speed: row.avg_speed,
    max_speed: row.max_speed,
    avg_cad: row.avg_cad,
    min_cad: row.min_cad,
    max_cad: row.max_cad,
    avg_hr: row.avg_hr,
    min_hr: row.min_hr,
    max_hr: row.max_hr,
    avg_watts: row.avg_watts,
    min_watts: row.min_watts,
    max_watts: row.max_watts,
    calories: row.calories,
    device: row.device,
    external_id: row.external_id,
    warnings: recordWarnings('trip', row),
  };
}

/** The stored warnings of a route or trip in words (warning-words.ts), as records and pages show them. */
export function recordWarnings(type: AssetType, row: RouteRecordSource | TripRecordSource): RecordWarning[] {
  return saidWarnings(storedWarnings(row.warnings), warnedTrack(type, row));
}

/**
 * The warnings column (migration 7) as the library's warnings: none for null (rows stored before
 * it) or for anything that is not such an array.
 */
export function storedWarnings(json: string | null): Warning[] {
  return storedJsonArray(json).filter(
    (item): item is Warning =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as Partial<Warning>).code === 'string' &&
      typeof (item as Partial<Warning>).message === 'string',
  );
}

/**
 * The items of a column that holds a JSON array (laps, warnings): none for null (a row stored before
 * the column), for text that is not JSON, or for anything but an array.
 */
export function storedJsonArray(json: string | null): unknown[] {
  if (json === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? (parsed as unknown[]) : [];
}

/** What the words for a warning need of a stored route or trip (warning-words.ts). */
export function warnedTrack(type: AssetType, row: RouteRecordSource | TripRecordSource): WarnedTrack {
  const trip = type === 'trip' ? (row as TripRecordSource) : null;
  return {
    kind: type === 'trip' ? 'ride' : 'route',
    departedAtMs: trip?.departed_at ?? null,
    lastPointAtMs: row.last_point_at,
    timeZone: trip?.time_zone ?? null,
  };
}

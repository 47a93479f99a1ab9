/**
 * The v1 wire shapes (docs/contributors/decisions.md §2), each written once as the JSON schema that
 * serializes it and documents it in the OpenAPI document (issue 35): the server's TypeScript types are
 * derived from these schemas (RecordOf), and the client's are generated from the document
 * (scripts/generate-client-types.ts), so neither can drift from what the server sends. A schema's
 * `title` names its type in the client. Times are ISO 8601 UTC with offset; a value the data does not
 * give is null; `email` only when the caller is that user.
 *
 * Below the store and the HTTP handlers, so that both can use the shapes: the store renders the route
 * and trip records it keeps (store/asset-records.ts), the v1 handlers send them (api/v1/records.ts).
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { HTTP_ERROR_CODES } from '../errors.js';
import { ID_RANGE, wholeNumberSchema } from '../whole-numbers.js';

/**
 * Every object of schema `S` closed, as the records are: the server sends the properties its schema
 * lists and no other (fast-json-stringify leaves the rest out), so the types have no index signature.
 * The schemas themselves stay open: clients must tolerate keys a later server adds (docs/integrators/api.md).
 */
type Closed<S> = S extends { readonly type: 'object' }
  ? {
      readonly [K in keyof S]: K extends 'properties'
        ? { readonly [P in keyof S[K]]: Closed<S[K][P]> }
        : S[K];
    } & { readonly additionalProperties: false }
  : S extends { readonly type: 'array'; readonly items: infer Items }
    ? { readonly [K in keyof S]: K extends 'items' ? Closed<Items> : S[K] }
    : S extends { readonly oneOf: readonly unknown[] }
      ? {
          readonly [K in keyof S]: K extends 'oneOf' ? { readonly [I in keyof S[K]]: Closed<S[K][I]> } : S[K];
        }
      : S;

/** The TypeScript type of what a record schema serializes (issue 35: the schema is the one source). */
export type RecordOf<S> = Closed<S> extends infer Schema extends JSONSchema ? FromSchema<Schema> : never;

/** The keys of a properties table, as the literal names `required` lists for RecordOf. */
function keysOf<T extends object>(properties: T): (keyof T & string)[] {
  return Object.keys(properties) as (keyof T & string)[];
}

/** JSON schema of a user record, for response serialization and the OpenAPI document. */
export const USER_SCHEMA = {
  type: 'object',
  title: 'UserRecord',
  description: 'A user: `email` only when the caller is that user.',
  required: ['id', 'name', 'display_name', 'created_at', 'updated_at', 'first_name', 'last_name'],
  // In the order the fields are sent: fast-json-stringify writes the required ones first, in this order.
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    display_name: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    first_name: { type: ['string', 'null'] },
    last_name: { type: ['string', 'null'] },
    email: { type: ['string', 'null'], description: 'only when the caller is this user' },
  },
} as const;

export type UserRecord = RecordOf<typeof USER_SCHEMA>;

/**
 * A v1 error body (api/v1/errors.ts): the problems in words, and at the same index each one's code
 * from the server's catalogue (errors.ts, issue 35).
 */
export const ERRORS_SCHEMA = {
  type: 'object',
  required: ['errors', 'error_codes'],
  properties: {
    errors: { type: 'array', items: { type: 'string' }, description: 'one sentence per problem, for people' },
    error_codes: {
      type: 'array',
      items: { type: 'string', enum: HTTP_ERROR_CODES },
      description: "each problem's stable code, for programs: as many as `errors`, in the same order",
    },
  },
} as const;

const NUMBER_OR_NULL = { type: ['number', 'null'] } as const;
const VISIBILITY_SCHEMA = {
  type: 'string',
  title: 'Visibility',
  description: 'who may see it: anyone, friends only, or its owner alone',
  enum: ['public', 'friends_only', 'private'],
} as const;

const ROUTE_PROPERTIES = {
  id: { type: 'integer' },
  url: {
    type: 'string',
    format: 'uri',
    description: "this record's URL on the interface that answered (v1 or legacy)",
  },
  name: { type: 'string' },
  description: { type: ['string', 'null'] },
  user_id: { type: 'integer', description: 'the owner' },
  visibility: VISIBILITY_SCHEMA,
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
  distance: { ...NUMBER_OR_NULL, description: 'metres' },
  elevation_gain: { ...NUMBER_OR_NULL, description: 'metres' },
  elevation_loss: { ...NUMBER_OR_NULL, description: 'metres' },
  first_lat: NUMBER_OR_NULL,
  first_lng: NUMBER_OR_NULL,
  last_lat: NUMBER_OR_NULL,
  last_lng: NUMBER_OR_NULL,
  sw_lat: { ...NUMBER_OR_NULL, description: 'south-west corner of the bounds' },
  sw_lng: NUMBER_OR_NULL,
  ne_lat: { ...NUMBER_OR_NULL, description: 'north-east corner of the bounds' },
  ne_lng: NUMBER_OR_NULL,
  track_type: {
    type: 'string',
    title: 'TrackType',
    description: 'the shape of the track',
    enum: ['loop', 'out_and_back', 'point_to_point', 'unknown'],
  },
  terrain: {
    type: 'string',
    title: 'Terrain',
    description: 'how hilly the track is',
    enum: ['flat', 'rolling', 'climbing'],
  },
  warnings: {
    type: 'array',
    description:
      'what was wrong with the file it was read from (cut off, damaged, …); empty for a sound file (issue 16)',
    items: {
      type: 'object',
      title: 'RecordWarning',
      description: 'One problem of the file a route or trip was read from.',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'stable, for programs, e.g. RIDEFILE_TRUNCATED' },
        message: {
          type: 'string',
          description: 'plain words for people, e.g. "This file ends early: the ride was read up to 14:32."',
        },
      },
    },
  },
} as const;

const TRIP_PROPERTIES = {
  ...ROUTE_PROPERTIES,
  departed_at: { type: ['string', 'null'], format: 'date-time' },
  time_zone: { type: ['string', 'null'], description: 'IANA time zone at the first position' },
  activity_type: {
    type: ['string', 'null'],
    description: 'e.g. cycling:road, cycling:virtual, running:generic',
  },
  is_stationary: { type: 'boolean', description: 'no positions, or an indoor or virtual activity' },
  duration: { ...NUMBER_OR_NULL, description: 'elapsed seconds' },
  moving_time: { ...NUMBER_OR_NULL, description: 'seconds' },
  avg_speed: { ...NUMBER_OR_NULL, description: 'km/h' },
  max_speed: { ...NUMBER_OR_NULL, description: 'km/h' },
  avg_cad: { ...NUMBER_OR_NULL, description: 'rpm' },
  min_cad: NUMBER_OR_NULL,
  max_cad: NUMBER_OR_NULL,
  avg_hr: { ...NUMBER_OR_NULL, description: 'bpm' },
  min_hr: NUMBER_OR_NULL,
  max_hr: NUMBER_OR_NULL,
  avg_watts: { ...NUMBER_OR_NULL, description: 'W' },
  min_watts: NUMBER_OR_NULL,
  max_watts: NUMBER_OR_NULL,
  calories: { ...NUMBER_OR_NULL, description: 'kcal' },
  device: { type: ['string', 'null'], description: 'e.g. Garmin Edge 530' },
  external_id: {
    type: ['string', 'null'],
    description:
      "the uploader's own id of the upload the trip came from (Strava's external_id); null without one",
  },
} as const;

/** A legacy track point (docs/integrators/api.md, "Track point"): every key optional. */
export const TRACK_POINT_SCHEMA = {
  type: 'object',
  title: 'TrackPoint',
  description:
    'A legacy track point: single-letter keys, each present only when known. `t` is whole Unix seconds, ' +
    'never milliseconds; `s` and `d` only from a wheel sensor.',
  properties: {
    x: { type: 'number', description: 'longitude' },
    y: { type: 'number', description: 'latitude' },
    e: { type: 'number', description: 'elevation, m' },
    t: { type: 'integer', description: 'time, Unix seconds (not milliseconds)' },
    c: { type: 'number', description: 'cadence, rpm' },
    h: { type: 'number', description: 'heart rate, bpm' },
    p: { type: 'number', description: 'power, W' },
    s: { type: 'number', description: 'speed, m/s (wheel sensor only)' },
    d: { type: 'number', description: 'distance from start, m (wheel sensor only)' },
    T: { type: 'number', description: 'temperature, °C' },
  },
} as const;

const TRACK_POINTS_PROPERTY = {
  track_points: { type: 'array', items: TRACK_POINT_SCHEMA, description: 'single-record responses only' },
} as const;

const ROUTE_DESCRIPTION = 'A route. Distances and elevations in m; null when the file does not give them.';
const TRIP_DESCRIPTION = "A trip (ride): a route's fields plus the ride's; speeds in km/h, times in s.";
const WITH_POINTS = ' A single-record answer adds the points (list items leave them out).';

export const ROUTE_SCHEMA = {
  type: 'object',
  title: 'RouteRecord',
  description: ROUTE_DESCRIPTION,
  required: keysOf(ROUTE_PROPERTIES),
  properties: ROUTE_PROPERTIES,
} as const;

export const ROUTE_WITH_POINTS_SCHEMA = {
  type: 'object',
  title: 'RouteWithTrackPoints',
  description: ROUTE_DESCRIPTION + WITH_POINTS,
  required: [...keysOf(ROUTE_PROPERTIES), 'track_points'],
  properties: { ...ROUTE_PROPERTIES, ...TRACK_POINTS_PROPERTY },
} as const;

export const TRIP_SCHEMA = {
  type: 'object',
  title: 'TripRecord',
  description: TRIP_DESCRIPTION,
  required: keysOf(TRIP_PROPERTIES),
  properties: TRIP_PROPERTIES,
} as const;

export const TRIP_WITH_POINTS_SCHEMA = {
  type: 'object',
  title: 'TripWithTrackPoints',
  description: TRIP_DESCRIPTION + WITH_POINTS,
  required: [...keysOf(TRIP_PROPERTIES), 'track_points'],
  properties: { ...TRIP_PROPERTIES, ...TRACK_POINTS_PROPERTY },
} as const;

export type RouteRecord = RecordOf<typeof ROUTE_SCHEMA>;
export type TripRecord = RecordOf<typeof TRIP_SCHEMA>;
export type TrackPoint = RecordOf<typeof TRACK_POINT_SCHEMA>;
export type RecordWarning = RouteRecord['warnings'][number];
export type TrackType = RouteRecord['track_type'];
export type Terrain = RouteRecord['terrain'];

export const EVENT_SCHEMA = {
  type: 'object',
  title: 'EventRecord',
  description: 'An event. Dates are YYYY-MM-DD.',
  required: [
    'id',
    'name',
    'description',
    'location',
    'url',
    'start_date',
    'end_date',
    'visibility',
    'user_id',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    location: { type: ['string', 'null'] },
    url: { type: ['string', 'null'], description: "the event's own web page" },
    start_date: { type: 'string', format: 'date' },
    end_date: { type: ['string', 'null'], format: 'date' },
    visibility: VISIBILITY_SCHEMA,
    user_id: { type: 'integer', description: 'the organiser' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

export type EventRecord = RecordOf<typeof EVENT_SCHEMA>;

/** `meta.pagination` (docs/integrators/api.md, "Pagination metadata"). */
export const PAGINATION_META_SCHEMA = {
  type: 'object',
  title: 'PageMeta',
  description: 'The `meta` of a v1 list.',
  required: ['pagination'],
  properties: {
    pagination: {
      type: 'object',
      title: 'PaginationMeta',
      description: 'Where a page stands in the whole list.',
      required: ['record_count', 'page_count', 'page_size', 'next_page_url'],
      properties: {
        record_count: { type: 'integer' },
        page_count: { type: 'integer' },
        page_size: { type: 'integer' },
        next_page_url: { type: ['string', 'null'], format: 'uri', description: 'null on the last page' },
      },
    },
  },
} as const;

/** A v1 list's answer (docs/contributors/decisions.md §2): the records under their plural root key, and `meta.pagination`. */
export function listResponseSchema(root: string, items: object): object {
  return {
    type: 'object',
    required: [root, 'meta'],
    properties: { [root]: { type: 'array', items }, meta: PAGINATION_META_SCHEMA },
  };
}

/** Path parameter `{id}` of the single-record endpoints. */
export const ID_PARAMS_SCHEMA = {
  type: 'object',
  required: ['id'],
  properties: { id: wholeNumberSchema(ID_RANGE) },
} as const;

export const CLUB_SCHEMA = {
  type: 'object',
  title: 'ClubRecord',
  description: 'A club: its name, description and member count.',
  required: ['id', 'url', 'name', 'description', 'member_count', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    url: { type: 'string', format: 'uri' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    member_count: { type: 'integer', description: 'administrators and members' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

export type ClubRecord = RecordOf<typeof CLUB_SCHEMA>;

export const NO_CONTENT_SCHEMA = { type: 'null', description: 'deleted; the body is empty' } as const;

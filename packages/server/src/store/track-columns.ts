/**
 * A parsed track → the columns of a route or trip (docs/contributors/decisions.md §2, route and trip records): everything
 * comes from the track's summary as @rideport/ridefile computed it; a value the file does not give stays
 * null. Units: metres, seconds, km/h for the speeds (the record's unit), Unix milliseconds for times.
 */
import tzLookup from '@photostructure/tz-lookup';
import type { Track, TrackColumns, TrackPoint } from '@rideport/ridefile';
import type { AssetColumns, TripsTable } from '../db/schema.js';

/** The columns of docs/contributors/decisions.md §2 that routes and trips share, without owner, name and times. */
export type TrackAssetColumns = Pick<
  AssetColumns,
  | 'distance'
  | 'elevation_gain'
  | 'elevation_loss'
  | 'first_lat'
  | 'first_lng'
  | 'last_lat'
  | 'last_lng'
  | 'sw_lat'
  | 'sw_lng'
  | 'ne_lat'
  | 'ne_lng'
  | 'track_type'
  | 'terrain'
  | 'point_count'
>;

/** The columns trips add (docs/contributors/decisions.md §2). */
export type TrackTripColumns = Omit<TripsTable, keyof AssetColumns>;

const METERS_PER_SECOND_TO_KM_PER_HOUR = 3.6;

export function assetColumns(track: Track): TrackAssetColumns {
  const { summary } = track;
  return {
    distance: summary.distanceMeters,
    elevation_gain: summary.elevationGainMeters,
    elevation_loss: summary.elevationLossMeters,
    first_lat: summary.firstPosition?.lat ?? null,
    first_lng: summary.firstPosition?.lng ?? null,
    last_lat: summary.lastPosition?.lat ?? null,
    last_lng: summary.lastPosition?.lng ?? null,
    sw_lat: summary.bounds?.swLat ?? null,
    sw_lng: summary.bounds?.swLng ?? null,
    ne_lat: summary.bounds?.neLat ?? null,
    ne_lng: summary.bounds?.neLng ?? null,
    track_type: summary.trackType,
    terrain: summary.terrain,
    point_count: track.points.length,
  };
}

/** The first and last timed point of a track, whole Unix seconds. */
export interface TimeRange {
  first: number;
  last: number;
}

/**
 * The first and last timed point, in the order of the points; null when no point has a time. A last
 * point dated before the first (a clock set backwards) ends the range where it begins.
 */
export function timeRange(points: readonly TrackPoint[]): TimeRange | null {
  let first: number | undefined;
  let last: number | undefined;
  for (const point of points) {
    if (point.t === undefined) continue;
    first ??= point.t;
    last = point.t;
  }
  return first === undefined || last === undefined ? null : { first, last: Math.max(first, last) };
}

/** `timeRange` of a track's columns (`parseRideFileColumns`): the same rule over its `t` channel. */
export function columnTimeRange(track: TrackColumns): TimeRange | null {
  const { t } = track;
  if (t === undefined) return null;
  let first = NaN;
  let last = NaN;
  for (let i = 0; i < track.length; i++) {
    const time = t[i]!;
    if (Number.isNaN(time)) continue;
    if (Number.isNaN(first)) first = time;
    last = time;
  }
  return Number.isNaN(first) ? null : { first, last: Math.max(first, last) };
}

/**
 * `range`: the track's timeRange, given when its points are not at hand (the upload queue packs them
 * in its worker threads and measures the range there).
 */
export function tripColumns(track: Track, range = timeRange(track.points)): TrackTripColumns {
  const { summary } = track;
  const speed = summary.speedMetersPerSecond;
  const kmh = (metersPerSecond: number | undefined): number | null =>
    metersPerSecond === undefined ? null : metersPerSecond * METERS_PER_SECOND_TO_KM_PER_HOUR;
  const activity = activityType(track);
  return {
    // Track.startTime is Unix seconds and may carry a fraction (TCX times with milliseconds).
    departed_at: track.startTime === null ? null : Math.round(track.startTime * 1000),
    time_zone:
      summary.firstPosition === null
        ? null
        : timeZoneAt(summary.firstPosition.lat, summary.firstPosition.lng),
    activity_type: activity,
    is_stationary: isStationary(track, activity) ? 1 : 0,
    duration: summary.elapsedSeconds,
    moving_time: summary.movingSeconds,
    avg_speed: kmh(speed?.avg),
    max_speed: kmh(speed?.max),
    avg_cad: summary.cadenceRpm?.avg ?? null,
    min_cad: summary.cadenceRpm?.min ?? null,
    max_cad: summary.cadenceRpm?.max ?? null,
    avg_hr: summary.heartRateBpm?.avg ?? null,
    min_hr: summary.heartRateBpm?.min ?? null,
    max_hr: summary.heartRateBpm?.max ?? null,
    avg_watts: summary.powerWatts?.avg ?? null,
    min_watts: summary.powerWatts?.min ?? null,
    max_watts: summary.powerWatts?.max ?? null,
    calories: summary.calories,
    device: summary.device,
    // issue 16, "One ride per ride": what identifies the recording, and the points' time range.
    recording_serial: track.recording.serialNumber,
    recording_created_at: track.recording.timeCreated === null ? null : track.recording.timeCreated * 1000,
    started_at: range === null ? null : range.first * 1000,
    ended_at: range === null ? null : range.last * 1000,
  };
}

/** The IANA time zone at a position (docs/contributors/decisions.md §2: "IANA name from the first position"). */
export function timeZoneAt(lat: number, lng: number): string | null {
  try {
    return tzLookup(lat, lng);
  } catch {
    // tz-lookup throws for coordinates outside the valid range; the record then says "unknown".
    return null;
  }
}

/**
 * Sub-sports whose name says something other than the activity_type word (FIT sub_sport names, as
 * ridefile normalises them to snake_case); any other sub-sport is used as it is.
 */
const SUB_SPORT_WORDS: Readonly<Record<string, string>> = {
  virtual_activity: 'virtual',
  indoor_cycling: 'indoor',
  spin: 'indoor',
  gravel_cycling: 'gravel',
  track_cycling: 'track',
  hand_cycling: 'hand',
  indoor_hand_cycling: 'hand',
  e_bike_mountain: 'e_mountain',
  e_bike_fitness: 'e_bike',
  indoor_running: 'treadmill',
  street: 'road',
};

/**
 * Virtual-ride programs that write sport cycling without the virtual_activity sub-sport (docs/contributors/architecture.md lists
 * them beside the sub-sport for the same reason: their positions and speeds are simulated).
 */
const VIRTUAL_RIDE_DEVICES =
  /\b(zwift|mywhoosh|trainingpeaks virtual|rouvy|fulgaz|bkool|rgt cycling|indievelo)\b/i;

/**
 * `<sport>:<kind>` as docs/contributors/decisions.md §2 spells it (`cycling:road`, `cycling:virtual`, `running:generic`):
 * the normalised sport, then the sub-sport (`generic` when the file names none). Null when the file
 * does not say what the sport was (most GPX and KML files).
 */
export function activityType(track: Pick<Track, 'sport' | 'subSport' | 'summary'>): string | null {
  const { sport, subSport } = track;
  if (sport === null) return null;
  // FIT and the XML readers spell e-bikes as a sport of their own; the record files them under cycling.
  if (sport === 'e_biking') return subSport === 'e_bike_mountain' ? 'cycling:e_mountain' : 'cycling:e_bike';
  if (
    sport === 'cycling' &&
    track.summary.device !== null &&
    VIRTUAL_RIDE_DEVICES.test(track.summary.device)
  ) {
    return 'cycling:virtual';
  }
  // Own keys only: a sub-sport named `__proto__` in a file must not find Object.prototype.
  const kind =
    subSport === null
      ? 'generic'
      : ((Object.hasOwn(SUB_SPORT_WORDS, subSport) ? SUB_SPORT_WORDS[subSport] : undefined) ?? subSport);
  return `${sport}:${kind}`;
}

const STATIONARY_KINDS = new Set(['virtual', 'indoor', 'treadmill', 'indoor_rowing', 'indoor_walking']);

/**
 * A trip that went nowhere: no positions at all (a trainer, a treadmill, a heart-rate-only recording),
 * or an indoor or virtual activity, whose positions, if any, are simulated.
 */
function isStationary(track: Track, activity: string | null): boolean {
  if (track.summary.firstPosition === null) return true;
  const kind = activity?.slice(activity.indexOf(':') + 1);
  return kind !== undefined && STATIONARY_KINDS.has(kind);
}

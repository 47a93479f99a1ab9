import type { PointColumns } from '../columns.js';
import { haversineMeters } from '../geo.js';
import type { Bounds, Position, Terrain, TrackType } from '../model.js';

export function positionSummary(columns: PointColumns): {
  bounds: Bounds | null;
  first: Position | null;
  last: Position | null;
  /** rows with a position */
  count: number;
} {
  const { x, y } = columns;
  let firstIndex = -1;
  let lastIndex = -1;
  let count = 0;
  let swLat = Infinity;
  let swLng = Infinity;
  let neLat = -Infinity;
  let neLng = -Infinity;
  const n = columns.length;
  for (let i = 0; i < n; i++) {
    const lat = y[i]!;
    const lng = x[i]!;
    if (Number.isNaN(lat) || Number.isNaN(lng)) continue;
    if (firstIndex < 0) firstIndex = i;
    lastIndex = i;
    count++;
    if (lat < swLat) swLat = lat;
    if (lat > neLat) neLat = lat;
    if (lng < swLng) swLng = lng;
    if (lng > neLng) neLng = lng;
  }
  if (firstIndex < 0) return { bounds: null, first: null, last: null, count };
  return {
    bounds: { swLat, swLng, neLat, neLng },
    first: { lat: y[firstIndex]!, lng: x[firstIndex]! },
    last: { lat: y[lastIndex]!, lng: x[lastIndex]! },
    count,
  };
}

/** Start and end closer than this (or than 5 % of the length, if more) make a loop. */
const LOOP_CLOSE_METERS = 250;
/** A point of the way back this close to the way out is on the same road. */
const RETRACE_METERS = 60;
/** An out-and-back retraces at least this share of its way back. */
const RETRACE_SHARE = 0.7;
/** At most this many positions are compared when looking for a retraced path. */
const RETRACE_SAMPLES = 300;

/**
 * `loop` when the track ends near where it started; `out_and_back` when, in addition, most of the way
 * back runs along the way out; `point_to_point` otherwise; `unknown` without two positions.
 * `positionCount`: the rows with a position, when the caller has counted them (positionSummary).
 */
export function trackType(
  columns: PointColumns,
  distanceMeters: number | null,
  positionCount = positionSummary(columns).count,
): TrackType {
  // Without two positions there is nothing to sample (an indoor ride's 100,000 rows need no walk).
  if (positionCount < 2) return 'unknown';
  // Two positions or more: the sample holds the first and the last, so at least two.
  const sample = samplePositions(columns, positionCount, RETRACE_SAMPLES);
  const { lat, lng, count } = sample;
  const startLat = lat[0]!;
  const startLng = lng[0]!;
  const gap = haversineMeters(startLat, startLng, lat[count - 1]!, lng[count - 1]!);
  const length = distanceMeters ?? pathLength(sample);
  if (length <= 0) return 'unknown';
  if (gap > Math.max(LOOP_CLOSE_METERS, 0.05 * length)) return 'point_to_point';

  // Split at the point farthest from the start; an out-and-back comes back along the same road.
  let farthest = 0;
  let farthestDistance = -1;
  for (let i = 0; i < count; i++) {
    const distance = haversineMeters(startLat, startLng, lat[i]!, lng[i]!);
    if (distance > farthestDistance) {
      farthestDistance = distance;
      farthest = i;
    }
  }
  // The way out is sample[0 … farthest], the way back sample[farthest + 1 …].
  const backCount = count - farthest - 1;
  if (backCount === 0 || farthestDistance < LOOP_CLOSE_METERS) return 'loop';
  // Positions this close are compared on a local plane: exact enough at tens of metres, and cheap.
  const metersPerDegreeLat = 111_195;
  const metersPerDegreeLng = metersPerDegreeLat * Math.cos((startLat * Math.PI) / 180);
  const limit = RETRACE_METERS * RETRACE_METERS;
  let retraced = 0;
  for (let back = farthest + 1; back < count; back++) {
    for (let out = 0; out <= farthest; out++) {
      const dy = (lat[back]! - lat[out]!) * metersPerDegreeLat;
      const dx = (lng[back]! - lng[out]!) * metersPerDegreeLng;
      if (dx * dx + dy * dy <= limit) {
        retraced++;
        break;
      }
    }
  }
  return retraced / backCount >= RETRACE_SHARE ? 'out_and_back' : 'loop';
}

interface PositionSample {
  lat: Float64Array;
  lng: Float64Array;
  count: number;
}

/** About `count` of the track's `total` positions, spread evenly, always including the last. */
function samplePositions(columns: PointColumns, total: number, count: number): PositionSample {
  const { x, y } = columns;
  const step = Math.max(1, Math.floor(total / count));
  const capacity = Math.ceil(total / step) + 1;
  const sample: PositionSample = {
    lat: new Float64Array(capacity),
    lng: new Float64Array(capacity),
    count: 0,
  };
  let seen = 0;
  let lastLat = NaN;
  let lastLng = NaN;
  const n = columns.length;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(y[i]!) || Number.isNaN(x[i]!)) continue;
    if (seen % step === 0) {
      sample.lat[sample.count] = y[i]!;
      sample.lng[sample.count] = x[i]!;
      sample.count++;
    }
    seen++;
    lastLat = y[i]!;
    lastLng = x[i]!;
  }
  if (total > 0 && (total - 1) % step !== 0) {
    sample.lat[sample.count] = lastLat;
    sample.lng[sample.count] = lastLng;
    sample.count++;
  }
  return sample;
}

function pathLength({ lat, lng, count }: PositionSample): number {
  let total = 0;
  for (let i = 1; i < count; i++) total += haversineMeters(lat[i - 1]!, lng[i - 1]!, lat[i]!, lng[i]!);
  return total;
}

/** Climbing per kilometre below which a track is flat, and above which it is climbing. */
const FLAT_METERS_PER_KM = 5;
const CLIMBING_METERS_PER_KM = 12;

/** `flat`, `rolling` or `climbing`, by elevation gain per kilometre (flat when either is unknown). */
export function terrain(gainMeters: number | null, distanceMeters: number | null): Terrain {
  if (gainMeters === null || distanceMeters === null || distanceMeters < 100) return 'flat';
  const perKm = gainMeters / (distanceMeters / 1000);
  if (perKm < FLAT_METERS_PER_KM) return 'flat';
  return perKm < CLIMBING_METERS_PER_KM ? 'rolling' : 'climbing';
}

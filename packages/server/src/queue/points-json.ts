/**
 * The stored JSON of a track's points (store/track-points.ts), rendered fast enough for the upload
 * queue's worker threads (issue 5, bench/upload): a 1 MB FIT file holds 24,000 points, which
 * trackPointsJson renders in about 190 ms here; the engine's JSON.stringify does it in about 45 ms.
 */
import { TRACK_POINT_KEYS, type TrackPoint } from '@rideport/ridefile';
import { trackPointsJson } from '../store/track-points.js';

/** Each key's place in the stored order (no prototype: a point's other keys are simply absent). */
const KEY_INDEX: Readonly<Record<string, number>> = Object.assign(
  Object.create(null) as Record<string, number>,
  Object.fromEntries(TRACK_POINT_KEYS.map((key, index) => [key, index])),
);

const KEY_LIST: string[] = [...TRACK_POINT_KEYS];

/**
 * Exactly the text of trackPointsJson(points), for points as @rideport/ridefile makes them (plain
 * objects). JSON.stringify writes a finite number as String(number) does, as trackPointsJson does:
 * - when every point's keys already come in the stored order, each value a finite number (as ridefile
 *   builds them), plain JSON.stringify writes the stored text;
 * - otherwise JSON.stringify with TRACK_POINT_KEYS as its property list puts the keys in that order
 *   and leaves out absent ones, but writes a non-finite number as `null` where trackPointsJson leaves
 *   the key out: the text of numbers and one-letter keys never holds "null" otherwise, so such (rare)
 *   points are rendered again by trackPointsJson itself.
 */
export function renderPointsJson(points: readonly TrackPoint[]): string {
  if (inStoredOrder(points)) return JSON.stringify(points);
  const json = JSON.stringify(points, KEY_LIST);
  return json.includes('null') ? trackPointsJson(points) : json;
}

function inStoredOrder(points: readonly TrackPoint[]): boolean {
  for (const point of points) {
    let last = -1;
    for (const key in point) {
      const index = KEY_INDEX[key];
      if (index === undefined || index <= last) return false;
      const value: unknown = point[key as keyof TrackPoint];
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
      last = index;
    }
  }
  return true;
}

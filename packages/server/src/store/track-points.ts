/**
 * The stored form of a route's or trip's points (issue 4): the JSON array text of legacy track points
 * (platform-api.md, "Track point"), keys in the specification's order, so that the single-record
 * responses splice it in as it is, without parsing or re-serialising thousands of points per request.
 */
import { TRACK_POINT_KEYS, type TrackPoint } from '@rideport/ridefile';

/**
 * `[{"x":7.1,"y":46.2,"e":510,"t":1717232400},…]`: each point's known keys in the order x y e t c h p
 * s d T. A value that is not a finite number is left out (JSON has no NaN; the key is optional).
 */
export function trackPointsJson(points: readonly TrackPoint[]): string {
  const parts = new Array<string>(points.length);
  for (let i = 0; i < points.length; i++) {
    const point = points[i]!;
    let text = '';
    for (const key of TRACK_POINT_KEYS) {
      const value = point[key];
      if (value === undefined || !Number.isFinite(value)) continue;
      // String(number) is JSON's own number syntax for every finite number.
      text += `${text === '' ? '{' : ','}"${key}":${value}`;
    }
    parts[i] = text === '' ? '{}' : `${text}}`;
  }
  return `[${parts.join(',')}]`;
}

/** Which of a track's point channels (the single-letter keys) occur, and on how many points. */
import { TRACK_POINT_KEYS, type TrackPoint, type TrackPointKey } from '@rideport/ridefile';

export type ChannelCounts = Partial<Record<TrackPointKey, number>>;

/** The keys present on at least one point, in the specification's order, with their counts. */
export function channelCounts(points: readonly TrackPoint[]): ChannelCounts {
  const counts = new Array<number>(TRACK_POINT_KEYS.length).fill(0);
  for (const point of points) {
    for (let k = 0; k < TRACK_POINT_KEYS.length; k++) {
      if (point[TRACK_POINT_KEYS[k]!] !== undefined) counts[k]!++;
    }
  }
  const present: ChannelCounts = {};
  TRACK_POINT_KEYS.forEach((key, k) => {
    if (counts[k]! > 0) present[key] = counts[k]!;
  });
  return present;
}

/**
 * What each letter is (issue 35: `inspect` printed `x 30, y 30, … T 30` with no legend), in the words
 * the letters stand for in the track point format.
 */
export const CHANNEL_NAMES: Readonly<Record<TrackPointKey, string>> = {
  x: 'longitude',
  y: 'latitude',
  e: 'elevation',
  t: 'time',
  c: 'cadence',
  h: 'heart rate',
  p: 'power',
  s: 'speed from a wheel sensor',
  d: 'distance from a wheel sensor',
  T: 'temperature',
};

/**
 * `x longitude`, `h heart rate on 12 of 30 points`: each letter with its name, and a count only where
 * the channel is not on every point; `none` alone for a track without any.
 */
export function channelWords(counts: ChannelCounts, pointCount: number): string[] {
  const keys = TRACK_POINT_KEYS.filter((key) => counts[key] !== undefined);
  if (keys.length === 0) return ['none'];
  return keys.map((key) => {
    const count = counts[key]!;
    const where = count === pointCount ? '' : ` on ${count} of ${pointCount} points`;
    return `${key} ${CHANNEL_NAMES[key]}${where}`;
  });
}

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

/**
 * The `convert --to points` document (docs/contributors/architecture.md: `{"format", "tracks": [{"kind", "name", "points":
 * [...]}]}`), produced in chunks: a track may hold 2,000,000 points (docs/contributors/decisions.md §7) and one string
 * of all of them would be hundreds of megabytes on top of the points themselves.
 */
import type { RideFile, TrackPoint } from '@rideport/ridefile';

/** Points per chunk: large enough that the per-chunk cost vanishes, small enough to stay a few 100 kB. */
export const POINTS_PER_CHUNK = 4096;

/** The JSON document as consecutive chunks; concatenated they are one JSON value and a newline. */
export function* pointsJsonChunks(ride: RideFile, pointsPerChunk = POINTS_PER_CHUNK): Generator<string> {
  yield `{"format":${JSON.stringify(ride.format)},"tracks":[`;
  for (const [index, track] of ride.tracks.entries()) {
    const head = `{"kind":${JSON.stringify(track.kind)},"name":${JSON.stringify(track.name)},"points":[`;
    yield index === 0 ? head : `,${head}`;
    for (let start = 0; start < track.points.length; start += pointsPerChunk) {
      const batch = pointsJson(track.points.slice(start, start + pointsPerChunk));
      yield start === 0 ? batch : `,${batch}`;
    }
    yield ']}';
  }
  yield ']}\n';
}

/** The points joined by commas, without the brackets (one stringify per batch, not per point). */
function pointsJson(points: readonly TrackPoint[]): string {
  return JSON.stringify(points).slice(1, -1);
}

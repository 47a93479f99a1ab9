import type { RideFile, TrackPoint } from '@rideport/ridefile';
import { parseRideFile } from '@rideport/ridefile';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../test/support/corpus.js';
import { POINTS_PER_CHUNK, pointsJsonChunks } from './points-json.js';

const sample = parseRideFile(readFixture('gpx', 'sample-ride.gpx'));

function expected(ride: RideFile): unknown {
  return {
    format: ride.format,
    tracks: ride.tracks.map((track) => ({ kind: track.kind, name: track.name, points: track.points })),
  };
}

describe('pointsJsonChunks', () => {
  it.each([1, 2, 7, 29, 30, 31, POINTS_PER_CHUNK])(
    'makes one JSON document whatever the chunk size (%i)',
    (size) => {
      const chunks = [...pointsJsonChunks(sample, size)];
      const text = chunks.join('');
      expect(text.endsWith('\n')).toBe(true);
      expect(JSON.parse(text)).toEqual(expected(sample));
      // header, track head, point batches, track end, document end
      expect(chunks).toHaveLength(4 + Math.ceil(30 / size));
    },
  );

  it('joins several tracks and keeps names that need escaping', () => {
    const track = sample.tracks[0]!;
    const points: TrackPoint[] = [{ x: 1, y: 2 }, { t: 3 }];
    const ride: RideFile = {
      ...sample,
      tracks: [
        { ...track, name: 'say "hi"\n' },
        { ...track, kind: 'route', name: null, points },
      ],
    };
    expect(JSON.parse([...pointsJsonChunks(ride, 1)].join(''))).toEqual(expected(ride));
  });

  it('never builds one string for a large track: every chunk stays bounded', () => {
    const points: TrackPoint[] = Array.from({ length: 50_000 }, (_, i) => ({
      x: 8.5,
      y: 47.3,
      t: i,
      h: 120,
    }));
    const ride: RideFile = { ...sample, tracks: [{ ...sample.tracks[0]!, points }] };
    const chunks = [...pointsJsonChunks(ride)];
    const longest = Math.max(...chunks.map((chunk) => chunk.length));
    expect(longest).toBeLessThan(POINTS_PER_CHUNK * 64);
    expect(
      (JSON.parse(chunks.join('')) as { tracks: { points: unknown[] }[] }).tracks[0]!.points,
    ).toHaveLength(50_000);
  });
});

import { TRACK_POINT_KEYS, type TrackPoint } from '@rideport/ridefile';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusFiles, readFixture } from '../../../../test/support/corpus.js';
import { readFileSync } from 'node:fs';
import { tracksOf } from '../test-support/assets.js';
import { trackPointsJson } from '../store/track-points.js';
import { renderPointsJson } from './points-json.js';

describe('renderPointsJson', () => {
  it('writes exactly what the store writes, for any points, whatever the order of their keys', () => {
    const value = fc.oneof(
      fc.double(),
      fc.integer({ min: -1e9, max: 1e9 }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, 5e-324),
    );
    const key = fc.constantFrom(...TRACK_POINT_KEYS, 'extra');
    // Entries in any order: a point's keys are inserted as they come (later repeats win).
    const point = fc
      .array(fc.tuple(key, value), { maxLength: 12 })
      .map((entries) => Object.fromEntries(entries) as TrackPoint);
    const ordered = fc
      .subarray([...TRACK_POINT_KEYS])
      .chain((keys) =>
        fc
          .tuple(...keys.map(() => fc.double({ noNaN: true, noDefaultInfinity: true })))
          .map((values) => Object.fromEntries(keys.map((name, i) => [name, values[i]])) as TrackPoint),
      );
    for (const points of [fc.array(point, { maxLength: 20 }), fc.array(ordered, { maxLength: 20 })]) {
      fc.assert(
        fc.property(points, (list) => {
          expect(renderPointsJson(list)).toBe(trackPointsJson(list));
        }),
      );
    }
  });

  it('writes exactly what the store writes, for every track of the fixtures and the corpus', () => {
    const files = [
      { name: 'sample-ride.gpx', bytes: readFixture('gpx', 'sample-ride.gpx') },
      { name: 'tracks-and-routes.gpx', bytes: readFixture('gpx', 'tracks-and-routes.gpx') },
      { name: 'multisport-wheel.fit', bytes: readFixture('fit', 'multisport-wheel.fit') },
      ...corpusFiles().map((file) => ({ name: file.name, bytes: new Uint8Array(readFileSync(file.path)) })),
    ];
    let tracks = 0;
    for (const file of files) {
      let read;
      try {
        read = tracksOf(file.bytes, file.name);
      } catch {
        continue;
      }
      for (const track of read) {
        tracks++;
        expect(renderPointsJson(track.points), file.name).toBe(trackPointsJson(track.points));
      }
    }
    expect(tracks).toBeGreaterThan(3);
  });
});

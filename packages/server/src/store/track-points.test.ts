import fc from 'fast-check';
import { TRACK_POINT_KEYS, type TrackPoint } from '@rideport/ridefile';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { tracksOf } from '../test-support/assets.js';
import { trackPointsJson } from './track-points.js';

describe('trackPointsJson', () => {
  it("writes each point's keys in the specification's order, whatever order the object has", () => {
    const point: TrackPoint = {
      T: 21,
      d: 12.5,
      s: 3.5,
      p: 200,
      h: 140,
      c: 90,
      t: 1717232400,
      e: 510,
      y: 46.2,
      x: 7.1,
    };
    expect(trackPointsJson([point])).toBe(
      '[{"x":7.1,"y":46.2,"e":510,"t":1717232400,"c":90,"h":140,"p":200,"s":3.5,"d":12.5,"T":21}]',
    );
  });

  it('leaves out keys without a finite value; an empty track is an empty array', () => {
    expect(trackPointsJson([{ x: 7, y: Number.NaN, e: Number.POSITIVE_INFINITY }, {}])).toBe('[{"x":7},{}]');
    expect(trackPointsJson([])).toBe('[]');
  });

  it('is the JSON of the points of a real file', () => {
    const [track] = tracksOf(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
    expect(JSON.parse(trackPointsJson(track!.points))).toEqual(track!.points);
  });

  it('is JSON.stringify of the same points, keys sorted the specification way (property)', () => {
    const value = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());
    const point = fc.record(Object.fromEntries(TRACK_POINT_KEYS.map((key) => [key, value])), {
      requiredKeys: [],
    }) as fc.Arbitrary<TrackPoint>;
    fc.assert(
      fc.property(fc.array(point, { maxLength: 20 }), (points) => {
        const ordered = points.map((p) =>
          Object.fromEntries(
            TRACK_POINT_KEYS.filter((key) => p[key] !== undefined).map((key) => [key, p[key]]),
          ),
        );
        expect(trackPointsJson(points)).toBe(JSON.stringify(ordered));
      }),
    );
  });
});

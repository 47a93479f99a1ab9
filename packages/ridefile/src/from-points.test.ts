import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../test/support/corpus.js';
import { trackFromPoints } from './from-points.js';
import { parseRideFile } from './parse.js';

describe('trackFromPoints', () => {
  const parsed = parseRideFile(readFixture('gpx', 'sample-ride.gpx')).tracks[0]!;

  it('gives the points and summary the parser gives for the same points', () => {
    const track = trackFromPoints(parsed.points, { name: parsed.name, sport: 'cycling' });
    expect(track.kind).toBe('ride');
    expect(track.points).toEqual(parsed.points);
    expect(track.startTime).toBe(parsed.startTime);
    expect(track.summary).toEqual(parsed.summary);
    expect(track.name).toBe(parsed.name);
  });

  it('treats speed and distance as wheel-sensor values, floors times, keeps points without a position', () => {
    const track = trackFromPoints([
      { t: 1_700_000_000.9, h: 120 },
      { x: 8, y: 47, t: 1_700_000_001, s: 5, d: 0 },
      { x: 8.0001, y: 47, t: 1_700_000_002, s: 5, d: 7.6 },
    ]);
    expect(track.sensors.wheelSensor).toBe(true);
    expect(track.points).toEqual([
      { t: 1_700_000_000, h: 120 },
      { x: 8, y: 47, t: 1_700_000_001, s: 5, d: 0 },
      { x: 8.0001, y: 47, t: 1_700_000_002, s: 5, d: 7.6 },
    ]);
    expect(track.summary.distanceMeters).toBe(7.6);
    expect(track.summary.distanceSource).toBe('points');
  });

  it('makes an untimed line a route, and nothing a route without points', () => {
    expect(
      trackFromPoints([
        { x: 8, y: 47 },
        { x: 8.1, y: 47.1 },
      ]).kind,
    ).toBe('route');
    const empty = trackFromPoints([]);
    expect(empty.points).toEqual([]);
    expect(empty.summary.pointCount).toBe(0);
  });
});

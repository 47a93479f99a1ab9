/**
 * The points' JSON at their first reading (issue 36): a large track is rendered in a thread, a small
 * one where it is asked for, and both are the text the codec renders, point for point.
 */
import fc from 'fast-check';
import type { TrackPoint } from '@rideport/ridefile';
import { afterAll, describe, expect, it } from 'vitest';
import { packedPointCount, packedPointsJson, packTrackPoints } from '../codec/track-points.js';
import { PointsRenderer, RENDER_IN_THREAD_FROM_POINTS } from './points-renderer.js';

const renderer = new PointsRenderer();
afterAll(() => renderer.close());

/** A ride of `count` points, a second apart, with positions, elevation, heart rate and power. */
function ride(count: number): TrackPoint[] {
  return Array.from({ length: count }, (_, i) => ({
    x: 8.54 + i * 1e-5,
    y: 47.37 + Math.sin(i / 100) * 1e-3,
    e: 400 + (i % 50) * 0.2,
    t: 1_717_232_400 + i,
    h: 120 + (i % 40),
    p: (i * 7) % 400,
  }));
}

describe('PointsRenderer', () => {
  it('renders a large track in a thread of its own, as the codec renders it', async () => {
    const packed = packTrackPoints(ride(60_000));
    expect(packedPointCount(packed)).toBeGreaterThanOrEqual(RENDER_IN_THREAD_FROM_POINTS);
    // Rendered where asked, the answer would come before any timer could fire; from a thread, the
    // event loop keeps turning while it renders.
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 1);
    const json = await renderer.render(packed);
    clearInterval(ticker);
    expect(json.toString('utf8')).toBe(packedPointsJson(packed));
    expect(turns).toBeGreaterThan(0);
  });

  it('gives the codec’s text for any track, small or large (property)', async () => {
    const points = fc.array(
      fc.record(
        {
          x: fc.double({ min: -180, max: 180, noNaN: true }),
          y: fc.double({ min: -90, max: 90, noNaN: true }),
          e: fc.integer({ min: -4000, max: 90000 }).map((n) => n / 10),
          t: fc.integer({ min: 0, max: 2 ** 31 }),
          h: fc.integer({ min: 30, max: 230 }),
        },
        { requiredKeys: ['x', 'y'] },
      ),
      { maxLength: 40 },
    );
    await fc.assert(
      fc.asyncProperty(points, fc.integer({ min: 1, max: 400 }), async (sample, copies) => {
        const track = Array.from({ length: copies }, () => sample).flat() as TrackPoint[];
        const packed = packTrackPoints(track);
        const json = await renderer.render(packed);
        expect(json.toString('utf8')).toBe(packedPointsJson(packed));
      }),
      { numRuns: 40 },
    );
  });
});

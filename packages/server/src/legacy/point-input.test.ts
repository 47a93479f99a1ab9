/**
 * The track point checks of "create a ride from points" (legacy/point-input.ts), on untrusted input:
 * property tests (docs/contributors/architecture.md, house style) that no input throws, that good points pass unchanged, and
 * that every bad point is named, whatever else is around it.
 */
import type { TrackPoint } from '@rideport/ridefile';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { onlyTrack } from '../test-support/assets.js';
import { LegacyParams } from './params.js';
import { EARLIEST_POINT_SECONDS, indexList, readRideInput, readTrackPoints } from './point-input.js';

const NOW_SECONDS = 1_772_366_400; // 2026-03-01T12:00:00Z
const limits = { maxPoints: 1000, nowSeconds: NOW_SECONDS };

/** A plausible point: every key optional, but a position whole and a time present. */
const goodPoint: fc.Arbitrary<TrackPoint> = fc
  .record(
    {
      position: fc.option(
        fc.record({
          x: fc.double({ min: -180, max: 180, noNaN: true }),
          y: fc.double({ min: -90, max: 90, noNaN: true }),
        }),
        { nil: undefined },
      ),
      e: fc.double({ min: -500, max: 9000, noNaN: true }),
      t: fc.integer({ min: EARLIEST_POINT_SECONDS, max: NOW_SECONDS }),
      c: fc.integer({ min: 0, max: 250 }),
      h: fc.integer({ min: 0, max: 250 }),
      p: fc.integer({ min: 0, max: 2500 }),
      s: fc.double({ min: 0, max: 40, noNaN: true }),
      d: fc.double({ min: 0, max: 1e6, noNaN: true }),
      T: fc.double({ min: -40, max: 60, noNaN: true }),
    },
    { requiredKeys: ['t'] },
  )
  .map(({ position, ...rest }): TrackPoint => ({ ...position, ...rest }));

/** A point with exactly one problem the specification names, and the words its message must hold. */
const badPoint: fc.Arbitrary<{ point: unknown; says: RegExp }> = fc.oneof(
  fc
    .integer({ min: EARLIEST_POINT_SECONDS, max: NOW_SECONDS })
    .map((t) => ({ point: { x: 8, y: 47, t: t * 1000 }, says: /is in milliseconds/ })),
  fc
    .double({ min: 180, max: 1e6, noNaN: true, minExcluded: true })
    .map((x) => ({ point: { x, y: 47, t: NOW_SECONDS }, says: /x \(longitude\) .* is outside -180\.\.180/ })),
  fc
    .double({ min: -1e6, max: -90, noNaN: true, maxExcluded: true })
    .map((y) => ({ point: { x: 8, y, t: NOW_SECONDS }, says: /y \(latitude\) .* is outside -90\.\.90/ })),
  fc.string().map((e) => ({ point: { x: 8, y: 47, e, t: NOW_SECONDS }, says: /e .* is not a number/ })),
  fc
    .integer({ min: -1e9, max: EARLIEST_POINT_SECONDS - 1 })
    .map((t) => ({ point: { t }, says: /is not a plausible time/ })),
  fc.constantFrom(null, 7, 'point', [1, 2]).map((point) => ({ point, says: /is not a track point object/ })),
);

describe('readTrackPoints', () => {
  it('never throws, whatever JSON it is given, and either passes points or names problems', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.json(), fc.string()), (value) => {
        const result = readTrackPoints(value, limits);
        if (result.ok) expect(result.points.length).toBeGreaterThan(0);
        else expect(result.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('passes plausible points unchanged, as an array or as a JSON string', () => {
    fc.assert(
      fc.property(fc.array(goodPoint, { minLength: 1, maxLength: 50 }), (points) => {
        expect(readTrackPoints(points, limits)).toEqual({ ok: true, points });
        // Through JSON text, as the points would come (JSON has no -0).
        const text = JSON.stringify(points);
        expect(readTrackPoints(text, limits)).toEqual({ ok: true, points: JSON.parse(text) as unknown });
      }),
    );
  });

  it('names every bad point, by index, among good ones', () => {
    fc.assert(
      fc.property(
        fc.array(goodPoint, { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(), badPoint), { minLength: 1, maxLength: 8 }),
        (good, bad) => {
          const points: unknown[] = [...good];
          const badAt = new Map<number, RegExp>();
          for (const [position, { point, says }] of bad) {
            const index = position % (points.length + 1);
            points.splice(index, 0, point);
            // Later insertions shift what came before them.
            const shifted = new Map<number, RegExp>();
            for (const [at, words] of badAt) shifted.set(at >= index ? at + 1 : at, words);
            shifted.set(index, says);
            badAt.clear();
            for (const [at, words] of shifted) badAt.set(at, words);
          }
          const result = readTrackPoints(points, limits);
          expect(result.ok).toBe(false);
          if (result.ok) return;
          for (const [index, says] of badAt) {
            const named = result.problems.some(
              (problem) => says.test(problem) && indicesOf(problem).includes(index),
            );
            expect(named, `${index}: ${result.problems.join(' | ')}`).toBe(true);
          }
          // No good point is named.
          const namedIndices = result.problems.flatMap(indicesOf);
          for (const index of namedIndices) expect(badAt.has(index), `${index} named`).toBe(true);
        },
      ),
    );
  });

  it('calls a time in milliseconds milliseconds, with the value in seconds to send', () => {
    const result = readTrackPoints([{ t: 1_700_000_000_123 }], limits);
    expect(result).toEqual({
      ok: false,
      problems: [
        'track_points[0]: t 1700000000123 is in milliseconds: t must be whole seconds since the Unix epoch (1700000000), never milliseconds',
      ],
    });
  });

  it('takes the points of a real ride, and null for a value not known', () => {
    const { points } = onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
    expect(readTrackPoints(points, limits)).toEqual({ ok: true, points });
    const withNulls = points.map((point) => ({ ...point, p: null, T: null }));
    expect(readTrackPoints(withNulls, limits)).toEqual({
      ok: true,
      points: points.map((point) => {
        const known: TrackPoint = { ...point };
        delete known.p;
        delete known.T;
        return known;
      }),
    });
  });

  it('accepts times up to a day past the clock, and not beyond', () => {
    const latest = NOW_SECONDS + 24 * 60 * 60;
    expect(readTrackPoints([{ t: latest }], limits).ok).toBe(true);
    expect(readTrackPoints([{ t: latest + 1 }], limits).ok).toBe(false);
    expect(readTrackPoints([{ t: EARLIEST_POINT_SECONDS }], limits).ok).toBe(true);
  });
});

describe('readRideInput', () => {
  it('reads flat form names and nested JSON alike', () => {
    const points = [{ x: 8, y: 47, t: NOW_SECONDS }];
    const form = new LegacyParams(
      {},
      { 'trip[track_points]': JSON.stringify(points), 'trip[name]': 'A', 'trip[visibility]': '2' },
    );
    const json = new LegacyParams({}, { trip: { track_points: points, name: 'A', visibility: 2 } });
    for (const params of [form, json]) {
      expect(readRideInput(params, limits)).toEqual({
        ok: true,
        points,
        name: 'A',
        description: null,
        visibility: 'friends_only',
      });
    }
  });
});

describe('indexList', () => {
  it('writes runs as ranges', () => {
    expect(indexList([0])).toBe('0');
    expect(indexList([0, 1])).toBe('0..1');
    expect(indexList([3, 7, 8, 9, 12])).toBe('3, 7..9, 12');
  });
});

/** The indices a problem names: `track_points[1..3, 7]` → 1, 2, 3, 7. */
function indicesOf(problem: string): number[] {
  const list = /^track_points\[([^\]]*)\]/.exec(problem)?.[1] ?? '';
  return list.split(', ').flatMap((part) => {
    const [from, to] = part.split('..').map(Number);
    if (from === undefined || Number.isNaN(from)) return [];
    const end = to ?? from;
    return Array.from({ length: end - from + 1 }, (_, i) => from + i);
  });
}

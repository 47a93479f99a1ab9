import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summaryViolations } from '../../../test/support/invariants.js';
import { PointColumns, SLOT_C, SLOT_D, SLOT_H, SLOT_P, SLOT_S, SLOT_TEMPERATURE } from './columns.js';
import { RideFileWarningCode } from './errors.js';
import { trackFromPoints } from './from-points.js';
import type { RecordedTotals, TimeSpan, TrackPoint, Warning } from './model.js';
import { parseRideFile } from './parse.js';
import { summarize } from './summary.js';
import { writeGpx, writeTcx } from './write/index.js';

/**
 * The summary's invariants (issue 16) over generated tracks: gaps, repeated and backwards times, clock
 * jumps, GPS spikes and teleports, restarting distance counters, speed spikes, missing channels, cut-off
 * tails, pauses, and file totals that do or do not describe the points. Whatever the rows,
 * summaryViolations (test/support/invariants.ts) finds nothing.
 */

const START = 1_600_000_000;
const METERS_PER_DEGREE = 111_195;

/** How the time moves from one row to the next. */
const timeStep = fc.oneof(
  { weight: 60, arbitrary: fc.constant(1) },
  { weight: 8, arbitrary: fc.integer({ min: 2, max: 30 }) },
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 3, arbitrary: fc.integer({ min: -5, max: -1 }) },
  { weight: 2, arbitrary: fc.integer({ min: 601, max: 7200 }) },
  { weight: 2, arbitrary: fc.double({ min: 0.1, max: 3, noNaN: true }) },
  { weight: 1, arbitrary: fc.integer({ min: 86_401, max: 40 * 86_400 }) },
  { weight: 1, arbitrary: fc.integer({ min: -20 * 365 * 86_400, max: -61 }) },
  { weight: 2, arbitrary: fc.constant(Number.NaN) },
);

/** What happens to the position at a row. */
const positionEvent = fc.oneof(
  {
    weight: 40,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      speed: fc.double({ min: 0, max: 20, noNaN: true }),
    }),
  },
  { weight: 6, arbitrary: fc.constant({ kind: 'stop' as const, speed: 0 }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'missing' as const, speed: 0 }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('spike' as const),
      speed: fc.double({ min: 100, max: 5000, noNaN: true }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('teleport' as const),
      speed: fc.double({ min: 1000, max: 100_000, noNaN: true }),
    }),
  },
);

const channel = (min: number, max: number) =>
  fc.option(
    fc.oneof({ weight: 8, arbitrary: fc.integer({ min, max }) }, { weight: 2, arbitrary: fc.constant(0) }),
    {
      nil: undefined,
      freq: 4,
    },
  );

const row = fc.record({
  step: timeStep,
  position: positionEvent,
  elevation: fc.option(fc.double({ min: -20, max: 20, noNaN: true }), { nil: undefined, freq: 5 }),
  recordedSpeed: fc.option(
    fc.oneof(fc.double({ min: 0, max: 25, noNaN: true }), fc.double({ min: 30, max: 300, noNaN: true })),
    { nil: undefined, freq: 2 },
  ),
  distanceStep: fc.option(
    fc.oneof(
      { weight: 9, arbitrary: fc.double({ min: 0, max: 30, noNaN: true }) },
      { weight: 1, arbitrary: fc.constant(-1) }, // the counter restarts
    ),
    { nil: undefined, freq: 2 },
  ),
  cadence: channel(0, 200),
  heartRate: channel(0, 220),
  power: channel(0, 1500),
  temperature: channel(-20, 45),
});

type GeneratedRow = typeof row extends fc.Arbitrary<infer Value> ? Value : never;

interface GeneratedTrack {
  columns: PointColumns;
  pauses: TimeSpan[];
}

function buildColumns(
  rows: readonly GeneratedRow[],
  withPositions: boolean,
  withDistance: boolean,
): GeneratedTrack {
  const columns = new PointColumns(10_000, rows.length + 1);
  let time = START;
  let lat = 47;
  // A straight line north keeps distances easy to reason about when a test fails.
  const lon = 8;
  let distance = 0;
  const pauses: TimeSpan[] = [];
  for (const generated of rows) {
    const i = columns.append();
    const step = Number.isNaN(generated.step) ? 0 : generated.step;
    time += step;
    if (!Number.isNaN(generated.step)) columns.t[i] = time;
    if (step > 600 && step < 86_400 && pauses.length < 5) pauses.push([time - step, time]);
    const { kind, speed } = generated.position;
    const seconds = Math.max(1, Math.abs(step));
    if (withPositions && kind !== 'missing') {
      if (kind === 'spike') {
        columns.y[i] = lat + (speed * seconds) / METERS_PER_DEGREE;
        columns.x[i] = lon;
      } else {
        lat += ((kind === 'stop' ? 0 : speed) * seconds) / METERS_PER_DEGREE;
        columns.y[i] = Math.max(-90, Math.min(90, lat));
        columns.x[i] = lon;
      }
    }
    if (withDistance && generated.distanceStep !== undefined) {
      distance = generated.distanceStep < 0 ? 0 : distance + generated.distanceStep;
      columns.set(SLOT_D, i, distance);
    }
    if (generated.elevation !== undefined) columns.e[i] = 400 + generated.elevation;
    if (generated.recordedSpeed !== undefined) columns.set(SLOT_S, i, generated.recordedSpeed);
    if (generated.cadence !== undefined) columns.set(SLOT_C, i, generated.cadence);
    if (generated.heartRate !== undefined) columns.set(SLOT_H, i, generated.heartRate);
    if (generated.power !== undefined) columns.set(SLOT_P, i, generated.power);
    if (generated.temperature !== undefined) columns.set(SLOT_TEMPERATURE, i, generated.temperature);
  }
  return { columns, pauses };
}

const recordedTotals = fc.option(
  fc.record({
    distanceMeters: fc.option(fc.double({ min: 0, max: 500_000, noNaN: true }), { nil: null }),
    ascentMeters: fc.option(fc.double({ min: 0, max: 5000, noNaN: true }), { nil: null }),
    descentMeters: fc.option(fc.double({ min: 0, max: 5000, noNaN: true }), { nil: null }),
    elapsedSeconds: fc.option(fc.double({ min: 0, max: 100_000, noNaN: true }), { nil: null }),
    timerSeconds: fc.option(fc.double({ min: 0, max: 100_000, noNaN: true }), { nil: null }),
  }),
  { nil: null },
);

const warnings = fc.subarray([
  RideFileWarningCode.TRUNCATED,
  RideFileWarningCode.SKIPPED_DATA,
  RideFileWarningCode.BAD_CRC,
]);

const trackInput = fc.record({
  rows: fc.array(row, { maxLength: 300 }),
  withPositions: fc.boolean(),
  withDistance: fc.boolean(),
  sport: fc.constantFrom(null, 'cycling', 'running', 'walking', 'hiking', 'swimming', 'e_biking', 'rowing'),
  recorded: recordedTotals,
  /** file totals that do describe the points: the elapsed time of the rows as the file's own */
  describingTotals: fc.boolean(),
  activeLengthsSeconds: fc.option(fc.double({ min: 0, max: 10_000, noNaN: true }), {
    nil: undefined,
    freq: 8,
  }),
  withPauses: fc.boolean(),
  warnings,
});

describe('summary invariants over generated tracks (issue 16)', () => {
  it('never contradicts itself, whatever the rows', () => {
    fc.assert(
      fc.property(trackInput, (input) => {
        const { columns, pauses } = buildColumns(input.rows, input.withPositions, input.withDistance);
        let recorded: RecordedTotals | null = input.recorded;
        if (input.describingTotals && recorded !== null) {
          // Totals that match the points' time span, so the file's own numbers are taken.
          const times = [...columns.t.subarray(0, columns.length)].filter((t) => !Number.isNaN(t));
          const span = times.length === 0 ? 0 : Math.max(...times) - Math.min(...times);
          recorded = { ...recorded, elapsedSeconds: span, timerSeconds: span * 0.9 };
        }
        const trackWarnings: Warning[] = input.warnings.map((code) => ({ code, message: code }));
        const summary = summarize(
          columns,
          {
            sport: input.sport,
            recorded,
            calories: null,
            device: null,
            ...(input.withPauses ? { pauses } : {}),
            ...(input.activeLengthsSeconds === undefined
              ? {}
              : { activeLengthsSeconds: input.activeLengthsSeconds }),
          },
          trackWarnings,
        );
        expect(summaryViolations(summary, trackWarnings)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('holds for tracks our own writers produce, read back', () => {
    const point = fc.record(
      {
        x: fc.double({ min: 7.9, max: 8.1, noNaN: true }),
        y: fc.double({ min: 46.9, max: 47.1, noNaN: true }),
        e: fc.double({ min: 0, max: 3000, noNaN: true }),
        dt: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: 900 })),
        c: fc.integer({ min: 0, max: 150 }),
        h: fc.integer({ min: 0, max: 200 }),
        p: fc.integer({ min: 0, max: 1200 }),
      },
      { requiredKeys: ['x', 'y', 'dt'] },
    );
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 120 }), (generated) => {
        let time = START;
        const points: TrackPoint[] = generated.map(({ dt, ...values }) => {
          time += dt;
          return { ...values, t: time };
        });
        const track = trackFromPoints(points, { sport: 'cycling' });
        expect(summaryViolations(track.summary, track.warnings)).toEqual([]);
        for (const written of [writeGpx(track), writeTcx(track)]) {
          for (const read of parseRideFile(new TextEncoder().encode(written)).tracks) {
            expect(summaryViolations(read.summary, read.warnings)).toEqual([]);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});

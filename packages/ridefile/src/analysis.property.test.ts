/**
 * Invariants of the ride analysis (analysis.ts, issue 19) over random rides: recording gaps, pauses,
 * several samples in one second, dropouts and implausible values, with any thresholds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyseRide, normalizedPower, POWER_CURVE_SECONDS, type AnalysisColumns } from './analysis.js';
import { HOLD_SECONDS } from './summary/time.js';

interface Sample {
  /** seconds after the previous sample: 0 (same second) to a long pause */
  step: number;
  watts: number;
  bpm: number;
}

const sample = fc.record({
  step: fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(1, 1, 1, 2, 3) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: HOLD_SECONDS }) },
    { weight: 1, arbitrary: fc.integer({ min: HOLD_SECONDS + 1, max: 5000 }) },
  ),
  watts: fc.oneof(
    { weight: 20, arbitrary: fc.integer({ min: 0, max: 1500 }) },
    { weight: 1, arbitrary: fc.constantFrom(NaN, -5, 21_733) },
  ),
  bpm: fc.oneof(
    { weight: 20, arbitrary: fc.integer({ min: 40, max: 210 }) },
    { weight: 1, arbitrary: fc.constantFrom(NaN, 0, 300) },
  ),
});

const ride = fc.array(sample, { minLength: 0, maxLength: 3000 });

function columns(samples: readonly Sample[], start = 1_700_000_000): AnalysisColumns {
  const n = samples.length;
  const t = new Float64Array(n);
  const p = new Float64Array(n);
  const h = new Float64Array(n);
  let time = start;
  samples.forEach((s, i) => {
    time += s.step;
    t[i] = time;
    p[i] = s.watts;
    h[i] = s.bpm;
  });
  return { length: n, t, p, h };
}

const thresholds = fc.record({
  ftpWatts: fc.option(fc.integer({ min: 1, max: 2000 })),
  thresholdHeartRate: fc.option(fc.integer({ min: 1, max: 250 })),
  maxHeartRate: fc.option(fc.integer({ min: 1, max: 250 })),
});

const plausible = (watts: number): boolean => watts >= 0 && watts <= 3000;

describe('ride analysis: invariants', () => {
  it('the power curve never rises with a longer window, never exceeds the maximum, never falls below 0', () => {
    fc.assert(
      fc.property(ride, thresholds, (samples, limits) => {
        const power = analyseRide(columns(samples), limits).power;
        if (power === null) return;
        expect(power.curve.map((point) => point.seconds)).toEqual(POWER_CURVE_SECONDS);
        let previous = Infinity;
        for (const { watts } of power.curve) {
          if (watts === null) {
            previous = -Infinity; // a longer window cannot fit where a shorter one did not
            continue;
          }
          expect(watts).toBeGreaterThanOrEqual(0);
          expect(watts).toBeLessThanOrEqual(power.maxWatts + 1e-9);
          expect(watts).toBeLessThanOrEqual(previous + 1e-9);
          previous = watts;
        }
      }),
    );
  });

  it('time in zones adds up to the time with data, for power and heart rate', () => {
    fc.assert(
      fc.property(ride, thresholds, (samples, limits) => {
        const { power, heartRate } = analyseRide(columns(samples), limits);
        if (power?.zones) expect(power.zones.reduce((sum, z) => sum + z.seconds, 0)).toBe(power.seconds);
        if (heartRate?.zones) {
          expect(heartRate.zones.reduce((sum, z) => sum + z.seconds, 0)).toBe(heartRate.seconds);
        }
        expect(power?.zones != null).toBe(power !== null && limits.ftpWatts !== null);
        if (power?.zones) expect(power.zones).toHaveLength(7);
        if (heartRate?.zones) expect(heartRate.zones).toHaveLength(5);
      }),
    );
  });

  it('work is Σ watts × seconds held: until the next sample, one second across a pause and at the end', () => {
    // Strictly later whole seconds, so no sample replaces another.
    const strictRide = fc.array(
      fc.record({
        step: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 200 })),
        watts: fc.integer({ min: 0, max: 2000 }),
        bpm: fc.constant(NaN),
      }),
      { minLength: 1, maxLength: 2000 },
    );
    fc.assert(
      fc.property(strictRide, (samples) => {
        const data = columns(samples);
        let joules = 0;
        for (let i = 0; i < data.length; i++) {
          const gap = i + 1 < data.length ? data.t[i + 1]! - data.t[i]! : 1;
          joules += data.p[i]! * (gap <= HOLD_SECONDS ? gap : 1);
        }
        const power = analyseRide(data, {
          ftpWatts: null,
          thresholdHeartRate: null,
          maxHeartRate: null,
        }).power;
        if (joules === 0) {
          expect(power).toBeNull(); // nothing but zeros (issue 40)
          return;
        }
        expect(power!.workKilojoules).toBeCloseTo(joules / 1000, 6);
        expect(power!.averageWatts).toBeCloseTo(joules / power!.seconds, 6);
      }),
    );
  });

  it('normalized power and the average lie between the lowest and highest plausible power', () => {
    fc.assert(
      fc.property(ride, (samples) => {
        const data = columns(samples);
        const values = samples.map((s) => s.watts).filter(plausible);
        const power = analyseRide(data, {
          ftpWatts: 250,
          thresholdHeartRate: null,
          maxHeartRate: null,
        }).power;
        // Nothing but zeros is no power (issue 40).
        if (!values.some((watts) => watts > 0)) {
          expect(power).toBeNull();
          return;
        }
        const low = Math.min(...values);
        const high = Math.max(...values);
        expect(power!.maxWatts).toBe(high);
        expect(power!.averageWatts).toBeGreaterThanOrEqual(low - 1e-9);
        expect(power!.averageWatts).toBeLessThanOrEqual(high + 1e-9);
        const np = normalizedPower(data);
        expect(power!.normalizedWatts).toBe(np);
        if (np !== null) {
          expect(np).toBeGreaterThanOrEqual(low - 1e-6);
          expect(np).toBeLessThanOrEqual(high + 1e-6);
          expect(power!.intensityFactor).toBeCloseTo(np / 250, 9);
        }
      }),
    );
  });
});

describe('ride analysis: examples', () => {
  const none = { ftpWatts: null, thresholdHeartRate: null, maxHeartRate: null };

  // Found by the invariant above (seed -429027613): the maximum was the second's last sample.
  it('a second with several samples counts its last in the averages and its highest as the maximum', () => {
    const data = columns([
      { step: 1, watts: 1, bpm: 100 },
      { step: 0, watts: 0, bpm: 100 },
    ]);
    const power = analyseRide(data, none).power!;
    expect(power.maxWatts).toBe(1);
    expect(power.averageWatts).toBe(0);
  });

  it('an hour at FTP is IF 1 and TSS 100, all of it in zone 4', () => {
    const data = columns(Array.from({ length: 3600 }, () => ({ step: 1, watts: 250, bpm: 150 })));
    const { power, heartRate } = analyseRide(data, {
      ftpWatts: 250,
      thresholdHeartRate: 160,
      maxHeartRate: null,
    });
    expect(power!.normalizedWatts).toBeCloseTo(250, 6);
    expect(power!.intensityFactor).toBeCloseTo(1, 9);
    expect(power!.trainingStressScore).toBeCloseTo(100, 6);
    expect(power!.workKilojoules).toBe(900);
    expect(power!.zones!.map((zone) => zone.seconds)).toEqual([0, 0, 0, 3600, 0, 0, 0]);
    expect(power!.curve.map((point) => point.watts)).toEqual([250, 250, 250, 250, 250]);
    // 150 / 160 = 0.94: tempo, the third of Coggan's heart-rate zones.
    expect(heartRate!.zonesFrom).toBe('threshold');
    expect(heartRate!.zones!.map((zone) => zone.seconds)).toEqual([0, 0, 3600, 0, 0]);
  });

  it('a ride of nothing but zeros has no power; a lap coasted at 0 W in a ride with power reads 0 W (issue 40)', () => {
    const silent = columns(Array.from({ length: 600 }, () => ({ step: 1, watts: 0, bpm: 120 })));
    expect(analyseRide(silent, { ...none, ftpWatts: 250 })).toMatchObject({ power: null });
    const coasted = columns(
      Array.from({ length: 600 }, (_, i) => ({ step: 1, watts: i < 300 ? 200 : 0, bpm: 120 })),
    );
    const lap = analyseRide(coasted, { ...none, ftpWatts: 250 }, 300, 600).power!;
    expect(lap).toMatchObject({ averageWatts: 0, maxWatts: 0, seconds: 300 });
    expect(lap.zones![0]!.seconds).toBe(300);
  });

  it('heart-rate zones come from the maximum when no threshold is set', () => {
    const data = columns(Array.from({ length: 10 }, () => ({ step: 1, watts: NaN, bpm: 172 })));
    const heartRate = analyseRide(data, { ...none, maxHeartRate: 190 }).heartRate!;
    expect(heartRate.zonesFrom).toBe('max');
    expect(heartRate.zones!.map((zone) => zone.seconds)).toEqual([0, 0, 0, 0, 10]);
    expect(heartRate.zones![4]).toMatchObject({ low: 172, high: null });
  });

  it('a window over a pause counts the pause as 0 W: two 3-minute efforts do not make a best 5 minutes of 400 W', () => {
    const effort = Array.from({ length: 180 }, () => ({ step: 1, watts: 400, bpm: NaN }));
    const data = columns([...effort, { step: 600, watts: 400, bpm: NaN }, ...effort]);
    const power = analyseRide(data, none).power!;
    expect(power.curve[1]!.watts).toBe(400);
    expect(power.curve[2]!.watts).toBeLessThan(400);
    // The pause is left out of the riding time, the work and the average.
    expect(power.seconds).toBe(361);
    expect(power.averageWatts).toBe(400);
    expect(power.trainingStressScore).toBeNull();
    expect(power.zones).toBeNull();
  });

  it('a ride shorter than a window has no value for it', () => {
    const data = columns(Array.from({ length: 90 }, () => ({ step: 1, watts: 200, bpm: NaN })));
    expect(analyseRide(data, none).power!.curve.map((point) => point.watts)).toEqual([
      200,
      200,
      null,
      null,
      null,
    ]);
  });

  it('rows [from, to) analyse a lap alone', () => {
    const data = columns([
      ...Array.from({ length: 60 }, () => ({ step: 1, watts: 100, bpm: NaN })),
      ...Array.from({ length: 60 }, () => ({ step: 1, watts: 300, bpm: NaN })),
    ]);
    expect(analyseRide(data, none, 60, 120).power!.averageWatts).toBe(300);
    expect(analyseRide(data, none, 0, 60).power!.workKilojoules).toBe(6);
  });
});

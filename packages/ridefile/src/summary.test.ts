import { describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  readCorpus,
  readFixture,
} from '../../../test/support/corpus.js';
import { invariantViolations } from '../../../test/support/invariants.js';
import { PointColumns, SLOT_C, SLOT_D, SLOT_H, SLOT_P, SLOT_S } from './columns.js';
import { readFit } from './fit/read.js';
import { RideFileWarningCode } from './errors.js';
import type { RecordedTotals } from './model.js';
import { trackFromPoints } from './from-points.js';
import { parseRideFile } from './parse.js';
import { summarize, type SummaryContext } from './summary.js';
import { normalizedPower } from './analysis.js';
import { cumulativeDistance } from './summary/distance.js';
import { elevationGainLoss } from './summary/elevation.js';
import { terrain, trackType } from './summary/shape.js';

const noContext = { recorded: null, calories: null, device: null };

/** Columns from rows of [t, lat, lon, e, power] (NaN for absent). */
function columnsOf(rows: ReadonlyArray<readonly [number, number, number, number, number?]>): PointColumns {
  const columns = new PointColumns();
  for (const [t, lat, lon, e, power] of rows) {
    const i = columns.append();
    columns.t[i] = t;
    columns.y[i] = lat;
    columns.x[i] = lon;
    columns.e[i] = e;
    if (power !== undefined) columns.set(SLOT_P, i, power);
  }
  return columns;
}

/** A straight line northwards from 47°N, `step` metres apart, one point a second. */
function line(count: number, stepMeters: number, elevation: (i: number) => number): PointColumns {
  const degreesPerMeter = 1 / 111_195;
  return columnsOf(
    Array.from(
      { length: count },
      (_, i) => [1_600_000_000 + i, 47 + i * stepMeters * degreesPerMeter, 8, elevation(i)] as const,
    ),
  );
}

describe('elevation gain and loss (hysteresis)', () => {
  it('counts a long climb made of small steps whole', () => {
    const columns = line(200, 10, (i) => 400 + i * 0.5);
    const meters = cumulativeDistance(columns).meters;
    const result = elevationGainLoss(columns.e, columns.t, meters, columns.length)!;
    expect(result.gain).toBeCloseTo(99.5, 0);
    expect(result.loss).toBe(0);
  });

  it('ignores noise smaller than the threshold', () => {
    const columns = line(500, 10, (i) => 400 + (i % 2 === 0 ? 0.8 : -0.8));
    const meters = cumulativeDistance(columns).meters;
    expect(elevationGainLoss(columns.e, columns.t, meters, columns.length)).toEqual({ gain: 0, loss: 0 });
  });

  it('counts climbs and descents of a rolling road', () => {
    // four and a half 20 m hills: up 20, down 20, … and a last climb of 20 m
    const columns = line(600, 10, (i) => 400 + 20 * Math.abs(Math.sin((i / 200) * Math.PI * 1.5)));
    const meters = cumulativeDistance(columns).meters;
    const { gain, loss } = elevationGainLoss(columns.e, columns.t, meters, columns.length)!;
    expect(gain).toBeGreaterThan(98);
    expect(gain).toBeLessThanOrEqual(100);
    expect(loss).toBeGreaterThan(78);
    expect(loss).toBeLessThanOrEqual(80);
  });

  it('does not count impossible jumps (a -500 m placeholder, a 12 km spike)', () => {
    const columns = line(100, 10, (i) => (i === 0 ? -500 : i === 50 ? 12_136 : 244 + i * 0.2));
    const meters = cumulativeDistance(columns).meters;
    const { gain } = elevationGainLoss(columns.e, columns.t, meters, columns.length)!;
    expect(gain).toBeGreaterThan(15);
    expect(gain).toBeLessThan(21);
  });

  it('is null without elevation', () => {
    const columns = line(10, 10, () => NaN);
    expect(
      elevationGainLoss(columns.e, columns.t, cumulativeDistance(columns).meters, columns.length),
    ).toBeNull();
  });
});

describe('cumulative distance from the recorded distance', () => {
  function distances(values: readonly number[]): PointColumns {
    const columns = new PointColumns();
    for (const value of values) columns.set(SLOT_D, columns.append(), value);
    return columns;
  }

  it('uses a column that already adds up as it is, without a copy', () => {
    const columns = distances([0, 4.5, 4.5, 9.25, 20]);
    const { meters, source } = cumulativeDistance(columns);
    expect(source).toBe('points');
    expect(meters).toBe(columns.d);
  });

  it('adds a restarted counter on to the total, and holds it across rows without a value', () => {
    const columns = distances([NaN, 10, 30, NaN, 5, 25, 20, 40]);
    const { meters } = cumulativeDistance(columns);
    expect(meters).not.toBe(columns.d);
    // 10 → 30 (+20), restart at 5 → 25 (+20), drop to 20 → 40 (+20)
    expect([...meters.subarray(0, columns.length)]).toEqual([0, 10, 30, 30, 30, 50, 50, 70]);
  });

  it('starts a counter that begins below zero at zero', () => {
    const { meters } = cumulativeDistance(distances([-3, 2, 7]));
    expect([...meters.subarray(0, 3)]).toEqual([0, 5, 10]);
  });
});

describe('summary choices', () => {
  const recorded = (distanceMeters: number | null, ascentMeters: number | null): RecordedTotals => ({
    distanceMeters,
    ascentMeters,
    descentMeters: null,
    elapsedSeconds: null,
    timerSeconds: null,
  });

  it('prefers the totals the file states when they describe the points', () => {
    const columns = line(100, 10, (i) => 400 + i);
    const summary = summarize(columns, { ...noContext, recorded: recorded(1000, 77) });
    expect(summary.distanceMeters).toBe(1000);
    expect(summary.distanceSource).toBe('file');
    expect(summary.elevationGainMeters).toBe(77);
    expect(summary.elevationSource).toBe('file');
  });

  it('never takes totals of a file cut off, or of more time than the points hold (issue 16)', () => {
    const columns = line(100, 10, (i) => 400 + i);
    const truncated = [{ code: RideFileWarningCode.TRUNCATED, message: 'cut off' }];
    const cut = summarize(columns, { ...noContext, recorded: recorded(1000, 77) }, truncated);
    expect(cut.distanceSource).toBe('positions');
    expect(cut.elevationSource).toBe('points');
    // An Ironman's laps (18,930 s of timer) beside 99 s of points.
    const laps = { ...recorded(180_220, null), timerSeconds: 18_930 };
    const kona = summarize(columns, { ...noContext, recorded: laps });
    expect(kona.distanceSource).toBe('positions');
    expect(kona.timerSource).toBe('points');
    expect(kona.timerSeconds).toBe(99);
  });

  it('leaves a file total out that needs more speed than the points ever show (issue 16)', () => {
    // 990 m along the points at 10 m/s; a stated 31.2 km would need 315 m/s.
    const columns = line(100, 10, () => 400);
    const summary = summarize(columns, { ...noContext, recorded: recorded(31_200, null) });
    expect(summary.distanceSource).toBe('positions');
    expect(summary.speedMetersPerSecond!.avg).toBeLessThanOrEqual(summary.speedMetersPerSecond!.max);
  });

  it('believes a stated zero only when the points agree', () => {
    const moving = line(100, 10, (i) => 400 + i);
    const summary = summarize(moving, { ...noContext, recorded: recorded(0, 0) });
    expect(summary.distanceSource).toBe('positions');
    expect(summary.distanceMeters).toBeCloseTo(990, -1);
    expect(summary.elevationSource).toBe('points');
    expect(summary.elevationGainMeters).toBeCloseTo(99, 0);

    const still = line(100, 0, () => 400);
    const stillSummary = summarize(still, { ...noContext, recorded: recorded(0, 0) });
    expect(stillSummary.distanceMeters).toBe(0);
    expect(stillSummary.elevationGainMeters).toBe(0);
  });

  it('computes times, speeds, bounds and ends', () => {
    const columns = line(101, 5, () => 400);
    // a 60 s stop in the middle: same place, time goes on
    for (let i = 51; i < columns.length; i++) columns.t[i] = columns.t[i]! + 60;
    const summary = summarize(columns, noContext);
    expect(summary.pointCount).toBe(101);
    expect(summary.elapsedSeconds).toBe(160);
    expect(summary.timerSeconds).toBe(160);
    expect(summary.timerSource).toBe('points');
    // 99 s at 5 m/s, and 5 m covered during the stop: 500 m take at least 100 s at the top speed of 5 m/s.
    expect(summary.movingSeconds).toBe(100);
    expect(summary.distanceMeters).toBeCloseTo(500, 0);
    expect(summary.speedMetersPerSecond!.avg).toBeCloseTo(5, 4);
    expect(summary.speedMetersPerSecond!.max).toBeCloseTo(5, 4);
    expect(summary.speedSource).toBe('positions');
    expect(summary.firstPosition).toEqual({ lat: 47, lng: 8 });
    expect(summary.bounds!.neLat).toBeCloseTo(47 + 500 / 111_195, 6);
    expect(summary.trackType).toBe('point_to_point');
    expect(summary.terrain).toBe('flat');
  });
});

describe('normalized power', () => {
  it('equals the power of a steady effort', () => {
    const columns = columnsOf(
      Array.from({ length: 600 }, (_, i) => [1_600_000_000 + i, NaN, NaN, NaN, 200] as const),
    );
    expect(normalizedPower(columns)).toBeCloseTo(200, 6);
  });

  it('exceeds the average for a varied effort (Coggan)', () => {
    // 5 min at 300 W, 5 min at 100 W: average 200 W, NP about 250 W
    const columns = columnsOf(
      Array.from({ length: 600 }, (_, i) => [1_600_000_000 + i, NaN, NaN, NaN, i < 300 ? 300 : 100] as const),
    );
    const np = normalizedPower(columns)!;
    expect(np).toBeGreaterThan(240);
    expect(np).toBeLessThan(260);
  });

  it('holds sparse samples (smart recording) and leaves pauses out', () => {
    const sparse = columnsOf(
      Array.from({ length: 60 }, (_, i) => [1_600_000_000 + i * 10, NaN, NaN, NaN, 200] as const),
    );
    expect(normalizedPower(sparse)).toBeCloseTo(200, 6);
    const paused = columnsOf(
      Array.from(
        { length: 120 },
        (_, i) => [1_600_000_000 + i + (i >= 60 ? 3600 : 0), NaN, NaN, NaN, 200] as const,
      ),
    );
    expect(normalizedPower(paused)).toBeCloseTo(200, 6);
  });

  it('is null for less than 30 s of power', () => {
    const columns = columnsOf(
      Array.from({ length: 20 }, (_, i) => [1_600_000_000 + i, NaN, NaN, NaN, 200] as const),
    );
    expect(normalizedPower(columns)).toBeNull();
  });
});

describe('a channel of nothing but zeros (issue 40)', () => {
  /** A 10-minute ride with the given power and cadence each second. */
  function ride(watts: (i: number) => number, rpm: (i: number) => number): PointColumns {
    const columns = line(600, 5, () => 400);
    for (let i = 0; i < columns.length; i++) {
      columns.set(SLOT_P, i, watts(i));
      columns.set(SLOT_C, i, rpm(i));
    }
    return columns;
  }

  it('is no power and no cadence: a meter paired but silent', () => {
    const summary = summarize(
      ride(
        () => 0,
        () => 0,
      ),
      noContext,
    );
    expect(summary.powerWatts).toBeNull();
    expect(summary.cadenceRpm).toBeNull();
  });

  it('is a channel once one value is above zero, its zeros still counted as power is', () => {
    const summary = summarize(
      ride(
        (i) => (i === 300 ? 250 : 0),
        (i) => (i < 10 ? 90 : 0),
      ),
      noContext,
    );
    expect(summary.powerWatts).toMatchObject({ min: 0, max: 250 });
    expect(summary.powerWatts!.avg).toBeCloseTo(250 / 600, 6);
    expect(summary.cadenceRpm).toMatchObject({ min: 0, avg: 90, max: 90 });
  });

  it.skipIf(!corpusAvailable)(
    'is none on the Sigma ride that writes 0 W and 0 rpm in every one of its 14,391 records (fitparse__nick.fit)',
    () => {
      const track = parseRideFile(readCorpus('fitparse__nick.fit')).tracks[0]!;
      expect(track.points.every((point) => point.p === 0 && point.c === 0)).toBe(true);
      expect(track.summary).toMatchObject({ powerWatts: null, cadenceRpm: null });
      expect(track.summary.heartRateBpm).not.toBeNull();
    },
  );

  it('is no power when the only values above zero are not plausible ones', () => {
    const summary = summarize(
      ride(
        (i) => (i === 300 ? 21_733 : 0),
        () => 0,
      ),
      noContext,
    );
    expect(summary.powerWatts).toBeNull();
  });
});

describe('track type and terrain', () => {
  const degreesPerMeter = 1 / 111_195;
  const path = (points: Array<[number, number]>): PointColumns =>
    columnsOf(
      points.map(
        ([north, east], i) =>
          [i, 47 + north * degreesPerMeter, 8 + east * degreesPerMeter * 1.466, 0] as const,
      ),
    );

  it('tells loops, out-and-backs and point-to-point routes apart', () => {
    const out = Array.from({ length: 100 }, (_, i): [number, number] => [i * 50, 0]);
    expect(trackType(path(out), null)).toBe('point_to_point');
    expect(trackType(path([...out, ...[...out].reverse()]), null)).toBe('out_and_back');
    const square = [
      ...Array.from({ length: 50 }, (_, i): [number, number] => [i * 40, 0]),
      ...Array.from({ length: 50 }, (_, i): [number, number] => [2000, i * 40]),
      ...Array.from({ length: 50 }, (_, i): [number, number] => [2000 - i * 40, 2000]),
      ...Array.from({ length: 51 }, (_, i): [number, number] => [0, 2000 - i * 40]),
    ];
    expect(trackType(path(square), null)).toBe('loop');
    expect(trackType(path([[0, 0]]), null)).toBe('unknown');
  });

  it('grades terrain by climbing per kilometre', () => {
    expect(terrain(40, 10_000)).toBe('flat');
    expect(terrain(80, 10_000)).toBe('rolling');
    expect(terrain(200, 10_000)).toBe('climbing');
    expect(terrain(null, 10_000)).toBe('flat');
  });
});

/**
 * Against the totals FIT sessions record (issue 2): the distance along the points within 1 % of
 * total_distance on at least 90 % of the files, and the summary's elevation gain within 10 % of
 * total_ascent.
 *
 * The elevation gain the summary gives for these files is the session's own total (summary.ts explains
 * why), so the check that says something about our method runs it on the points alone: vendors count
 * climbing differently (on the same terrain Wahoo counts ~40 % less than a 2 m hysteresis, Zwift's
 * totals come from its game world, one file is synthetic), so no single method can land within 10 %
 * of every vendor; ours does on about two thirds, and the misses are listed.
 */
describe.skipIf(!corpusAvailable)(
  `against FIT session totals (${corpusAvailable ? 'corpus' : CORPUS_SKIP_REASON})`,
  () => {
    // fitparse__DeveloperData.fit is left out: its records have neither a time nor a position, so
    // readFit refuses it (issue 16), and it has no session to compare with anyway.
    const drafts = corpusFiles('fit')
      .filter((file) => file.name !== 'fitparse__DeveloperData.fit')
      .flatMap((file) =>
        readFit(readCorpus(file.name), { maxPoints: 2_000_000 }).drafts.map((draft) => ({
          file: file.name,
          draft,
        })),
      );

    it('has the distance along the points within 1 % of total_distance on at least 90 % of files', () => {
      const compared = drafts.filter(({ draft }) => (draft.recorded?.distanceMeters ?? 0) > 0);
      const misses = compared.filter(({ draft }) => {
        const stated = draft.recorded!.distanceMeters!;
        const along = cumulativeDistance(draft.columns).meters[draft.columns.length - 1]!;
        return Math.abs(along - stated) > 0.01 * stated;
      });
      // The misses: a Stages indoor bike whose records count 6 % further than its session, a Lezyne file
      // holding two rides (its second counter restarts), and the synthetic 100,000-identical-records file.
      expect(misses.map(({ file }) => file).sort()).toEqual([
        'fitfilefaker__activity_multiple_developer_index.fit',
        'gpsbabel__lezyne_super_gps-garmin_fit-sample-bad-endian.fit',
        'muktihari-fit__big_activity.fit',
      ]);
      expect((compared.length - misses.length) / compared.length).toBeGreaterThanOrEqual(0.9);
    });

    it('gives the session totals as the summary distance and elevation gain where they describe the points', () => {
      const withTotals = drafts.filter(({ draft }) => (draft.recorded?.ascentMeters ?? 0) > 0);
      expect(withTotals.length).toBeGreaterThanOrEqual(20);
      const computed: string[] = [];
      for (const { file, draft } of withTotals) {
        const summary = summarize(draft.columns, draft);
        if (summary.elevationSource === 'file') {
          expect(summary.elevationGainMeters).toBe(draft.recorded!.ascentMeters);
        } else {
          computed.push(file);
        }
      }
      // Sessions of more time than the records hold: a Lezyne file with two rides (31,319 s of session,
      // 14,518 s of records) and the synthetic file (30,877 s of session, 99,997 s of records).
      expect(computed).toEqual([
        'gpsbabel__lezyne_super_gps-garmin_fit-sample-bad-endian.fit',
        'muktihari-fit__big_activity.fit',
      ]);
    });

    it("has the timer time from the file's own pauses within 1 % or 1 s of total_timer_time (issue 16)", () => {
      const misses = drafts
        .filter(({ draft }) => draft.recorded?.timerSeconds != null && draft.columns.length > 0)
        .filter(({ draft }) => {
          const { timerSeconds } = summarize(draft.columns, { ...draft, recorded: null });
          if (timerSeconds === null) return false; // device-relative times: no timer from the points
          const stated = draft.recorded!.timerSeconds!;
          return Math.abs(timerSeconds - stated) > Math.max(1, 0.01 * stated);
        })
        .map(({ file }) => file);
      // Records end 20 s before the timer stopped (a generated swim), and a file holding two rides whose
      // second was recorded under an earlier clock (its records jump back by 12 hours).
      expect(misses).toEqual([
        'gpsbabel__lezyne_super_gps-garmin_fit-sample-bad-endian.fit',
        'muktihari-fit__chained_Activity_activity_poolswim.fit',
      ]);
    });

    it('computes elevation gain from the points within 10 % of total_ascent on most files', () => {
      const compared = drafts.filter(({ draft }) => (draft.recorded?.ascentMeters ?? 0) > 0);
      const misses = compared
        .map(({ file, draft }) => {
          const stated = draft.recorded!.ascentMeters!;
          const meters = cumulativeDistance(draft.columns).meters;
          const computed =
            elevationGainLoss(draft.columns.e, draft.columns.t, meters, draft.columns.length)?.gain ?? 0;
          return { file, ratio: Math.round((computed / stated) * 100) / 100 };
        })
        .filter(({ ratio }) => Math.abs(ratio - 1) > 0.1);
      expect(misses).toEqual([
        { file: 'fitdecode__elemnt-bolt-no-application-id-inside-developer-data-id.fit', ratio: 0.8 }, // 3.2 m of 4 m
        { file: 'fitfilefaker__zwift_20250401.fit', ratio: 0.64 }, // Zwift counts its game world's climbing
        { file: 'fitparse__2019-02-17-062644-ELEMNT-297E-195-0.fit', ratio: 1.49 }, // Wahoo filters more
        { file: 'fitparse__null_compressed_speed_dist.fit', ratio: 1.18 }, // Zwift
        { file: 'goldencheetah__2018-10-03-07-45-28.fit', ratio: 1.18 }, // Edge 520: 81 m of climbing in the points, 69 stated
        { file: 'gpsbabel__lezyne_super_gps-garmin_fit-sample-bad-endian.fit', ratio: 0.82 }, // two rides in one file
        { file: 'muktihari-fit__big_activity.fit', ratio: 0 }, // synthetic: constant altitude, 909 m stated
      ]);
      expect((compared.length - misses.length) / compared.length).toBeGreaterThanOrEqual(0.65);
    });
  },
);

describe('the rules of issue 16', () => {
  const context = (extra: Partial<SummaryContext> = {}): SummaryContext => ({ ...noContext, ...extra });

  it('spreads sparse positions over the rows between them (a run with a position on every fourth record)', () => {
    const columns = line(401, 3, () => 400); // 3 m/s
    for (let i = 0; i < columns.length; i++) {
      if (i % 4 !== 0) columns.x[i] = columns.y[i] = NaN;
    }
    const summary = summarize(columns, context({ sport: 'running' }));
    expect(summary.movingSeconds).toBe(400);
    expect(summary.speedMetersPerSecond!.avg).toBeCloseTo(3, 1);
  });

  it('moves a pool swim during its active lengths', () => {
    const columns = columnsOf(
      Array.from({ length: 100 }, (_, i) => [1_600_000_000 + i * 50, NaN, NaN, NaN] as const),
    );
    const summary = summarize(columns, context({ sport: 'swimming', activeLengthsSeconds: 1234.4 }));
    expect(summary.movingSeconds).toBe(1234);
  });

  it('runs the timer except in the pauses the file marks, and moves in none of them', () => {
    const columns = line(301, 5, () => 400);
    const summary = summarize(columns, context({ pauses: [[1_600_000_100, 1_600_000_160]] }));
    expect(summary.elapsedSeconds).toBe(300);
    expect(summary.timerSeconds).toBe(240);
    expect(summary.timerSource).toBe('pauses');
    expect(summary.movingSeconds).toBeLessThanOrEqual(240);
    // no distance is counted while the device was paused
    expect(summary.distanceMeters).toBeCloseTo(1200, -1);
  });

  it('leaves a clock set 27 days forward out of the times, and says so', () => {
    const columns = line(3600, 5, () => 400);
    for (let i = 3; i < columns.length; i++) columns.t[i] = columns.t[i]! + 27 * 86_400;
    const summary = summarize(columns, context());
    expect(summary.elapsedSeconds).toBe(3598);
    expect(summary.clockJumps).toEqual([{ at: 1_600_000_003 + 27 * 86_400, seconds: 27 * 86_400 + 1 }]);
    const track = trackFromPoints(
      Array.from({ length: 10 }, (_, i) => ({ t: 1_600_000_000 + i + (i >= 3 ? 27 * 86_400 : 0), h: 120 })),
    );
    expect(track.warnings.map((warning) => warning.message)).toEqual([
      'the device clock jumped 27 days forward at 2020-10-10T12:26:43Z; the jump is left out of the elapsed, timer and moving times',
    ]);
  });

  it('reads the FIT fixtures whose clocks jump whole, and leaves the jumps out of the times', () => {
    const forward = parseRideFile(readFixture('fit', 'clock-set-forward.fit')).tracks[0]!;
    expect(forward.points).toHaveLength(2003);
    expect(forward.summary.elapsedSeconds).toBe(2001);
    expect(forward.warnings.map((warning) => warning.code)).toEqual([RideFileWarningCode.CLOCK_JUMP]);
    const glitch = parseRideFile(readFixture('fit', 'clock-glitch-years.fit')).tracks[0]!;
    expect(glitch.summary.elapsedSeconds).toBe(115);
    expect(glitch.summary.clockJumps.length).toBeGreaterThan(0);
    for (const track of [forward, glitch]) expect(invariantViolations(track)).toEqual([]);
  });

  it('leaves a few records years off in the middle out of the times', () => {
    const columns = line(1000, 5, () => 400);
    for (let i = 500; i < 505; i++) columns.t[i] = columns.t[i]! + 20 * 365 * 86_400;
    const summary = summarize(columns, context());
    expect(summary.clockJumps.map((jump) => Math.sign(jump.seconds))).toEqual([1, -1]);
    expect(summary.elapsedSeconds).toBeGreaterThanOrEqual(995);
    expect(summary.elapsedSeconds).toBeLessThanOrEqual(999);
  });

  it('ignores an isolated GPS spike in distance and maximum speed, and says so', () => {
    const columns = line(300, 8, () => 400);
    columns.y[150] = columns.y[150]! + 400 / 111_195; // 400 m off the road for one second
    const summary = summarize(columns, context({ sport: 'cycling' }));
    expect(summary.speedSpikesIgnored).toBe(1);
    expect(summary.distanceMeters).toBeCloseTo(299 * 8, -1);
    expect(summary.speedMetersPerSecond!.max).toBeCloseTo(8, 0);
  });

  it('takes wheel-sensor speed as recorded, and leaves an isolated GPS speed glitch out', () => {
    const gps = line(100, 6, () => 400);
    for (let i = 0; i < gps.length; i++) gps.set(SLOT_S, i, i === 50 ? 60 : 6);
    const glitch = summarize(gps, context());
    expect(glitch.speedMetersPerSecond!.max).toBeCloseTo(6, 4);
    expect(glitch.speedSpikesIgnored).toBe(1);
    gps.wheel.fill(1, 0, gps.length);
    expect(summarize(gps, context()).speedMetersPerSecond!.max).toBe(60);
  });

  it('leaves impossible channel values out of the summary (a power meter sending 21,733 W)', () => {
    const columns = columnsOf(
      Array.from(
        { length: 100 },
        (_, i) => [1_600_000_000 + i, NaN, NaN, NaN, i === 10 ? 21_733 : 200] as const,
      ),
    );
    expect(summarize(columns, context()).powerWatts).toMatchObject({ min: 200, avg: 200, max: 200 });
  });

  it('averages over time: a value recorded every 5 s counts five times one recorded every second', () => {
    const columns = new PointColumns();
    // 10 s at 100 bpm recorded every second, then 50 s at 160 bpm recorded every 5 s.
    for (let second = 0; second <= 60; second += second < 10 ? 1 : 5) {
      const i = columns.append();
      columns.t[i] = 1_600_000_000 + second;
      columns.set(SLOT_H, i, second < 10 ? 100 : 160);
    }
    // ... and the last value its own second, as a device adding the current value every second does.
    expect(summarize(columns, context()).heartRateBpm!.avg).toBeCloseTo((10 * 100 + 50 * 160 + 160) / 61, 6);
  });

  it('leaves coasting zeros out of the average cadence but not out of its minimum', () => {
    const columns = new PointColumns();
    for (let i = 0; i < 10; i++) {
      const row = columns.append();
      columns.t[row] = 1_600_000_000 + i;
      columns.set(SLOT_C, row, i < 5 ? 0 : 90);
    }
    expect(summarize(columns, context()).cadenceRpm).toEqual({ min: 0, avg: 90, max: 90 });
  });

  it('judges an indoor ride without distance by its pedalling', () => {
    const columns = columnsOf(
      Array.from({ length: 120 }, (_, i) => [1_600_000_000 + i, NaN, NaN, NaN, i < 60 ? 180 : 0] as const),
    );
    for (let i = 0; i < columns.length; i++) columns.set(SLOT_D, i, 0);
    const summary = summarize(columns, context({ sport: 'cycling' }));
    expect(summary.movingSeconds).toBe(59);
    expect(summary.speedMetersPerSecond).toBeNull();
  });

  it('uses the stop speed of the sport: a walk at 2 km/h moves, a ride at 2 km/h does not', () => {
    const columns = line(200, 2 / 3.6, () => 400);
    expect(summarize(columns, context({ sport: 'walking' })).movingSeconds).toBe(199);
    // 110 m at 2 km/h still take their time: the moving time is what the distance needs at top speed.
    const ride = summarize(columns, context({ sport: 'cycling' }));
    expect(ride.movingSeconds).toBe(Math.ceil(ride.distanceMeters! / ride.speedMetersPerSecond!.max - 1e-6));
  });
});

describe('laps of a file whose numbers do not describe its points (issue 16)', () => {
  it('are computed from the points of their time, and none begins after the last point', () => {
    const { tracks } = parseRideFile(readFixture('tcx', 'activity.tcx'));
    const [track] = tracks;
    // The fixture's laps claim 180.5 s of timer beside 124 s of points.
    expect(track!.summary.recordedDescribesPoints).toBe(false);
    expect(track!.laps.map((lap) => lap.source)).toEqual(['points', 'points']);
    expect(track!.laps.map((lap) => lap.startTime)).toEqual([1_714_550_400, 1_714_550_520]);
    expect(invariantViolations(track!)).toEqual([]);
  });

  it.skipIf(!corpusAvailable)(
    "give a cut-off ride the lap of the points it holds, not the whole ride's",
    () => {
      const bytes = readCorpus('fit-parser__road-with-power.fit');
      const whole = parseRideFile(bytes).tracks[0]!;
      const cut = parseRideFile(bytes.subarray(0, Math.floor(bytes.length * 0.6))).tracks[0]!;
      expect(whole.laps.map((lap) => lap.source)).toEqual(['file']);
      expect(whole.laps[0]!.distanceMeters).toBe(31217.81);
      expect(cut.laps.map((lap) => lap.source)).toEqual(['points']);
      expect(cut.laps[0]!.distanceMeters).toBeCloseTo(cut.summary.distanceMeters!, 6);
      expect(cut.laps[0]!.elapsedSeconds).toBe(cut.summary.elapsedSeconds);
      expect(invariantViolations(cut)).toEqual([]);
    },
  );
});

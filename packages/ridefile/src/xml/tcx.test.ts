import { describe, expect, it } from 'vitest';
import { corpusAvailable, corpusFiles, readCorpus, readFixture } from '../../../../test/support/corpus.js';
import { DEFAULT_MAX_POINTS } from '../columns.js';
import { emptyLap, type ReaderResult } from '../draft.js';
import { RideFileWarningCode } from '../errors.js';
import type { Track } from '../model.js';
import {
  assertNeverThrowsOnDamage,
  assertReadsOrRefuses,
  assertTooLarge,
  finish,
  readAndFinish,
  utcSeconds,
  wheelRows,
} from '../test-support/xml-readers.js';
import { readTcx } from './tcx.js';

const OPTIONS = { maxPoints: DEFAULT_MAX_POINTS };
const WHEEL = { wheelRows: true };

function readTcxFixture(name: string): ReaderResult {
  return readTcx(readFixture('tcx', name), OPTIONS);
}

describe('readTcx: a Biking activity', () => {
  const result = readTcxFixture('activity.tcx');
  const [draft] = result.drafts;
  // Finishing a draft makes its rows the output's (finishRows): the tracks come from a read of their own.
  const [track] = finish(readTcxFixture('activity.tcx'));

  it('is one ride with the sport, Id start time and Creator device; the Author is not the creator', () => {
    expect(result.drafts).toHaveLength(1);
    expect(result.creator).toBe('Garmin Edge 530');
    expect(result.warnings).toEqual([]);
    expect(track).toMatchObject({
      kind: 'ride',
      name: null,
      sport: 'cycling',
      subSport: null,
      startTime: utcSeconds('2024-05-01T08:00:00Z'),
    });
    expect(track?.summary.device).toBe('Garmin Edge 530');
  });

  it('takes Creator/UnitId as the serial number of the recording device (issue 16); TCX has no creation time', () => {
    expect(track?.recording).toEqual({ serialNumber: '1234567890', timeCreated: null });
  });

  it('applies the wheel-sensor rule point by point: Biking + SensorState Present + DistanceMeters', () => {
    expect(track?.points).toEqual([
      // ns3:TPX
      {
        x: 8.0001,
        y: 47.0001,
        e: 400,
        t: utcSeconds('2024-05-01T08:00:00Z'),
        c: 80,
        h: 120,
        p: 200,
        s: 5,
        d: 0,
      },
      // TPX in a default namespace; the half second is floored
      {
        x: 8.0002,
        y: 47.0002,
        e: 401,
        t: utcSeconds('2024-05-01T08:00:01Z'),
        c: 81,
        h: 121,
        p: 210,
        s: 5.5,
        d: 5.5,
      },
      // TPX in no namespace
      { x: 8.0003, y: 47.0003, t: utcSeconds('2024-05-01T08:02:00Z'), c: 82, h: 122, p: 220, s: 6, d: 11 },
      // no Position: kept
      { t: utcSeconds('2024-05-01T08:02:01Z'), h: 123, d: 17 },
      // Present without DistanceMeters: its speed is not a wheel speed
      { x: 8.0005, y: 47.0005, t: utcSeconds('2024-05-01T08:02:02Z'), h: 124 },
      // Absent: neither speed nor distance
      { x: 8.0006, y: 47.0006, t: utcSeconds('2024-05-01T08:02:03Z'), h: 125 },
      // unreadable latitude: no position, the rest kept; the point with nothing readable is dropped
      { e: 410, t: utcSeconds('2024-05-01T08:02:04Z') },
    ]);
    expect(wheelRows(draft)).toBe(4);
    expect(track?.sensors).toEqual({
      wheelSensor: true,
      wheelSensorReason: 'TCX: 4 points in a Biking activity carry SensorState Present with DistanceMeters',
      devices: [],
    });
  });

  it('keeps the speeds and distances of non-wheel rows in the columns, for the summary', () => {
    const speeds = Array.from(draft?.columns.s.subarray(0, draft.columns.length) ?? []);
    expect(speeds).toEqual([5, 5.5, 6, NaN, 6.5, 7, NaN]);
    const distances = Array.from(draft?.columns.d.subarray(0, draft.columns.length) ?? []);
    expect(distances).toEqual([0, 5.5, 11, 17, NaN, 30, NaN]);
  });

  it("reads every lap's own values, not its trackpoints' (Lap DistanceMeters vs Trackpoint DistanceMeters)", () => {
    // As the reader reads them; the finished track computes them from its points, as the laps claim
    // 180.5 s of timer beside 124 s of points (issue 16, summary.test.ts).
    expect(draft?.laps).toEqual([
      {
        ...emptyLap(),
        startTime: utcSeconds('2024-05-01T08:00:00Z'),
        timerSeconds: 120.5,
        distanceMeters: 1000,
        maxSpeedMetersPerSecond: 9.5,
        calories: 30,
        avgHeartRateBpm: 130,
        maxHeartRateBpm: 150,
        avgCadenceRpm: 88,
        avgSpeedMetersPerSecond: 8.3,
        maxCadenceRpm: 110,
        avgPowerWatts: 205,
        maxPowerWatts: 450,
      },
      {
        ...emptyLap(),
        startTime: utcSeconds('2024-05-01T08:02:00Z'),
        timerSeconds: 60,
        distanceMeters: 500,
        calories: 12,
      },
    ]);
  });

  it('states the sums of its laps as recorded totals and calories', () => {
    expect(track?.summary.recorded).toEqual({
      distanceMeters: 1500,
      timerSeconds: 180.5,
      elapsedSeconds: null,
      ascentMeters: null,
      descentMeters: null,
    });
    expect(track?.summary.calories).toBe(42);
  });
});

describe('readTcx: pauses (issue 16)', () => {
  it('takes a second Track within a lap as a pause of the timer, and a new lap as none', () => {
    const point = (seconds: number): string =>
      `<Trackpoint><Time>${new Date((1_700_000_000 + seconds) * 1000).toISOString()}</Time></Trackpoint>`;
    const track = (from: number, to: number): string =>
      `<Track>${Array.from({ length: to - from + 1 }, (_, i) => point(from + i)).join('')}</Track>`;
    const lap = (tracks: string): string =>
      `<Lap StartTime="2023-11-14T22:13:20Z"><TotalTimeSeconds>1</TotalTimeSeconds>${tracks}</Lap>`;
    const tcx =
      '<TrainingCenterDatabase><Activities><Activity Sport="Biking"><Id>2023-11-14T22:13:20Z</Id>' +
      `${lap(track(0, 100) + track(160, 200))}${lap(track(260, 300))}</Activity></Activities></TrainingCenterDatabase>`;
    const [draft] = readTcx(new TextEncoder().encode(tcx), OPTIONS).drafts;
    expect(draft!.pauses).toEqual([[1_700_000_100, 1_700_000_160]]);
  });
});

describe('readTcx: multisport sessions and courses', () => {
  const result = readTcxFixture('multisport-and-courses.tcx');
  const tracks = finish(result);

  it('makes a ride of every Activity, wherever it sits, and a route of every Course', () => {
    expect(result.creator).toBe('Forerunner 965');
    expect(tracks.map((track) => [track.kind, track.sport, track.name, track.points.length])).toEqual([
      ['ride', 'running', null, 2],
      ['ride', 'cycling', null, 2],
      ['ride', 'cycling', null, 2],
      ['route', null, 'Hill repeats', 2],
      ['route', null, 'Untimed loop', 2],
    ]);
    expect(tracks.map((track) => track.summary.device)).toEqual([
      'Forerunner 965',
      'Forerunner 965',
      'Edge 1040',
      null,
      null,
    ]);
  });

  it('gives no wheel rows to a Running activity, even with SensorState Present and DistanceMeters', () => {
    const [running] = tracks;
    expect(wheelRows(result.drafts[0])).toBe(0);
    expect(running?.sensors.wheelSensorReason).toBe('TCX: not a Biking activity (Sport "Running")');
    // RunCadence stands in for the missing Cadence
    expect(running?.points).toEqual([
      { x: 7, y: 46, t: utcSeconds('2024-07-01T07:00:00Z'), c: 85 },
      { x: 7.0001, y: 46.0001, t: utcSeconds('2024-07-01T07:00:05Z'), c: 86 },
    ]);
    expect(running?.laps[0]).toMatchObject({ avgCadenceRpm: 85, maxCadenceRpm: 90 });
  });

  it('says why a Biking activity has no wheel rows', () => {
    expect(tracks[1]?.sensors).toEqual({
      wheelSensor: false,
      wheelSensorReason: 'TCX: no point has SensorState Present',
      devices: [],
    });
    expect(tracks[2]?.sensors.wheelSensorReason).toBe(
      'TCX: 2 points carry SensorState Present, but none carries DistanceMeters',
    );
    expect(tracks[1]?.points.every((point) => point.d === undefined)).toBe(true);
  });

  it('reads a Course: its Trackpoints with distances (for the summary only), no laps, no course points', () => {
    const course = tracks[3];
    expect(course?.laps).toEqual([]);
    expect(course?.points).toEqual([
      { x: 6, y: 45, e: 300, t: utcSeconds('2024-08-01T10:00:00Z') },
      { x: 6.001, y: 45.001, e: 320, t: utcSeconds('2024-08-01T10:01:40Z') },
    ]);
    expect(course?.summary.distanceMeters).toBe(120);
    expect(course?.sensors.wheelSensor).toBe(false);
    expect(course?.summary.recorded).toBeNull();
  });

  it('ignores a Transition: its totals are not a lap of any activity', () => {
    expect(tracks[1]?.laps.map((lap) => lap.timerSeconds)).toEqual([20]);
  });
});

describe('readTcx: encodings and damaged files', () => {
  it('reads a UTF-8 file with a byte-order mark', () => {
    const result = readTcxFixture('bom-utf8.tcx');
    expect(result.warnings).toEqual([]);
    expect(result.creator).toBe('Zähler – Gerät 🚲');
    expect(result.drafts[0]?.columns.length).toBe(2);
  });

  it('reads an ISO-8859-1 file by its declared encoding', () => {
    const result = readTcxFixture('latin1.tcx');
    expect(result.warnings).toEqual([]);
    expect(result.creator).toBe('Compteur Vélo Gérard');
    expect(result.drafts.map((draft) => draft.name)).toEqual([null, 'Rundfahrt über den Üetliberg']);
  });

  it('keeps the trackpoints and lap before the cut of a truncated file and warns', () => {
    const result = readTcxFixture('truncated.tcx');
    const [track] = finish(result);
    expect(track?.points.slice(0, 2)).toEqual([
      { x: 8.1, y: 47.1, t: utcSeconds('2024-05-01T08:00:00Z'), h: 120 },
      { x: 8.2, y: 47.2, t: utcSeconds('2024-05-01T08:00:01Z'), h: 121 },
    ]);
    // The lap the file holds, as read; the track's lap is computed from the points before the cut.
    expect(result.drafts[0]?.laps.map((lap) => lap.distanceMeters)).toEqual([300]);
    expect(track?.laps.map((lap) => lap.source)).toEqual(['points']);
    expect(track?.laps[0]?.distanceMeters).toBe(track?.summary.distanceMeters);
    expect(result.warnings.map((warning) => warning.code)).toContain(RideFileWarningCode.TRUNCATED);
  });

  it('expands no entity of a billion-laughs file', () => {
    const result = readTcxFixture('billion-laughs.tcx');
    expect(result.drafts).toHaveLength(2);
    expect((result.creator ?? '').length).toBeLessThan(20);
    expect((result.drafts[1]?.name ?? '').length).toBeLessThan(20);
  });

  it('throws RideFileError TOO_LARGE past maxPoints', () => {
    assertTooLarge(() => readTcx(readFixture('tcx', 'activity.tcx'), { maxPoints: 3 }));
  });

  it('never throws on cut or corrupted bytes (property)', () => {
    assertNeverThrowsOnDamage((bytes) => readTcx(bytes, OPTIONS), readFixture('tcx', 'activity.tcx'), WHEEL);
  });
});

// Skipped, with CORPUS_SKIP_REASON printed by test/support/corpus.ts, when ../shared/corpus is absent.
describe.skipIf(!corpusAvailable)('readTcx on the real-world corpus', () => {
  it.each(corpusFiles('tcx').map((file) => file.name))(
    '%s: reads without throwing anything but RideFileError',
    (name) => {
      assertReadsOrRefuses((bytes) => readTcx(bytes, OPTIONS), readCorpus(name), WHEEL);
    },
  );

  const read = (name: string): { result: ReaderResult; tracks: Track[] } =>
    readAndFinish((bytes) => readTcx(bytes, OPTIONS), readCorpus(name));

  it('gpsbabel__gtrnctr_power.tcx: 5109 trackpoints, ns3 Speed/Watts in the columns', () => {
    const { result, tracks } = read('gpsbabel__gtrnctr_power.tcx');
    const [draft] = result.drafts;
    expect(result.creator).toBe('Garmin Edge 705');
    expect(tracks.map((track) => track.points.length)).toEqual([5109]);
    expect(tracks[0]?.points.filter((point) => point.p !== undefined)).toHaveLength(4606);
    expect(
      Array.from(draft?.columns.s.subarray(0, 5109) ?? []).filter((speed) => !Number.isNaN(speed)),
    ).toHaveLength(5108);
    expect(tracks[0]?.sensors.wheelSensorReason).toBe('TCX: no point has SensorState Present');
  });

  it('goldencheetah__activity_165850259_multi-session.tcx: 4 activities of a MultiSportSession', () => {
    const { tracks } = read('goldencheetah__activity_165850259_multi-session.tcx');
    expect(tracks.map((track) => track.sport)).toEqual(['running', 'cycling', 'running', 'cycling']);
    expect(tracks.reduce((sum, track) => sum + track.points.length, 0)).toBe(1893);
    expect(tracks.every((track) => !track.sensors.wheelSensor)).toBe(true);
  });

  it('reads Creator/UnitId as the serial number; a UnitId of 0 names no unit', () => {
    const serials = (name: string): (string | null)[] =>
      read(name).tracks.map((track) => track.recording.serialNumber);
    expect(serials('goldencheetah__activity_165850259_multi-session.tcx')).toEqual([
      '3815748186',
      '3815748186',
      '3815748186',
      '3815748186',
    ]);
    expect(serials('goldencheetah__2010-04-05-21-45-04.tcx')).toEqual(['3480921041']);
    expect(serials('goldencheetah__2020-02-05_17-25-14_Training-with-Notes.tcx')).toEqual([null]);
  });

  it('togeojson__garmin_connect.tcx: 317 points, 316 with a position', () => {
    const { tracks } = read('togeojson__garmin_connect.tcx');
    const points = tracks[0]?.points ?? [];
    expect(points).toHaveLength(317);
    expect(points.filter((point) => point.x !== undefined)).toHaveLength(316);
  });

  it('goldencheetah__2009_09_19_09_22_42.tcx: the 8 Present points of a Biking activity are wheel rows', () => {
    const { result, tracks } = read('goldencheetah__2009_09_19_09_22_42.tcx');
    expect(wheelRows(result.drafts[0])).toBe(8);
    expect(tracks[0]?.sensors.wheelSensor).toBe(true);
    expect(tracks[0]?.points.filter((point) => point.d !== undefined)).toHaveLength(8);
  });

  it('goldencheetah__2020-02-05_17-25-14_Training-with-Notes.tcx: Present everywhere but no point DistanceMeters', () => {
    // SensorState Present on all 6862 points, but the file's only DistanceMeters are its 3 laps' (0.0),
    // so by the rule (docs/contributors/architecture.md) none is a wheel row.
    const { result, tracks } = read('goldencheetah__2020-02-05_17-25-14_Training-with-Notes.tcx');
    expect(tracks[0]?.points).toHaveLength(6862);
    expect(tracks[0]?.points.every((point) => point.x === undefined && point.h !== undefined)).toBe(true);
    expect(wheelRows(result.drafts[0])).toBe(0);
    expect(tracks[0]?.sensors.wheelSensorReason).toBe(
      'TCX: 6862 points carry SensorState Present, but none carries DistanceMeters',
    );
    expect(tracks[0]?.laps).toHaveLength(3);
  });

  it('togeojson__tcx-courses.tcx: a Course is a route', () => {
    const { tracks } = read('togeojson__tcx-courses.tcx');
    expect(tracks.map((track) => [track.kind, track.name, track.points.length])).toEqual([
      ['route', 'Test TCX Route', 30],
    ]);
  });

  it('goldencheetah__activity_769724425.tcx: 5 laps, 490 points without positions', () => {
    const { tracks } = read('goldencheetah__activity_769724425.tcx');
    expect(tracks[0]?.laps).toHaveLength(5);
    expect(tracks[0]?.points).toHaveLength(490);
    expect(tracks[0]?.points.every((point) => point.x === undefined)).toBe(true);
  });

  it('togeojson__sample.tcx: SensorState Absent in a Running activity, 19 points over 3 tracks', () => {
    const { tracks } = read('togeojson__sample.tcx');
    expect(tracks[0]?.sport).toBe('running');
    expect(tracks[0]?.points).toHaveLength(19);
    expect(tracks[0]?.sensors.wheelSensor).toBe(false);
  });
});

import { readdirSync } from 'node:fs';
import { Decoder, Stream, type RecordMesg, type SessionMesg } from '@garmin/fitsdk';
import { describe, expect, it } from 'vitest';
import {
  buildFitFixtures,
  chainedFixtureParts,
  chainedHrOnlyFixtureParts,
  CLOCK_GLITCHES,
  CLOCK_JUMP_SECONDS,
  CLOCK_SET_AFTER_RECORDS,
  CLOCK_SET_RECORDS,
  COMPRESSED_START_FIT,
  HR_ONLY_RUN_SECONDS,
  developerTemperatureTenths,
  samples,
  widePower,
} from '../../../../fixtures/fit/generate.js';
import { fixturePath, readFixture } from '../../../../test/support/corpus.js';
import { invariantViolations } from '../../../../test/support/invariants.js';
import { RideFileError, RideFileErrorCode, RideFileWarningCode } from '../errors.js';
import type { RideFile, Track, TrackPoint } from '../model.js';
import { parseRideFile } from '../parse.js';

/**
 * The FIT rules of docs/contributors/architecture.md (`@rideport/ridefile`), each shown by a synthetic fixture from
 * fixtures/fit/generate.ts. Values are checked against @garmin/fitsdk's Decoder reading the same bytes
 * wherever it can read them, so the expectations do not come from the generator's own arithmetic.
 */

/** 2024-05-04T08:00:00Z, the first record of most fixtures. */
const START = 1_714_809_600;
const SEMICIRCLES_TO_DEGREES = 180 / 2 ** 31;

function parse(name: string): RideFile {
  return parseRideFile(readFixture('fit', name), { filename: name });
}

function onlyTrack(result: RideFile): Track {
  expect(result.tracks).toHaveLength(1);
  return result.tracks[0]!;
}

interface SdkFile {
  records: RecordMesg[];
  sessions: SessionMesg[];
  errors: Error[];
}

function readWithSdk(bytes: Uint8Array, options: { mergeHeartRates?: boolean } = {}): SdkFile {
  const { messages, errors } = new Decoder(Stream.fromByteArray(bytes)).read({
    mergeHeartRates: options.mergeHeartRates ?? true,
  });
  return { records: messages.recordMesgs ?? [], sessions: messages.sessionMesgs ?? [], errors };
}

function sdkFixture(name: string): SdkFile {
  const sdk = readWithSdk(readFixture('fit', name));
  expect(sdk.errors, `@garmin/fitsdk reads ${name}`).toEqual([]);
  return sdk;
}

/** The SDK's date_time as Unix seconds (it gives Dates; "min" and absent values are no time). */
function unixSeconds(value: unknown): number | undefined {
  if (value instanceof Date) return Math.floor(value.getTime() / 1000);
  return typeof value === 'number' ? value : undefined;
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/**
 * Our points against the SDK's records, one for one: time, position, elevation, heart rate, cadence,
 * power and temperature always; speed and distance exactly on the rows `wheelRow` selects and never
 * elsewhere (docs/contributors/architecture.md, the wheel-sensor rule).
 */
function expectPointsMatchSdk(
  points: TrackPoint[],
  records: RecordMesg[],
  wheelRow: (index: number, point: TrackPoint) => boolean,
): void {
  expect(points).toHaveLength(records.length);
  const mismatches: string[] = [];
  records.forEach((record, index) => {
    const point = points[index]!;
    const say = (what: string): void => {
      if (mismatches.length < 8) mismatches.push(`#${index} ${what}: ${JSON.stringify(point)}`);
    };
    if (point.t !== unixSeconds(record.timestamp)) say(`t ≠ ${String(unixSeconds(record.timestamp))}`);
    const lat = numberOrUndefined(record.positionLat);
    const lon = numberOrUndefined(record.positionLong);
    if (lat === undefined || lon === undefined) {
      if (point.x !== undefined || point.y !== undefined) say('a position the record does not have');
    } else if (
      point.x === undefined ||
      point.y === undefined ||
      Math.abs(point.y - lat * SEMICIRCLES_TO_DEGREES) > 1e-9 ||
      Math.abs(point.x - lon * SEMICIRCLES_TO_DEGREES) > 1e-9
    ) {
      say('position');
    }
    const elevation = numberOrUndefined(record.enhancedAltitude ?? record.altitude);
    if (!closeOrBothMissing(point.e, elevation)) say(`e ≠ ${String(elevation)}`);
    if (point.h !== record.heartRate) say(`h ≠ ${String(record.heartRate)}`);
    if (point.c !== record.cadence) say(`c ≠ ${String(record.cadence)}`);
    if (point.p !== record.power) say(`p ≠ ${String(record.power)}`);
    if (point.T !== record.temperature) say(`T ≠ ${String(record.temperature)}`);
    const speed = numberOrUndefined(record.enhancedSpeed ?? record.speed);
    const distance = numberOrUndefined(record.distance);
    if (wheelRow(index, point)) {
      if (!closeOrBothMissing(point.s, speed)) say(`s ≠ ${String(speed)}`);
      if (!closeOrBothMissing(point.d, distance)) say(`d ≠ ${String(distance)}`);
    } else if (point.s !== undefined || point.d !== undefined) {
      say('s/d outside the wheel-sensor rows');
    }
  });
  expect(mismatches).toEqual([]);
}

function closeOrBothMissing(ours: number | undefined, theirs: number | undefined): boolean {
  if (ours === undefined || theirs === undefined) return ours === theirs;
  return Math.abs(ours - theirs) <= 1e-9 * Math.max(1, Math.abs(theirs));
}

function warningCodes(result: RideFile): string[] {
  return result.warnings.map((warning) => warning.code);
}

function withoutTime(point: TrackPoint): TrackPoint {
  const copy = { ...point };
  delete copy.t;
  return copy;
}

const ALL_ROWS = (): boolean => true;
const NO_ROWS = (): boolean => false;

describe('FIT fixtures: generate.ts and the committed files agree', () => {
  const built = buildFitFixtures();

  it('has a committed file for every fixture and no file the script does not make', () => {
    const committed = readdirSync(fixturePath('fit'))
      .filter((name) => name.endsWith('.fit'))
      .sort();
    expect(committed).toEqual([...built.keys()].sort());
  });

  for (const [name, bytes] of built) {
    it(`${name} is byte-identical to what generate.ts encodes`, () => {
      const committed = readFixture('fit', name);
      expect(committed.length).toBe(bytes.length);
      expect(Buffer.from(committed).equals(Buffer.from(bytes))).toBe(true);
    });
  }
});

/** Fixtures that hold nothing to show: parseRideFile refuses them (see 'FIT files with nothing timed to show'). */
const REFUSED_FIXTURES: ReadonlySet<string> = new Set(['untimed-heart-rate.fit', 'no-records.fit']);

describe('FIT fixtures: what holds for every one of them', () => {
  for (const name of [...buildFitFixtures().keys()].filter((name) => !REFUSED_FIXTURES.has(name))) {
    it(`${name}: whole-second t, s/d only with a wheel sensor, d never decreasing`, () => {
      const result = parse(name);
      expect(result.format).toBe('fit');
      expect(result.tracks.length).toBeGreaterThan(0);
      for (const track of result.tracks) {
        expect(track.points.length).toBeGreaterThan(0);
        let lastDistance = -Infinity;
        for (const point of track.points) {
          if (point.t !== undefined) expect(Number.isInteger(point.t)).toBe(true);
          if (!track.sensors.wheelSensor) {
            expect(point.s).toBeUndefined();
            expect(point.d).toBeUndefined();
          }
          if (point.d !== undefined) {
            expect(point.d).toBeGreaterThanOrEqual(lastDistance);
            lastDistance = point.d;
          }
        }
        expect(invariantViolations(track)).toEqual([]);
      }
    });
  }
});

describe('FIT wheel-sensor rule: which device_info makes s and d a wheel sensor’s', () => {
  const wheelFiles: ReadonlyArray<[string, string, { sourceType: string | null; deviceType: string }]> = [
    [
      'wheel-antplus-bike-speed.fit',
      'ANT+ bike_speed (123)',
      { sourceType: 'antplus', deviceType: 'bike_speed' },
    ],
    [
      'wheel-no-source-type.fit',
      'bike_speed_cadence (121) without source_type',
      { sourceType: null, deviceType: 'bike_speed_cadence' },
    ],
    [
      'wheel-ble-speed.fit',
      'Bluetooth LE bike_speed (4)',
      { sourceType: 'bluetooth_low_energy', deviceType: 'bike_speed' },
    ],
    [
      'wheel-ble-speed-cadence.fit',
      'Bluetooth LE bike_speed_cadence (3)',
      { sourceType: 'bluetooth_low_energy', deviceType: 'bike_speed_cadence' },
    ],
    [
      'wheel-ble-antplus-number.fit',
      'Bluetooth LE with the ANT+ number 121',
      { sourceType: 'bluetooth_low_energy', deviceType: '121' },
    ],
  ];

  for (const [name, what, device] of wheelFiles) {
    it(`${name}: ${what} → every point carries the recorded s and d`, () => {
      const track = onlyTrack(parse(name));
      expect(track.sensors.wheelSensor).toBe(true);
      expect(track.sensors.devices).toContainEqual(expect.objectContaining({ index: 1, ...device }));
      expectPointsMatchSdk(track.points, sdkFixture(name).records, ALL_ROWS);
      for (const point of track.points) {
        expect(point.s).toBeDefined();
        expect(point.d).toBeDefined();
      }
    });
  }

  const noWheelFiles: ReadonlyArray<[string, string]> = [
    ['no-wheel-gps-only.fit', 'the recorder and a heart-rate strap only'],
    ['no-wheel-recorder-index-0.fit', 'bike_speed on device_index 0, the recorder itself'],
    ['virtual-ride-with-speed-sensor.fit', 'sub-sport virtual_activity, with an ANT+ bike_speed sensor'],
    ['zwift-manufacturer.fit', 'recorded by Zwift (file_id manufacturer), with an ANT+ bike_speed sensor'],
    ['smart-trainer.fit', 'an ANT+ fitness_equipment trainer and a bike_speed sensor'],
  ];

  for (const [name, what] of noWheelFiles) {
    it(`${name}: ${what} → no s and no d although the records carry speed and distance`, () => {
      const track = onlyTrack(parse(name));
      const sdk = sdkFixture(name);
      // The records do carry speed and distance: only the rule keeps them out of the points.
      expect(sdk.records.every((record) => record.speed !== undefined && record.distance !== undefined)).toBe(
        true,
      );
      expect(track.sensors.wheelSensor).toBe(false);
      expectPointsMatchSdk(track.points, sdk.records, NO_ROWS);
    });
  }

  it('no-wheel-gps-only.fit: the summary distance is still the file’s distance', () => {
    const track = onlyTrack(parse('no-wheel-gps-only.fit'));
    const sdk = sdkFixture('no-wheel-gps-only.fit');
    const stated = sdk.sessions[0]?.totalDistance;
    expect(stated).toBeTypeOf('number');
    expect(track.summary.distanceMeters).toBeCloseTo(Number(stated), 6);
    expect(track.summary.distanceMeters).toBeCloseTo(
      Number(sdk.records[sdk.records.length - 1]?.distance),
      6,
    );
  });

  it('virtual-ride-with-speed-sensor.fit: the sub-sport says virtual_activity', () => {
    const track = onlyTrack(parse('virtual-ride-with-speed-sensor.fit'));
    expect(track.sport).toBe('cycling');
    expect(track.subSport).toBe('virtual_activity');
  });

  it('smart-trainer.fit: indoor points without a position are kept', () => {
    const track = onlyTrack(parse('smart-trainer.fit'));
    expect(track.points).toHaveLength(60);
    for (const point of track.points) {
      expect(point.x).toBeUndefined();
      expect(point.p).toBeDefined();
      expect(point.t).toBeDefined();
    }
  });

  it('wheel-distance-reset.fit: d never goes backwards when the recorded distance does', () => {
    const track = onlyTrack(parse('wheel-distance-reset.fit'));
    const records = sdkFixture('wheel-distance-reset.fit').records;
    expect(track.sensors.wheelSensor).toBe(true);
    const recorded = records.map((record) => Number(record.distance));
    // The fixture's distance does drop (records 30–34), so the rule has something to do.
    expect(recorded.some((distance, index) => index > 0 && distance < recorded[index - 1]!)).toBe(true);
    let highest = -Infinity;
    track.points.forEach((point, index) => {
      const distance = recorded[index]!;
      expect(point.d).toBeDefined();
      expect(point.d!).toBeGreaterThanOrEqual(highest);
      // Where the recorded distance did not go back, the point keeps it.
      if (distance >= highest) expect(point.d!).toBeCloseTo(distance, 9);
      highest = Math.max(highest, distance);
    });
  });
});

describe('FIT multisport: one track, wheel values only inside cycling sessions', () => {
  const name = 'multisport-wheel.fit';

  it('reads run, transition, ride, run as ONE track of sport multisport', () => {
    const track = onlyTrack(parse(name));
    expect(track.sport).toBe('multisport');
    expect(track.points).toHaveLength(101);
    expect(track.sensors.wheelSensor).toBe(true);
  });

  it('gives s and d exactly to the points whose time lies in the cycling session', () => {
    const track = onlyTrack(parse(name));
    const sdk = sdkFixture(name);
    const cycling = sdk.sessions.filter((session) => session.sport === 'cycling');
    expect(cycling).toHaveLength(1);
    const start = unixSeconds(cycling[0]!.startTime)!;
    const end = start + Number(cycling[0]!.totalElapsedTime);
    const inCycling = (_: number, point: TrackPoint): boolean =>
      point.t !== undefined && point.t >= start && point.t <= end;
    expectPointsMatchSdk(track.points, sdk.records, inCycling);
    const withWheel = track.points.filter((point) => point.s !== undefined);
    expect(withWheel).toHaveLength(50);
    expect(track.points.filter((point) => point.d !== undefined)).toHaveLength(50);
  });
});

describe('FIT date_time rule: values below 0x10000000 are device-relative', () => {
  it('relative-time-corrected.fit: a timestamp_correlation gives every point its absolute t', () => {
    const result = parse('relative-time-corrected.fit');
    const track = onlyTrack(result);
    expect(warningCodes(result)).not.toContain(RideFileWarningCode.RELATIVE_TIME);
    expect(track.points.map((point) => point.t)).toEqual(track.points.map((_, index) => START + index));
    expect(track.startTime).toBe(START);
    expect(track.kind).toBe('ride');
  });

  it('relative-time-clock-set.fit: relative times until the clock is set, absolute after → one timeline', () => {
    const result = parse('relative-time-clock-set.fit');
    const track = onlyTrack(result);
    expect(warningCodes(result)).not.toContain(RideFileWarningCode.RELATIVE_TIME);
    expect(track.points.map((point) => point.t)).toEqual(track.points.map((_, index) => START + index));
    expect(track.startTime).toBe(START);
  });

  it('relative-time-uncorrected.fit: no correction → no t, a RELATIVE_TIME warning, other values kept', () => {
    const result = parse('relative-time-uncorrected.fit');
    const track = onlyTrack(result);
    expect(warningCodes(result)).toContain(RideFileWarningCode.RELATIVE_TIME);
    expect(track.points).toHaveLength(60);
    // docs/contributors/decisions.md §5: a FIT activity file is a trip, even when its device never set its clock.
    expect(track.kind).toBe('ride');
    for (const point of track.points) expect(point.t).toBeUndefined();
    // The same ride as the corrected file, minus the times.
    const corrected = onlyTrack(parse('relative-time-corrected.fit')).points;
    expect(track.points).toEqual(corrected.map((point) => withoutTime(point)));
    for (const point of track.points) {
      expect(point.x).toBeDefined();
      expect(point.h).toBeDefined();
      expect(point.p).toBeDefined();
    }
  });
});

describe('FIT developer fields declared equivalent to record.power (native_mesg_num 20, native_field_num 7)', () => {
  it('developer-power-late-description.fit: the description after the first records still gives all of them p', () => {
    const bytes = readFixture('fit', 'developer-power-late-description.fit');
    // The fixture really has records before the description: the SDK, which needs the description
    // first, leaves power off exactly those.
    const sdk = readWithSdk(bytes);
    const sdkPowers = sdk.records.map((record) => record.developerFields?.['0']);
    expect(sdkPowers.slice(0, 5)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    const track = onlyTrack(parse('developer-power-late-description.fit'));
    expect(track.points).toHaveLength(40);
    expect(track.points.map((point) => point.p)).toEqual(track.points.map((_, index) => 300 + index));
    expect(sdkPowers.slice(5)).toEqual(track.points.slice(5).map((point) => point.p));
  });

  it('developer-power-only-late.fit: power-only records before the description read as when it comes first', () => {
    const early = onlyTrack(parse('developer-power-only-early.fit')).points;
    // Timed heart-rate samples alternate with untimed samples that carry only the developer power.
    expect(early).toHaveLength(20);
    expect(early.map((point) => point.p)).toEqual(
      early.map((_, index) => (index % 2 === 1 ? 300 + index : undefined)),
    );
    expect(onlyTrack(parse('developer-power-only-late.fit')).points).toEqual(early);
  });

  it('developer-power-native-wins.fit: where the native power is present it wins over the developer one', () => {
    const name = 'developer-power-native-wins.fit';
    const track = onlyTrack(parse(name));
    const sdk = sdkFixture(name);
    expect(track.points).toHaveLength(40);
    sdk.records.forEach((record, index) => {
      const developer = record.developerFields?.['0'];
      expect(developer).toBe(300 + index);
      if (index < 30) {
        expect(record.power).toBeDefined();
        expect(record.power).not.toBe(developer);
        expect(track.points[index]!.p).toBe(record.power);
      } else {
        // No native power on these records: the equivalent developer field fills the channel.
        expect(record.power).toBeUndefined();
        expect(track.points[index]!.p).toBe(developer);
      }
    });
  });
});

describe('FIT values beyond the Float32 columns of c, h, p and T (PointColumns)', () => {
  it('wide-record-fields.fit: a power declared uint32 keeps values above 2^24 exactly', () => {
    const name = 'wide-record-fields.fit';
    const sdk = sdkFixture(name);
    const points = onlyTrack(parse(name)).points;
    expect(points).toHaveLength(20);
    expect(points.map((point) => point.p)).toEqual(points.map((_, index) => widePower(index)));
    expect(points.map((point) => point.p)).toEqual(sdk.records.map((record) => record.power));
    expect(points.map((point) => point.h)).toEqual(sdk.records.map((record) => record.heartRate));
  });

  it('developer-temperature-scaled.fit: a developer temperature in tenths fills T exactly (21.3, not 21.299999237060547)', () => {
    const name = 'developer-temperature-scaled.fit';
    sdkFixture(name);
    const track = onlyTrack(parse(name));
    expect(track.points).toHaveLength(40);
    const expected = track.points.map((_, index) => developerTemperatureTenths(index) / 10);
    expect(expected.some((value) => Math.fround(value) !== value)).toBe(true);
    expect(track.points.map((point) => point.T)).toEqual(expected);
    expect(track.summary.temperatureCelsius?.max).toBe(Math.max(...expected));
  });
});

describe('FIT architecture: big-endian definitions', () => {
  it('big-endian.fit reads exactly like its little-endian twin', () => {
    const big = parse('big-endian.fit');
    const little = parse('little-endian-twin.fit');
    const bigTrack = onlyTrack(big);
    expect(bigTrack.points).toHaveLength(40);
    expect(bigTrack.points).toEqual(onlyTrack(little).points);
    expect(bigTrack.sensors).toEqual(onlyTrack(little).sensors);
    expect(bigTrack.summary).toEqual(onlyTrack(little).summary);
    expect(big.creator).toBe(little.creator);
    expect(big.warnings).toEqual([]);
  });

  it('big-endian.fit matches @garmin/fitsdk, device_info (a wheel sensor) and session included', () => {
    const track = onlyTrack(parse('big-endian.fit'));
    expect(track.sensors.wheelSensor).toBe(true);
    expect(track.sport).toBe('cycling');
    expect(track.summary.recorded?.distanceMeters).toBeCloseTo(
      Number(sdkFixture('big-endian.fit').sessions[0]?.totalDistance),
      6,
    );
    expectPointsMatchSdk(track.points, sdkFixture('big-endian.fit').records, ALL_ROWS);
  });
});

describe('FIT compressed-timestamp headers', () => {
  // FIXTURE_START_FIT is a multiple of 32; the first record is 26 s later (see generate.ts).
  const first = START + 26;
  const offsets = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 40, 46, 47, 50, 63, 64, 65, 90, 95];

  it('compressed-timestamps.fit: every record gets its time, across five-bit rollovers and gaps', () => {
    const result = parse('compressed-timestamps.fit');
    const track = onlyTrack(result);
    expect(result.warnings).toEqual([]);
    expect(track.points.map((point) => point.t)).toEqual(offsets.map((offset) => first + offset));
  });

  it('compressed-timestamps.fit: the payload after a compressed header is read as its definition says', () => {
    const track = onlyTrack(parse('compressed-timestamps.fit'));
    // No peer decoder reads compressed headers, so the written samples are the reference here.
    const written = samples(96, { start: COMPRESSED_START_FIT });
    expect(track.points.map((point) => point.h)).toEqual(offsets.map((offset) => written[offset]!.heartRate));
    track.points.forEach((point, index) => {
      const sample = written[offsets[index]!]!;
      expect(point.y).toBeCloseTo(sample.lat * SEMICIRCLES_TO_DEGREES, 9);
      expect(point.x).toBeCloseTo(sample.lon * SEMICIRCLES_TO_DEGREES, 9);
    });
  });
});

describe('FIT streams: chained, truncated, bad CRC', () => {
  it('chained.fit: two activity files one after the other → two tracks', () => {
    const result = parse('chained.fit');
    expect(result.warnings).toEqual([]);
    expect(result.tracks).toHaveLength(2);
    const [ride, run] = result.tracks as [Track, Track];
    expect(ride.sport).toBe('cycling');
    expect(ride.points).toHaveLength(30);
    expect(ride.sensors.wheelSensor).toBe(true);
    expect(run.sport).toBe('running');
    expect(run.points).toHaveLength(20);
    expect(run.sensors.wheelSensor).toBe(false);
    expect(run.points[0]?.t).toBe(START + 3600);
    // Each track is what its file gives on its own.
    const [first, second] = chainedFixtureParts();
    expect(ride.points).toEqual(onlyTrack(parseRideFile(first)).points);
    expect(run.points).toEqual(onlyTrack(parseRideFile(second)).points);
    const sdk = sdkFixture('chained.fit');
    expectPointsMatchSdk(ride.points, sdk.records.slice(0, 30), ALL_ROWS);
    expectPointsMatchSdk(run.points, sdk.records.slice(30), NO_ROWS);
  });

  it('truncated.fit: cut inside a record → the points before the cut and a TRUNCATED warning', () => {
    const result = parse('truncated.fit');
    const track = onlyTrack(result);
    const whole = onlyTrack(parse('wheel-antplus-bike-speed.fit')).points;
    expect(warningCodes(result)).toContain(RideFileWarningCode.TRUNCATED);
    // Issue 16: the record the cut falls in yields no point, not even its time and latitude.
    expect(track.points).toEqual(whole.slice(0, 25));
  });

  /**
   * Every cut from the end of the data back to the start of its fourth-last record: the points are the
   * records @garmin/fitsdk reads whole from the same bytes (it never keeps a half-read message), and a
   * prefix of the whole file's points.
   */
  const cutFixtures: ReadonlyArray<[string, (index: number, point: TrackPoint) => boolean]> = [
    ['wheel-antplus-bike-speed.fit', ALL_ROWS],
    ['big-endian.fit', ALL_ROWS],
    ['clock-glitch-years.fit', NO_ROWS],
  ];
  for (const [name, wheelRows] of cutFixtures) {
    it(`${name} cut at every byte of its last records: no half-read record becomes a point`, () => {
      const bytes = readFixture('fit', name);
      const whole = onlyTrack(parse(name)).points;
      const dataEnd = bytes.length - 2;
      let cuts = 0;
      for (let cut = dataEnd; cut > 0; cut--) {
        const sdk = readWithSdk(bytes.subarray(0, cut), { mergeHeartRates: false });
        if (sdk.records.length < whole.length - 4) break;
        const result = parseRideFile(bytes.subarray(0, cut));
        const points = onlyTrack(result).points;
        expect(points, `cut at ${cut}`).toEqual(whole.slice(0, points.length));
        expectPointsMatchSdk(points, sdk.records, wheelRows);
        expect(warningCodes(result)).toContain(RideFileWarningCode.TRUNCATED);
        cuts += 1;
      }
      expect(cuts).toBeGreaterThan(4 * 20);
    });
  }

  it('compressed-timestamps.fit cut at every byte: the points before the cut, none half read', () => {
    // @garmin/fitsdk does not read compressed-timestamp headers: the whole file's points are the reference.
    const bytes = readFixture('fit', 'compressed-timestamps.fit');
    const whole = onlyTrack(parse('compressed-timestamps.fit')).points;
    let previous = 0;
    for (let cut = bytes.length - 2; cut >= bytes.length / 2; cut--) {
      const points = onlyTrack(parseRideFile(bytes.subarray(0, cut))).points;
      expect(points, `cut at ${cut}`).toEqual(whole.slice(0, points.length));
      if (cut < bytes.length - 2) expect(points.length).toBeLessThanOrEqual(previous);
      previous = points.length;
    }
    expect(previous).toBeLessThan(whole.length - 4);
  });

  it('bad-crc.fit: a wrong file CRC → every point and a BAD_CRC warning', () => {
    const result = parse('bad-crc.fit');
    expect(warningCodes(result)).toEqual([RideFileWarningCode.BAD_CRC]);
    expect(onlyTrack(result).points).toEqual(onlyTrack(parse('wheel-antplus-bike-speed.fit')).points);
  });
});

describe('FIT hr messages merged into records', () => {
  it('hr-messages.fit: heart rate as @garmin/fitsdk merges it (mergeHeartRates: true), record for record', () => {
    const bytes = readFixture('fit', 'hr-messages.fit');
    const unmerged = readWithSdk(bytes, { mergeHeartRates: false });
    expect(unmerged.records.every((record) => record.heartRate === undefined)).toBe(true);
    const merged = readWithSdk(bytes);
    expect(merged.errors).toEqual([]);
    const track = onlyTrack(parse('hr-messages.fit'));
    expect(track.points.map((point) => point.h)).toEqual(merged.records.map((record) => record.heartRate));
    // The comparison means something: most records get a heart rate from the strap's beats.
    expect(track.points.filter((point) => point.h !== undefined).length).toBeGreaterThanOrEqual(55);
  });
});

describe('FIT hr-only files chained after (or before) the activity (issue 16)', () => {
  const sdk = sdkFixture('chained-hr-only.fit');

  it('chained-hr-only.fit: one track, with heart rate per record as @garmin/fitsdk merges it', () => {
    const result = parse('chained-hr-only.fit');
    expect(result.warnings).toEqual([]);
    // The strap's file holds no record: it never becomes a track of its own.
    const track = onlyTrack(result);
    expect(track.points).toHaveLength(HR_ONLY_RUN_SECONDS);
    expect(track.points.map((point) => point.h)).toEqual(sdk.records.map((record) => record.heartRate));
    expectPointsMatchSdk(track.points, sdk.records, NO_ROWS);
  });

  it('chained-hr-only.fit: the strap replaces the wrist where its beats cover a record, nowhere else', () => {
    const points = onlyTrack(parse('chained-hr-only.fit')).points;
    const [run] = chainedHrOnlyFixtureParts();
    const wrist = onlyTrack(parseRideFile(run)).points.map((point) => point.h);
    const strapRows = points.flatMap((point, index) => (point.h === wrist[index] ? [] : [index]));
    // The strap reads 115–125 bpm, the wrist 130–140; beats from 20.25 s to 180.25 s and 195.5 s to
    // 215.5 s, each held for up to 5 s after the last (as the SDK does).
    expect(strapRows.length).toBeGreaterThan(170);
    for (const row of strapRows) expect(points[row]!.h).toBeLessThanOrEqual(125);
    for (const row of [0, 20, 190, 216, HR_ONLY_RUN_SECONDS - 1]) expect(points[row]!.h).toBe(wrist[row]);
    for (const row of [21, 100, 180, 196, 215]) expect(strapRows).toContain(row);
    // The SDK's merge of the run alone changes nothing: every strap value comes from the chained file.
    expect(readWithSdk(run).records.map((record) => record.heartRate)).toEqual(wrist);
  });

  it('the strap file chained before the run merges the same', () => {
    const [run, strap] = chainedHrOnlyFixtureParts();
    const bytes = new Uint8Array([...strap, ...run]);
    const track = onlyTrack(parseRideFile(bytes));
    expect(track.points).toEqual(onlyTrack(parse('chained-hr-only.fit')).points);
    expect(track.summary.device).toBe(onlyTrack(parseRideFile(run)).summary.device);
    expect(track.points.map((point) => point.h)).toEqual(
      readWithSdk(bytes).records.map((record) => record.heartRate),
    );
  });
});

describe('FIT clocks that jump are read as written (issue 16)', () => {
  it('clock-set-forward.fit: the clock set 27 days forward after three records → every record, no warning', () => {
    const result = parse('clock-set-forward.fit');
    expect(result.warnings).toEqual([]);
    const track = onlyTrack(result);
    expect(track.points).toHaveLength(CLOCK_SET_RECORDS);
    expectPointsMatchSdk(track.points, sdkFixture('clock-set-forward.fit').records, NO_ROWS);
    // The times the device wrote, jump included.
    expect(track.points.map((point) => point.t)).toEqual(
      track.points.map(
        (_, index) => START + index + (index < CLOCK_SET_AFTER_RECORDS ? 0 : CLOCK_JUMP_SECONDS),
      ),
    );
  });

  it('clock-set-forward.fit with a wrong file CRC: still every record, the CRC warned about', () => {
    const bytes = readFixture('fit', 'clock-set-forward.fit').slice();
    bytes[bytes.length - 1]! ^= 0xff;
    const result = parseRideFile(bytes);
    expect(warningCodes(result)).toEqual([RideFileWarningCode.BAD_CRC]);
    expect(onlyTrack(result).points).toEqual(onlyTrack(parse('clock-set-forward.fit')).points);
  });

  it('clock-glitch-years.fit: three records years off → every record, each with the time it carries', () => {
    const result = parse('clock-glitch-years.fit');
    expect(result.warnings).toEqual([]);
    const track = onlyTrack(result);
    expect(track.points).toHaveLength(120);
    expectPointsMatchSdk(track.points, sdkFixture('clock-glitch-years.fit').records, NO_ROWS);
    expect(track.points.map((point) => point.t)).toEqual(
      track.points.map((_, index) => START + index + (CLOCK_GLITCHES.get(index) ?? 0)),
    );
  });
});

describe('FIT files with nothing timed to show (issue 16)', () => {
  function refusal(name: string): RideFileError {
    try {
      parse(name);
    } catch (error) {
      if (error instanceof RideFileError) return error;
      throw error;
    }
    throw new Error(`${name} was read`);
  }

  it('untimed-positions.fit: records with positions but no time → a route without times', () => {
    const result = parse('untimed-positions.fit');
    const track = onlyTrack(result);
    // docs/contributors/decisions.md §5: untimed tracks become routes, even from an activity file.
    expect(track.kind).toBe('route');
    expect(track.points).toHaveLength(30);
    for (const point of track.points) {
      expect(point.t).toBeUndefined();
      expect(point.x).toBeDefined();
      expect(point.h).toBeDefined();
    }
  });

  it('untimed-heart-rate.fit and no-records.fit: nothing to show → NO_TRACKS, said in plain words', () => {
    const untimed = refusal('untimed-heart-rate.fit');
    expect(untimed.code).toBe(RideFileErrorCode.NO_TRACKS);
    expect(untimed.message).toBe(
      'the FIT file holds 30 records, but none has a time or a position: there is no ride or route to show',
    );
    const empty = refusal('no-records.fit');
    expect(empty.code).toBe(RideFileErrorCode.NO_TRACKS);
    expect(empty.message).toBe('the FIT file holds no track points');
  });
});

describe('FIT courses', () => {
  it('course.fit: file_id type course → one route named after the course', () => {
    const result = parse('course.fit');
    const track = onlyTrack(result);
    expect(track.kind).toBe('route');
    expect(track.name).toBe('Sunday Loop');
    expect(track.sport).toBe('cycling');
    expect(track.points).toHaveLength(50);
    for (const point of track.points) {
      expect(point.x).toBeDefined();
      expect(point.y).toBeDefined();
      expect(point.s).toBeUndefined();
      expect(point.d).toBeUndefined();
    }
  });
});

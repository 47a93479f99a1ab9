/**
 * parseRideFileColumns against parseRideFile (issue 21, "A columnar output"): the same file read both
 * ways gives the same tracks, laps, sensors, summaries and warnings, and row i of the columns is point
 * i, value for value: on every corpus file, and on generated FIT, TCX and GPX files with gaps, bytes
 * the FIT reader must realign past, and cut-off tails.
 */
import { Encoder, Profile } from '@garmin/fitsdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  readCorpus,
} from '../../../test/support/corpus.js';
import { RideFileError } from './errors.js';
import {
  TRACK_POINT_KEYS,
  type ColumnarRideFile,
  type RideFile,
  type TrackColumns,
  type TrackPoint,
} from './model.js';
import { parseRideFile, parseRideFileColumns } from './parse.js';

type Outcome<T> = { ok: true; file: T } | { ok: false; code: string; message: string };

function outcome<T>(read: () => T): Outcome<T> {
  try {
    return { ok: true, file: read() };
  } catch (error) {
    if (!(error instanceof RideFileError)) throw error;
    return { ok: false, code: error.code, message: error.message };
  }
}

/** The points that columns stand for: a point per row, with the keys whose value is not NaN, in key order. */
function pointsOf(columns: TrackColumns): TrackPoint[] {
  const points: TrackPoint[] = [];
  for (let i = 0; i < columns.length; i++) {
    const point: TrackPoint = {};
    for (const key of TRACK_POINT_KEYS) {
      const value = columns[key]?.[i];
      if (value !== undefined && !Number.isNaN(value)) point[key] = value;
    }
    points.push(point);
  }
  return points;
}

/** Asserts that both readings of `bytes` agree (the same error, or the same file); returns the point count. */
function expectSameReading(bytes: Uint8Array): number {
  const objects = outcome(() => parseRideFile(bytes));
  const columnar = outcome(() => parseRideFileColumns(bytes));
  if (!objects.ok || !columnar.ok) {
    expect(columnar).toEqual(objects);
    return 0;
  }
  expectSameFile(objects.file, columnar.file);
  return objects.file.tracks.reduce((sum, track) => sum + track.points.length, 0);
}

function expectSameFile(objects: RideFile, columnar: ColumnarRideFile): void {
  const { tracks, ...file } = objects;
  const { tracks: columnTracks, ...columnFile } = columnar;
  expect(columnFile).toEqual(file);
  expect(columnTracks).toHaveLength(tracks.length);
  tracks.forEach((track, index) => {
    const { points, ...details } = track;
    const { columns, ...columnDetails } = columnTracks[index]!;
    expect(columnDetails).toEqual(details);
    // The same keys in the same order as the track's own
    expect(Object.keys(columnTracks[index]!)).toEqual(
      Object.keys(track).map((key) => (key === 'points' ? 'columns' : key)),
    );
    expect(columns.length).toBe(points.length);
    expect(details.summary.pointCount).toBe(columns.length);
    for (const key of TRACK_POINT_KEYS) {
      const column = columns[key];
      // A channel is there exactly when some point has its key, and then as long as the track.
      expect(column !== undefined, `channel ${key}`).toBe(points.some((point) => point[key] !== undefined));
      if (column === undefined) continue;
      expect(column.length).toBe(columns.length);
      const wide = ['x', 'y', 'e', 't', 's', 'd'].includes(key);
      expect(column instanceof Float64Array || (!wide && column instanceof Float32Array)).toBe(true);
    }
    // toEqual tells 0 from -0 and NaN from a number: value for value, key order included.
    const fromColumns = pointsOf(columns);
    expect(fromColumns).toEqual(points);
    for (let i = 0; i < points.length; i++) {
      if (Object.keys(fromColumns[i]!).join() !== Object.keys(points[i]!).join()) {
        expect(Object.keys(fromColumns[i]!), `key order of point ${i}`).toEqual(Object.keys(points[i]!));
      }
    }
  });
}

describe('parseRideFileColumns: the same as parseRideFile on the corpus', () => {
  it.skipIf(!corpusAvailable)('agrees on every corpus file, value for value', () => {
    const files = corpusFiles();
    expect(files.length).toBeGreaterThan(0);
    let points = 0;
    for (const file of files) points += expectSameReading(readCorpus(file.name));
    expect(points).toBeGreaterThan(0);
  });

  it.runIf(!corpusAvailable)(`skipped: ${CORPUS_SKIP_REASON}`, () => {
    console.warn(`[columnar.test] ${CORPUS_SKIP_REASON}`);
  });
});

// ---------------------------------------------------------------------------------------------------
// Generated files

interface Sample {
  /** seconds after the previous sample: 0 (two samples in one second), a few, or a gap */
  step: number;
  /** a fraction of a second on the time (TCX/GPX write milliseconds; the output floors them) */
  fraction: number;
  position: [lat: number, lng: number] | null;
  elevation: number | null;
  heartRate: number | null;
  cadence: number | null;
  power: number | null;
  temperature: number | null;
  speed: number | null;
  distance: number | null;
}

const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.option(arbitrary, { nil: null, freq: 3 });

const sample: fc.Arbitrary<Sample> = fc.record({
  step: fc.oneof(fc.constantFrom(0, 1, 1, 1, 2, 5), fc.integer({ min: 60, max: 4000 })),
  fraction: fc.constantFrom(0, 0, 0.25, 0.5, 0.999),
  position: maybe(
    fc.tuple(
      fc.double({ min: 46, max: 47, noNaN: true }).map((v) => Math.round(v * 1e6) / 1e6),
      fc.double({ min: 7, max: 8, noNaN: true }).map((v) => Math.round(v * 1e6) / 1e6),
    ),
  ),
  elevation: maybe(fc.integer({ min: -400, max: 40_000 }).map((v) => v / 10)),
  heartRate: maybe(fc.integer({ min: 0, max: 220 })),
  cadence: maybe(fc.integer({ min: 0, max: 200 })),
  power: maybe(fc.integer({ min: 0, max: 2000 })),
  temperature: maybe(fc.oneof(fc.integer({ min: -20, max: 45 }), fc.constantFrom(21.3, -0.5))),
  speed: maybe(fc.integer({ min: 0, max: 20_000 }).map((v) => v / 1000)),
  distance: maybe(fc.integer({ min: 0, max: 5_000_000 }).map((v) => v / 100)),
});

const START = Date.UTC(2024, 4, 1, 8) / 1000;

/** Each sample's time, Unix seconds with its fraction. */
function times(samples: readonly Sample[]): number[] {
  let t = START;
  return samples.map((s) => {
    t += s.step;
    return t + s.fraction;
  });
}

const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

/** A GPX file of one track, cut into segments where `breaks` says (a pause between segments). */
function gpxFile(samples: readonly Sample[], breaks: readonly boolean[]): string {
  const at = times(samples);
  const points = samples.map((s, i) => {
    const [lat, lng] = s.position ?? [NaN, NaN];
    const extensions = [
      s.heartRate === null ? '' : `<gpxtpx:hr>${s.heartRate}</gpxtpx:hr>`,
      s.cadence === null ? '' : `<gpxtpx:cad>${s.cadence}</gpxtpx:cad>`,
      s.temperature === null ? '' : `<gpxtpx:atemp>${s.temperature}</gpxtpx:atemp>`,
      s.speed === null ? '' : `<gpxtpx:speed>${s.speed}</gpxtpx:speed>`,
    ].join('');
    const body = [
      s.elevation === null ? '' : `<ele>${s.elevation}</ele>`,
      `<time>${iso(at[i]!)}</time>`,
      extensions === ''
        ? ''
        : `<extensions>${s.power === null ? '' : `<power>${s.power}</power>`}<gpxtpx:TrackPointExtension>${extensions}</gpxtpx:TrackPointExtension></extensions>`,
    ].join('');
    const segment = i > 0 && breaks[i] === true ? '</trkseg><trkseg>' : '';
    // A point without a position has no place in GPX: it is written with an unreadable one.
    return `${segment}<trkpt lat="${s.position === null ? 'x' : lat}" lon="${s.position === null ? 'x' : lng}">${body}</trkpt>`;
  });
  return (
    '<?xml version="1.0"?><gpx version="1.1" creator="fast-check" xmlns="http://www.topografix.com/GPX/1/1" ' +
    'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><name>generated</name>' +
    `<trkseg>${points.join('')}</trkseg></trk></gpx>`
  );
}

/** A TCX Biking activity; SensorState Present on the samples `wheel` marks; new tracks where `breaks` says. */
function tcxFile(samples: readonly Sample[], breaks: readonly boolean[], wheel: readonly boolean[]): string {
  const at = times(samples);
  const points = samples.map((s, i) => {
    const body = [
      `<Time>${iso(at[i]!)}</Time>`,
      s.position === null
        ? ''
        : `<Position><LatitudeDegrees>${s.position[0]}</LatitudeDegrees><LongitudeDegrees>${s.position[1]}</LongitudeDegrees></Position>`,
      s.elevation === null ? '' : `<AltitudeMeters>${s.elevation}</AltitudeMeters>`,
      s.distance === null ? '' : `<DistanceMeters>${s.distance}</DistanceMeters>`,
      s.heartRate === null ? '' : `<HeartRateBpm><Value>${s.heartRate}</Value></HeartRateBpm>`,
      s.cadence === null ? '' : `<Cadence>${s.cadence}</Cadence>`,
      wheel[i] === true ? '<SensorState>Present</SensorState>' : '',
      s.speed === null && s.power === null
        ? ''
        : `<Extensions><TPX xmlns="http://www.garmin.com/xmlschemas/ActivityExtension/v2">${s.speed === null ? '' : `<Speed>${s.speed}</Speed>`}${s.power === null ? '' : `<Watts>${s.power}</Watts>`}</TPX></Extensions>`,
    ].join('');
    const track = i > 0 && breaks[i] === true ? '</Track><Track>' : '';
    return `${track}<Trackpoint>${body}</Trackpoint>`;
  });
  return (
    '<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">' +
    `<Activities><Activity Sport="Biking"><Id>${iso(START)}</Id><Lap StartTime="${iso(START)}">` +
    `<TotalTimeSeconds>600</TotalTimeSeconds><DistanceMeters>1000</DistanceMeters><Track>${points.join('')}</Track></Lap>` +
    '</Activity></Activities></TrainingCenterDatabase>'
  );
}

const SEMICIRCLES_PER_DEGREE = 2 ** 31 / 180;

/** Writes a message by its profile field names; the SDK looks the message number up by name (Profile.MesgNum). */
function write(encoder: Encoder, mesgNum: number | undefined, fields: Record<string, unknown>): void {
  encoder.onMesg(mesgNum!, fields);
}

/**
 * A FIT activity written by Garmin's SDK: a bike speed sensor (the wheel-sensor rule) or none, timer
 * stop and start events at the gaps, and a session whose totals may or may not describe the records.
 */
function fitFile(samples: readonly Sample[], breaks: readonly boolean[], wheelSensor: boolean): Uint8Array {
  const at = times(samples);
  const encoder = new Encoder();
  const date = (seconds: number): Date => new Date(Math.floor(seconds) * 1000);
  write(encoder, Profile.MesgNum.FILE_ID, {
    type: 'activity',
    manufacturer: 'garmin',
    product: 3121,
    serialNumber: 1234567,
    timeCreated: date(START),
  });
  if (wheelSensor) {
    write(encoder, Profile.MesgNum.DEVICE_INFO, {
      timestamp: date(START),
      deviceIndex: 1,
      sourceType: 'antplus',
      deviceType: 123,
    });
  }
  write(encoder, Profile.MesgNum.EVENT, { timestamp: date(START), event: 'timer', eventType: 'start' });
  samples.forEach((s, i) => {
    if (i > 0 && breaks[i] === true) {
      write(encoder, Profile.MesgNum.EVENT, {
        timestamp: date(at[i - 1]!),
        event: 'timer',
        eventType: 'stopAll',
      });
      write(encoder, Profile.MesgNum.EVENT, { timestamp: date(at[i]!), event: 'timer', eventType: 'start' });
    }
    const record: Record<string, unknown> = { timestamp: date(at[i]!) };
    if (s.position !== null) {
      record['positionLat'] = Math.round(s.position[0] * SEMICIRCLES_PER_DEGREE);
      record['positionLong'] = Math.round(s.position[1] * SEMICIRCLES_PER_DEGREE);
    }
    if (s.elevation !== null) record['altitude'] = Math.max(s.elevation, -500);
    if (s.heartRate !== null) record['heartRate'] = s.heartRate;
    if (s.cadence !== null) record['cadence'] = s.cadence;
    if (s.power !== null) record['power'] = s.power;
    if (s.temperature !== null) record['temperature'] = Math.round(s.temperature);
    if (s.speed !== null) record['speed'] = s.speed;
    if (s.distance !== null) record['distance'] = s.distance;
    write(encoder, Profile.MesgNum.RECORD, record);
  });
  const end = at.at(-1) ?? START;
  write(encoder, Profile.MesgNum.SESSION, {
    timestamp: date(end),
    startTime: date(START),
    sport: 'cycling',
    totalElapsedTime: end - START,
    totalTimerTime: end - START,
    totalDistance: 1000,
  });
  return encoder.close();
}

/** Damage a copy may take: a cut-off tail, or bytes inserted the FIT reader must realign past. */
interface Damage {
  cut: number | null;
  insert: { at: number; bytes: Uint8Array } | null;
}

const damage: fc.Arbitrary<Damage> = fc.record({
  cut: fc.option(fc.double({ min: 0.05, max: 1, noNaN: true }), { nil: null }),
  insert: fc.option(
    fc.record({
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 24 }),
    }),
    { nil: null },
  ),
});

function damaged(bytes: Uint8Array, { cut, insert }: Damage): Uint8Array {
  let result = bytes;
  if (insert !== null) {
    const at = Math.floor(insert.at * result.length);
    result = Uint8Array.from([...result.subarray(0, at), ...insert.bytes, ...result.subarray(at)]);
  }
  if (cut !== null) result = result.subarray(0, Math.floor(cut * result.length));
  return result;
}

const ride = fc.array(sample, { minLength: 1, maxLength: 60 }).chain((samples) =>
  fc.record({
    samples: fc.constant(samples),
    breaks: fc.array(fc.boolean(), { minLength: samples.length, maxLength: samples.length }),
    wheel: fc.array(fc.boolean(), { minLength: samples.length, maxLength: samples.length }),
    wheelSensor: fc.boolean(),
    damage,
  }),
);

const text = (xml: string): Uint8Array => new TextEncoder().encode(xml);

describe('parseRideFileColumns: the same as parseRideFile on generated files (property)', () => {
  it('agrees on FIT files with gaps, realigned data and cut-off tails', () => {
    fc.assert(
      fc.property(ride, ({ samples, breaks, wheelSensor, damage }) => {
        expectSameReading(damaged(fitFile(samples, breaks, wheelSensor), damage));
      }),
      { numRuns: 150 },
    );
  });

  it('agrees on TCX files with wheel and non-wheel rows, new tracks and cut-off tails', () => {
    fc.assert(
      fc.property(ride, ({ samples, breaks, wheel, damage }) => {
        expectSameReading(damaged(text(tcxFile(samples, breaks, wheel)), { ...damage, insert: null }));
      }),
      { numRuns: 150 },
    );
  });

  it('agrees on GPX files with points without positions, segments and cut-off tails', () => {
    fc.assert(
      fc.property(ride, ({ samples, breaks, damage }) => {
        expectSameReading(damaged(text(gpxFile(samples, breaks)), { ...damage, insert: null }));
      }),
      { numRuns: 150 },
    );
  });

  it('the generators make what they claim: wheel rows, segments and realignments reach the output', () => {
    const samples: Sample[] = Array.from({ length: 40 }, (_, i) => ({
      step: i === 20 ? 600 : 1,
      fraction: 0.5,
      position: i === 5 ? null : [46.5 + i / 1e4, 7.5],
      elevation: 500,
      heartRate: 120,
      cadence: 80,
      power: 200,
      temperature: 21,
      speed: 5,
      distance: i * 5,
    }));
    const breaks = samples.map((_, i) => i === 20);
    const fit = fitFile(samples, breaks, true);
    const [track] = parseRideFileColumns(fit).tracks;
    expect(track?.sensors.wheelSensor).toBe(true);
    expect(track?.summary.elapsedSeconds).toBeGreaterThan(600);
    expect(Array.from(track?.columns.d ?? [])).toEqual(samples.map((s) => s.distance));
    expect(Number.isNaN(track?.columns.x?.[5])).toBe(true);
    const realigned = parseRideFileColumns(
      damaged(fit, { cut: null, insert: { at: 0.5, bytes: new Uint8Array(9).fill(7) } }),
    );
    expect(realigned.warnings.map((warning) => warning.code)).toContain('RIDEFILE_SKIPPED_DATA');
    const cut = parseRideFileColumns(damaged(fit, { cut: 0.7, insert: null }));
    expect(cut.warnings.map((warning) => warning.code)).toContain('RIDEFILE_TRUNCATED');
    const tcx = parseRideFileColumns(
      text(
        tcxFile(
          samples,
          breaks,
          samples.map((_, i) => i % 2 === 0),
        ),
      ),
    );
    expect(tcx.tracks[0]?.sensors.wheelSensor).toBe(true);
    // Only the wheel rows carry s and d.
    expect(Array.from(tcx.tracks[0]?.columns.s ?? []).filter((s) => !Number.isNaN(s))).toHaveLength(20);
    const gpx = parseRideFileColumns(text(gpxFile(samples, breaks)));
    expect(gpx.tracks[0]?.summary.timerSource).toBe('pauses');
    expect(gpx.tracks[0]?.columns.s).toBeUndefined();
    expect(Array.from(gpx.tracks[0]?.columns.t ?? []).every(Number.isInteger)).toBe(true);
  });
});

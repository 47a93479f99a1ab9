/**
 * The rules of "one ride per ride" (issue 16; same-recording.ts): each rule on its own, properties over
 * generated tracks and their real export bytes, and the thresholds checked on the real corpus.
 */
import { gzipSync } from 'node:zlib';
import {
  haversineMeters,
  parseRideFile,
  trackFromPoints,
  writeGpx,
  writeTcx,
  type Track,
  type TrackPoint,
} from '@rideport/ridefile';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  readCorpus,
} from '../../../../test/support/corpus.js';
import { sameRecordingTracks } from '../test-support/recordings.js';
import { timeRange } from '../store/track-columns.js';
import { packTrackPoints, PackedPointsReader } from '../codec/track-points.js';
import {
  compareIdentities,
  COMPARED_KEYS,
  comparePoints,
  completes,
  deviceKey,
  pointsAgree,
  POSITION_TOLERANCE_METERS,
  trackFacts,
  type PointAgreement,
  type RecordingFacts,
} from './same-recording.js';

const START = 1_714_809_600;

function facts(overrides: Partial<RecordingFacts>): RecordingFacts {
  return {
    serialNumber: null,
    timeCreated: null,
    device: null,
    firstTime: START,
    lastTime: START + 3600,
    ...overrides,
  };
}

describe('rule (a): both know the serial number', () => {
  const edge = facts({ serialNumber: '3300000001', timeCreated: START - 5, device: 'Garmin Edge 530' });

  it('the same serial and the same first second: the same recording', () => {
    expect(compareIdentities(edge, { ...edge, lastTime: START + 1800 })).toEqual({
      kind: 'same',
      rule: 'serial',
    });
    // A TCX export has no time_created: the serial and start decide alone.
    expect(compareIdentities(edge, { ...edge, timeCreated: null, device: 'Edge 530' }).kind).toBe('same');
  });

  it('another serial, another start, or another time_created: not the same, whatever the names say', () => {
    expect(compareIdentities(edge, { ...edge, serialNumber: '3300000002' })).toEqual({ kind: 'different' });
    expect(compareIdentities(edge, { ...edge, firstTime: START + 1 })).toEqual({ kind: 'different' });
    expect(compareIdentities(edge, { ...edge, timeCreated: START + 60 })).toEqual({ kind: 'different' });
  });
});

describe('rule (b): both name their device', () => {
  it('the same device (normalised) and the same first second: the same recording', () => {
    const fit = facts({ device: 'Garmin Edge 705' });
    expect(compareIdentities(fit, facts({ device: 'EDGE705' }))).toEqual({ kind: 'same', rule: 'device' });
    expect(compareIdentities(fit, facts({ device: 'Edge 705', serialNumber: '1' })).kind).toBe('same');
  });

  it('another device or another start: not the same', () => {
    const watch = facts({ device: 'Garmin Fenix 6' });
    expect(compareIdentities(watch, facts({ device: 'Zwift' }))).toEqual({ kind: 'different' });
    expect(compareIdentities(watch, facts({ device: 'Garmin Fenix 6', firstTime: START + 4 }))).toEqual({
      kind: 'different',
    });
  });

  it('device names compare without case, spaces, punctuation or a leading "Garmin"', () => {
    expect(deviceKey('Garmin Edge 1030 Plus')).toBe('edge1030plus');
    expect(deviceKey('EDGE 1030-Plus')).toBe('edge1030plus');
    expect(deviceKey('Wahoo ELEMNT BOLT')).toBe('wahooelemntbolt');
    expect(deviceKey('Garmin')).toBe('garmin');
    expect(deviceKey(' - ')).toBeNull();
    expect(deviceKey(null)).toBeNull();
  });
});

describe('rule (c): one side does not know its device', () => {
  it('leaves it to the points', () => {
    const fit = facts({ serialNumber: '3300000001', device: 'Garmin Edge 530' });
    expect(compareIdentities(fit, facts({}))).toEqual({ kind: 'compare points' });
    // A serial on one side and only a name on the other cannot be compared either.
    expect(compareIdentities(facts({ serialNumber: '7' }), facts({ device: 'Edge 530' }))).toEqual({
      kind: 'compare points',
    });
  });

  const ride = (count: number, at = START, step = 1): TrackPoint[] =>
    Array.from({ length: count }, (_, i) => ({
      x: 8.5 + i * 5e-5,
      y: 47.37,
      t: at + i * step,
      h: 120 + (i % 9),
    }));

  it('needs MIN_COMMON_SECONDS in common, or all the positions of a track that has fewer', () => {
    const points = ride(100);
    expect(pointsAgree(comparePoints(points, points.slice(0, 29)))).toBe(true);
    expect(pointsAgree(comparePoints(points, points.slice(90)))).toBe(true);
    // Two seconds in common of a long track say nothing.
    expect(pointsAgree(comparePoints(points, ride(100, START + 98)))).toBe(false);
  });

  it('without positions, heart rate, power and cadence decide', () => {
    const indoor = ride(60).map(({ t, h }): TrackPoint & { p: number } => ({
      t: t!,
      h: h!,
      p: 200 + (t! % 13),
    }));
    expect(
      pointsAgree(
        comparePoints(
          indoor,
          indoor.map((point) => ({ ...point, p: point.p + 0.5 })),
        ),
      ),
    ).toBe(true);
    expect(
      pointsAgree(
        comparePoints(
          indoor,
          indoor.map((point) => ({ ...point, p: point.p + 5 })),
        ),
      ),
    ).toBe(false);
  });
});

describe('completes: a longer file of the same recording replaces a cut-off copy', () => {
  const points = Array.from({ length: 600 }, (_, i): TrackPoint => ({ t: START + i, h: 120 }));
  const recording = (some: TrackPoint[]) => ({
    facts: facts({ firstTime: some[0]!.t!, lastTime: some.at(-1)!.t! }),
    points: some,
  });

  it('a stored prefix and the whole: replaced', () => {
    expect(completes(recording(points.slice(0, 250)), recording(points))).toBe(true);
  });

  it('never the whole by a shorter copy, nor a copy by one that ends as it does', () => {
    expect(completes(recording(points), recording(points.slice(0, 250)))).toBe(false);
    expect(completes(recording(points), recording(points))).toBe(false);
  });

  it('never by a file that holds fewer points over the stored span (a thinned export)', () => {
    const thinned = points.filter((_, i) => i % 5 === 0 || i === points.length - 1);
    expect(completes(recording(points.slice(0, 250)), recording(thinned))).toBe(false);
  });

  it('never by a file that starts later (the stored copy is then no prefix of it)', () => {
    expect(completes(recording(points.slice(0, 250)), recording(points.slice(1)))).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties over generated rides and the real bytes of their copies and exports.

interface Generated {
  points: TrackPoint[];
  device: string | null;
  serial: string | null;
}

const METERS_PER_DEGREE = 111_320;

const generatedRide: fc.Arbitrary<Generated> = fc
  .record({
    start: fc.integer({ min: 1_400_000_000, max: 1_900_000_000 }),
    lat: fc.double({ min: -60, max: 60, noNaN: true }),
    lon: fc.double({ min: -170, max: 170, noNaN: true }),
    steps: fc.array(
      fc.record({
        seconds: fc.integer({ min: 1, max: 4 }),
        east: fc.double({ min: -12, max: 12, noNaN: true }),
        north: fc.double({ min: -12, max: 12, noNaN: true }),
      }),
      { minLength: 40, maxLength: 200 },
    ),
    heartRate: fc.boolean(),
    power: fc.boolean(),
    device: fc.constantFrom('Garmin Edge 530', 'Wahoo ELEMNT BOLT', null),
    serial: fc.option(fc.integer({ min: 1, max: 0xffffffff }).map(String)),
  })
  .map(({ start, lat, lon, steps, heartRate, power, device, serial }) => {
    let t = start;
    let y = lat;
    let x = lon;
    const points = steps.map((step, i): TrackPoint => {
      t += step.seconds;
      y += step.north / METERS_PER_DEGREE;
      x += step.east / (METERS_PER_DEGREE * Math.cos((y * Math.PI) / 180));
      return {
        x,
        y,
        t,
        ...(heartRate ? { h: 110 + (i % 50) } : {}),
        ...(power ? { p: 150 + ((i * 7) % 90) } : {}),
      };
    });
    return { points, device, serial };
  });

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const onlyRide = (data: Uint8Array): Track => {
  const [track] = parseRideFile(data).tracks;
  if (track === undefined) throw new Error('no track');
  return track;
};

/** The ride as its device's file (TCX, with the serial as UnitId) and that file's bytes. */
function recorded(ride: Generated): { file: Uint8Array; track: Track } {
  const track = trackFromPoints(ride.points, { device: ride.device, sport: 'cycling' });
  const file = bytes(writeTcx({ ...track, recording: { serialNumber: ride.serial, timeCreated: null } }));
  return { file, track: onlyRide(file) };
}

/** The ride moved `meters` towards `bearing` (degrees), written as a GPX that names no device. */
function moved(track: Track, meters: number, bearing: number): Track {
  const radians = (bearing * Math.PI) / 180;
  const points = track.points.map((point) => {
    const y = point.y! + (meters * Math.cos(radians)) / METERS_PER_DEGREE;
    const x = point.x! + (meters * Math.sin(radians)) / (METERS_PER_DEGREE * Math.cos((y * Math.PI) / 180));
    return { ...point, x, y };
  });
  return onlyRide(bytes(writeGpx(trackFromPoints(points))));
}

/**
 * The rules as first written, over point objects with each second's first point in a Map: the oracle
 * of the columns that replaced them (issue 36).
 */
function agreementByMap(a: readonly TrackPoint[], b: readonly TrackPoint[]): PointAgreement {
  const channels = ['h', 'p', 'c'] as const;
  const positioned = (point: TrackPoint): boolean => point.x !== undefined && point.y !== undefined;
  const bySecond = (points: readonly TrackPoint[]) => {
    const seconds = new Map<number, TrackPoint>();
    let withPosition = 0;
    let values = 0;
    for (const point of points) {
      if (point.t === undefined || seconds.has(point.t)) continue;
      seconds.set(point.t, point);
      if (positioned(point)) withPosition += 1;
      for (const channel of channels) if (point[channel] !== undefined) values += 1;
    }
    return { seconds, withPosition, values };
  };
  const aSeconds = bySecond(a);
  const bSeconds = bySecond(b);
  const [fewer, more] =
    aSeconds.seconds.size <= bSeconds.seconds.size
      ? [aSeconds.seconds, bSeconds.seconds]
      : [bSeconds.seconds, aSeconds.seconds];
  const agreement: PointAgreement = {
    positionSeconds: 0,
    positionsWithin: 0,
    channelSeconds: 0,
    channelsEqual: 0,
    fewerPositioned: Math.min(aSeconds.withPosition, bSeconds.withPosition),
    fewerChannels: Math.min(aSeconds.values, bSeconds.values),
  };
  for (const [second, point] of fewer) {
    const other = more.get(second);
    if (other === undefined) continue;
    if (positioned(point) && positioned(other)) {
      agreement.positionSeconds += 1;
      if (haversineMeters(point.y!, point.x!, other.y!, other.x!) <= POSITION_TOLERANCE_METERS) {
        agreement.positionsWithin += 1;
      }
    }
    for (const channel of channels) {
      if (point[channel] === undefined || other[channel] === undefined) continue;
      agreement.channelSeconds += 1;
      if (Math.abs(point[channel] - other[channel]) <= 1) agreement.channelsEqual += 1;
    }
  }
  return agreement;
}

describe('the points compared as columns (issue 36)', () => {
  /** Points in any order, seconds repeated, any channel missing, positions a few metres apart. */
  const points = fc.array(
    fc.record(
      {
        // Half seconds too: the sort then takes its general path (timedRowsByTime).
        t: fc.oneof(
          { arbitrary: fc.integer({ min: START - 5, max: START + 40 }), weight: 4 },
          { arbitrary: fc.integer({ min: START - 5, max: START + 40 }).map((t) => t + 0.5), weight: 1 },
        ),
        x: fc.integer({ min: 0, max: 8 }).map((step) => 8.5 + step * 1e-5),
        y: fc.integer({ min: 0, max: 8 }).map((step) => 47.3 + step * 1e-5),
        h: fc.integer({ min: 100, max: 104 }),
        p: fc.integer({ min: 0, max: 3 }),
        c: fc.integer({ min: 80, max: 83 }),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 80 },
  );

  it('agree with the rules over point objects, for points as objects and as stored (fast-check)', () => {
    fc.assert(
      fc.property(points, points, (a, b) => {
        const expected = agreementByMap(a, b);
        expect(comparePoints(a, b)).toEqual(expected);
        // As the queue reads a stored trip: its packed form, as columns.
        const stored = (list: readonly TrackPoint[]) =>
          new PackedPointsReader(packTrackPoints(list)).columns(COMPARED_KEYS);
        expect(comparePoints(stored(a), stored(b))).toEqual(expected);
        expect(comparePoints(a, stored(b))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('find each second of two rides of 2,000,000 points, one of them out of order', () => {
    const count = 2_000_000;
    const ride = (order: (i: number) => number) => {
      const t = new Float64Array(count);
      const x = new Float64Array(count);
      const y = new Float64Array(count);
      for (let i = 0; i < count; i++) {
        const second = order(i);
        t[i] = START + second;
        x[i] = 8.5 + second * 1e-6;
        y[i] = 47.3;
      }
      const none = new Float64Array(count).fill(NaN);
      return { t, x, y, h: none, p: none, c: none };
    };
    // The second ride runs backwards: the same seconds and positions, in the other order.
    const agreement = comparePoints(
      ride((i) => i),
      ride((i) => count - 1 - i),
    );
    expect(agreement).toEqual({
      positionSeconds: count,
      positionsWithin: count,
      channelSeconds: 0,
      channelsEqual: 0,
      fewerPositioned: count,
      fewerChannels: 0,
    });
  });
});

describe('properties: the same recording in other bytes, and other recordings', () => {
  it('a ride is the same recording as itself, its gzip, and its TCX and GPX exports', () => {
    fc.assert(
      fc.property(generatedRide, (ride) => {
        const { file, track } = recorded(ride);
        const copies = [
          track,
          onlyRide(gzipSync(file)),
          onlyRide(bytes(writeTcx(track))),
          onlyRide(bytes(writeGpx(track))),
        ];
        for (const copy of copies) {
          expect(sameRecordingTracks(track, copy)).toBe(true);
          expect(sameRecordingTracks(copy, track)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a ride moved by 10–50 m (another device on the same ride) is never the same recording', () => {
    fc.assert(
      fc.property(
        generatedRide,
        fc.double({ min: 10, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 360, noNaN: true }),
        (ride, meters, bearing) => {
          const { track } = recorded(ride);
          expect(sameRecordingTracks(track, moved(track, meters, bearing))).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a ride from another serial number is never the same recording, even point for point', () => {
    fc.assert(
      fc.property(generatedRide, fc.integer({ min: 1, max: 0xffffffff }).map(String), (ride, otherSerial) => {
        fc.pre(ride.serial !== null && ride.serial !== otherSerial);
        const { track } = recorded(ride);
        const other = recorded({ ...ride, serial: otherSerial }).track;
        expect(sameRecordingTracks(track, other)).toBe(false);
      }),
      { numRuns: 60 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// The thresholds on real files (docs/contributors/benchmarks.md, "The same-recording thresholds", quotes these figures).

describe.skipIf(!corpusAvailable)(
  `thresholds on the corpus (${corpusAvailable ? 'real files' : CORPUS_SKIP_REASON})`,
  () => {
    const rides = corpusFiles().flatMap((file) => {
      try {
        return parseRideFile(readCorpus(file.name)).tracks.filter(
          (track) => track.kind === 'ride' && timeRange(track.points) !== null,
        );
      } catch {
        return [];
      }
    });

    it('every corpus ride is the same recording as our GPX and TCX exports of it, to the millimetre', () => {
      let compared = 0;
      // A ride whose timed points carry no position, heart rate, power or cadence cannot be compared
      // (one corpus file: a single timed point with nothing else); the rules keep such rides apart.
      const comparable = rides.filter((ride) =>
        ride.points.some(
          (point) =>
            point.t !== undefined &&
            (point.x !== undefined ||
              point.h !== undefined ||
              point.p !== undefined ||
              point.c !== undefined),
        ),
      );
      expect(rides.length - comparable.length).toBeLessThanOrEqual(2);
      for (const ride of comparable) {
        // GPX has no point without a position: an indoor ride has no GPX export.
        const positioned = ride.points.some((point) => point.x !== undefined);
        for (const exported of positioned ? [writeGpx(ride), writeTcx(ride)] : [writeTcx(ride)]) {
          const copy = parseRideFile(bytes(exported)).tracks[0]!;
          expect(sameRecordingTracks(ride, copy)).toBe(true);
          const agreement = comparePoints(ride.points, copy.points);
          expect(agreement.positionsWithin).toBe(agreement.positionSeconds);
          compared += agreement.positionSeconds;
        }
      }
      expect(compared).toBeGreaterThan(500_000);
    });

    it('a corpus ride moved by 5 m agrees at no second, though the tolerance is 2 m', () => {
      expect(POSITION_TOLERANCE_METERS).toBeLessThan(5);
      for (const ride of rides.filter((track) => track.points.some((point) => point.x !== undefined))) {
        const agreement = comparePoints(ride.points, moved(ride, 5, 45).points);
        expect(agreement.positionsWithin).toBe(0);
      }
    });

    it("gpsbabel's GPX of a Garmin Edge 705 TCX is the same recording as the TCX", () => {
      const tcx = onlyRide(readCorpus('gpsbabel__gtrnctr_power.tcx'));
      const gpx = onlyRide(readCorpus('gpsbabel__gtrnctr_power.gpx'));
      expect(trackFacts(gpx, timeRange(gpx.points)).device).toBeNull();
      expect(sameRecordingTracks(tcx, gpx)).toBe(true);
    });

    it('a Fenix 6 and Zwift recording one indoor session are two recordings (they overlap)', () => {
      const watch = onlyRide(readCorpus('FITfileR__garmin-fenix6-turbo.fit'));
      const zwift = onlyRide(readCorpus('FITfileR__zwift-turbo.fit'));
      const [a, b] = [timeRange(watch.points)!, timeRange(zwift.points)!];
      expect(a.first < b.last && b.first < a.last).toBe(true);
      expect(sameRecordingTracks(watch, zwift)).toBe(false);
    });
  },
);

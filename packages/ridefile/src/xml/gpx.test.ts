import { describe, expect, it } from 'vitest';
import { corpusAvailable, corpusFiles, readCorpus, readFixture } from '../../../../test/support/corpus.js';
import { DEFAULT_MAX_POINTS } from '../columns.js';
import type { ReaderResult } from '../draft.js';
import { RideFileWarningCode } from '../errors.js';
import type { Track } from '../model.js';
import { finishTrack } from '../track.js';
import {
  assertNeverThrowsOnDamage,
  assertReadsOrRefuses,
  assertTooLarge,
  column,
  finish,
  readAndFinish,
  utcSeconds,
} from '../test-support/xml-readers.js';
import { readGpx } from './gpx.js';

const OPTIONS = { maxPoints: DEFAULT_MAX_POINTS };
const WHEEL = { wheelRows: false };

function readGpxFixture(name: string): ReaderResult {
  return readGpx(readFixture('gpx', name), OPTIONS);
}

describe('readGpx: extensions (issue 2: local names, never prefixes)', () => {
  const result = readGpxFixture('extensions.gpx');
  // Finishing a draft makes its rows the output's (finishRows): the tracks come from a read of their own.
  const [track] = finish(readGpxFixture('extensions.gpx'));

  it('reads one ride, its trimmed name, normalised sport and the creator', () => {
    expect(result.creator).toBe('rideport fixture: extensions');
    expect(result.drafts).toHaveLength(1);
    expect(track?.kind).toBe('ride');
    expect(track?.name).toBe('Extensions everywhere');
    expect(track?.sport).toBe('cycling');
    expect(track?.laps).toEqual([]);
    expect(track?.sensors).toEqual({
      wheelSensor: false,
      wheelSensorReason: 'GPX does not say where speed or distance came from',
      devices: [],
    });
  });

  it('reads hr, cad, atemp and power under every prefix, default namespace and extension', () => {
    expect(track?.points).toEqual([
      // gpxtpx: prefix, bare Strava <power>
      {
        x: 8.0001,
        y: 47.0001,
        e: 400.5,
        t: utcSeconds('2024-05-01T08:00:00Z'),
        c: 85,
        h: 120,
        p: 210,
        T: 21.5,
      },
      // ns3: prefix for v2, gpxpx:PowerInWatts; the fraction of the time is floored
      { x: 8.0002, y: 47.0002, e: 401, t: utcSeconds('2024-05-01T08:00:01Z'), c: 86, h: 121, p: 220, T: 21 },
      // default namespace, pwr:PowerExtension; +02:00 offset
      {
        x: 8.0003,
        y: 47.0003,
        e: 402,
        t: utcSeconds('2024-05-01T08:00:02Z'),
        c: 87,
        h: 122,
        p: 230,
        T: 20.5,
      },
      // cluetrust gpxdata, gpxtpx:PowerInWatts
      { x: 8.0004, y: 47.0004, e: 403, t: utcSeconds('2024-05-01T08:00:03Z'), c: 88, h: 123, p: 240, T: 20 },
      // unreadable ele/hr and empty cad are absent, not errors
      { x: 8.0005, y: 47.0005, t: utcSeconds('2024-05-01T08:00:04Z') },
    ]);
  });

  it('keeps recorded speed and distance in the columns for the summary, never in the points', () => {
    const [draft] = result.drafts;
    expect(draft).toBeDefined();
    if (draft === undefined) return;
    expect(column(draft, 's')).toEqual([NaN, 5.5, NaN, NaN, 6.25]);
    expect(column(draft, 'd')).toEqual([NaN, NaN, NaN, 30.5, 41]);
    expect(Array.from(draft.columns.wheel.subarray(0, draft.columns.length))).toEqual([0, 0, 0, 0, 0]);
    for (const point of track?.points ?? []) {
      expect(point).not.toHaveProperty('s');
      expect(point).not.toHaveProperty('d');
    }
    expect(track?.summary.distanceSource).toBe('points');
  });

  it('does not take the metadata time or name for the track', () => {
    expect(track?.startTime).toBe(utcSeconds('2024-05-01T08:00:00Z'));
    expect(track?.name).not.toContain('metadata');
  });
});

describe('readGpx: fractions in the whole-number channels', () => {
  const point = (second: number, power: string, atemp: string, hr: string, cad: string): string =>
    `<trkpt lat="47.0001" lon="8.0001"><time>2024-05-01T08:00:0${second}Z</time><extensions>` +
    `<power>${power}</power><gpxtpx:TrackPointExtension><gpxtpx:atemp>${atemp}</gpxtpx:atemp>` +
    `<gpxtpx:hr>${hr}</gpxtpx:hr><gpxtpx:cad>${cad}</gpxtpx:cad></gpxtpx:TrackPointExtension>` +
    '</extensions></trkpt>';
  const gpx =
    '<gpx xmlns="http://www.topografix.com/GPX/1/1" ' +
    'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><trkseg>' +
    point(0, '250', '21', '120', '85') +
    point(1, '250.1', '21.3', '120.7', '85.5') +
    '</trkseg></trk></gpx>';

  it('keeps 250.1 W, 21.3 °C, 120.7 bpm and 85.5 rpm exactly, and the whole numbers before them', () => {
    const [track] = finish(readGpx(new TextEncoder().encode(gpx), OPTIONS));
    expect(track?.points.map(({ p, T, h, c }) => ({ p, T, h, c }))).toEqual([
      { p: 250, T: 21, h: 120, c: 85 },
      { p: 250.1, T: 21.3, h: 120.7, c: 85.5 },
    ]);
  });
});

describe('readGpx: tracks and routes', () => {
  const result = readGpxFixture('tracks-and-routes.gpx');
  const tracks = finish(result);

  it('makes one draft per non-empty trk and rte, in file order, ignoring waypoints', () => {
    expect(result.creator).toBe('rideport fixture');
    expect(tracks.map((track) => [track.kind, track.name, track.sport, track.points.length])).toEqual([
      ['ride', 'Morning ride', 'cycling', 3],
      ['route', null, 'running', 2],
      ['route', 'Planned loop', 'hiking', 3],
    ]);
  });

  it('joins the segments of a trk in order and takes times only from points', () => {
    expect(tracks[0]?.points).toEqual([
      { x: 7, y: 46, t: utcSeconds('2024-06-01T09:00:00Z') },
      { x: 7.001, y: 46.001, t: utcSeconds('2024-06-01T09:00:10Z') },
      { x: 7.002, y: 46.002, t: utcSeconds('2024-06-01T09:05:00Z') },
    ]);
  });

  it('takes the breaks between segments as pauses of the timer (issue 16)', () => {
    const point = (seconds: number, north: number): string =>
      `<trkpt lat="${47 + north / 111_195}" lon="8"><time>${new Date((1_700_000_000 + seconds) * 1000).toISOString()}</time></trkpt>`;
    const segment = (from: number, to: number): string =>
      `<trkseg>${Array.from({ length: to - from + 1 }, (_, i) => point(from + i, (from + i) * 5)).join('')}</trkseg>`;
    const gpx = `<gpx version="1.1" creator="t"><trk>${segment(0, 100)}${segment(400, 500)}</trk></gpx>`;
    const [draft] = readGpx(new TextEncoder().encode(gpx), OPTIONS).drafts;
    expect(draft!.pauses).toEqual([[1_700_000_100, 1_700_000_400]]);
    const { summary } = finishTrack(draft!);
    expect(summary.elapsedSeconds).toBe(500);
    expect(summary.timerSeconds).toBe(200);
    expect(summary.timerSource).toBe('pauses');
    // the way from the end of one segment to the start of the next is not counted, as devices do
    expect(summary.distanceMeters).toBeCloseTo(1000, -1);
  });

  it('makes an rte a route even when its points have times', () => {
    expect(tracks[2]?.points[0]).toEqual({ x: 6, y: 45, e: 300, t: utcSeconds('2024-06-02T09:00:00Z') });
    expect(tracks[2]?.kind).toBe('route');
  });
});

describe('readGpx: positions', () => {
  it('keeps the other values of a point whose position is unreadable or out of range, and drops empty points', () => {
    const [track] = finish(readGpxFixture('positions.gpx'));
    expect(track?.points).toEqual([
      { t: utcSeconds('2024-05-01T08:00:00Z'), h: 100 },
      { t: utcSeconds('2024-05-01T08:00:01Z') },
      { t: utcSeconds('2024-05-01T08:00:02Z') },
      { e: 400 },
      { x: -180, y: -90, t: utcSeconds('2024-05-01T08:00:03Z') },
      { x: 8.25, y: 47.25, t: utcSeconds('2024-05-01T08:00:04Z') },
    ]);
  });
});

describe('readGpx: encodings and damaged files', () => {
  it('reads a UTF-8 file with a byte-order mark', () => {
    const result = readGpxFixture('bom-utf8.gpx');
    expect(result.warnings).toEqual([]);
    expect(finish(result).map((track) => [track.name, track.points.length])).toEqual([
      ['Grüezi – Ausfahrt 🚲', 2],
    ]);
  });

  it('reads an ISO-8859-1 file by its declared encoding', () => {
    const result = readGpxFixture('latin1.gpx');
    expect(result.creator).toBe("Gérard's GPS");
    expect(result.drafts[0]?.name).toBe('Über den Säntis, Café Crème');
    expect(result.warnings).toEqual([]);
  });

  it('keeps the points before the cut of a truncated file and warns', () => {
    const result = readGpxFixture('truncated.gpx');
    const [track] = finish(result);
    expect(track?.name).toBe('Battery died');
    expect(track?.points.slice(0, 3)).toEqual([
      { x: 8.1, y: 47.1, e: 401, t: utcSeconds('2024-05-01T08:00:00Z') },
      { x: 8.2, y: 47.2, e: 402, t: utcSeconds('2024-05-01T08:00:01Z') },
      { x: 8.3, y: 47.3, e: 403, t: utcSeconds('2024-05-01T08:00:02Z') },
    ]);
    expect(result.warnings.map((warning) => warning.code)).toContain(RideFileWarningCode.TRUNCATED);
  });

  it('expands no entity of a billion-laughs file', () => {
    const result = readGpxFixture('billion-laughs.gpx');
    const [track] = finish(result);
    expect(track?.points).toHaveLength(1);
    expect((track?.name ?? '').length).toBeLessThan(20);
    expect((result.creator ?? '').length).toBeLessThan(20);
    expect(track?.name ?? '').not.toContain('lollol');
  });

  it('throws RideFileError TOO_LARGE past maxPoints', () => {
    const bytes = readFixture('gpx', 'sample-ride.gpx');
    assertTooLarge(() => readGpx(bytes, { maxPoints: 10 }));
  });

  it('never throws on cut or corrupted bytes (property)', () => {
    assertNeverThrowsOnDamage(
      (bytes) => readGpx(bytes, OPTIONS),
      readFixture('gpx', 'extensions.gpx'),
      WHEEL,
    );
  });
});

describe('readGpx: the sample ride that `npm start` inspects', () => {
  it('is a realistic loop with every channel', () => {
    const result = readGpxFixture('sample-ride.gpx');
    expect(result.warnings).toEqual([]);
    const [track] = finish(result);
    expect(track?.kind).toBe('ride');
    expect(track?.points).toHaveLength(30);
    expect(Object.keys(track?.points[0] ?? {})).toEqual(['x', 'y', 'e', 't', 'c', 'h', 'p', 'T']);
    expect(track?.summary.trackType).toBe('loop');
  });
});

// Skipped, with CORPUS_SKIP_REASON printed by test/support/corpus.ts, when ../shared/corpus is absent.
describe.skipIf(!corpusAvailable)('readGpx on the real-world corpus', () => {
  it.each(corpusFiles('gpx').map((file) => file.name))(
    '%s: reads without throwing anything but RideFileError',
    (name) => {
      assertReadsOrRefuses((bytes) => readGpx(bytes, OPTIONS), readCorpus(name), WHEEL);
    },
  );

  const read = (name: string): { result: ReaderResult; tracks: Track[] } =>
    readAndFinish((bytes) => readGpx(bytes, OPTIONS), readCorpus(name));

  it('gpsbabel__mtk_logger_m241_multiple_tracks.gpx: 6 rides, 14263 points, GPX 1.0 speed in the columns only', () => {
    const { result, tracks } = read('gpsbabel__mtk_logger_m241_multiple_tracks.gpx');
    expect(tracks.map((track) => track.name)).toEqual([
      'track-1',
      'track-2',
      'track-3',
      'track-4',
      'track-5',
      'track-6',
    ]);
    expect(tracks.every((track) => track.kind === 'ride')).toBe(true);
    expect(tracks.reduce((sum, track) => sum + track.points.length, 0)).toBe(14263);
    expect(result.drafts.every((draft) => column(draft, 's').every((speed) => !Number.isNaN(speed)))).toBe(
      true,
    );
    // its <gpx><time> (GPX 1.0 file time, 1970) is no point time
    expect(tracks[0]?.startTime).toBe(utcSeconds('2012-11-07T09:11:35Z'));
  });

  it('goldencheetah__A_ride_mapped_on_11_22_2011.gpx: an untimed trk is a route', () => {
    const { tracks } = read('goldencheetah__A_ride_mapped_on_11_22_2011.gpx');
    expect(tracks.map((track) => [track.kind, track.points.length])).toEqual([['route', 9722]]);
  });

  it('gpsbabel__gtrnctr_power.gpx: 5109 points, 5108 with hr, 4160 with cad', () => {
    const { result, tracks } = read('gpsbabel__gtrnctr_power.gpx');
    const points = tracks[0]?.points ?? [];
    expect(result.creator).toBe('GPSBabel - https://www.gpsbabel.org');
    expect(points).toHaveLength(5109);
    expect(points.filter((point) => point.h !== undefined)).toHaveLength(5108);
    expect(points.filter((point) => point.c !== undefined)).toHaveLength(4160);
  });

  it('togeojson__multitrackgpx.gpx: 3 trk, 117 points', () => {
    const { tracks } = read('togeojson__multitrackgpx.gpx');
    expect(tracks.map((track) => track.points.length)).toEqual([38, 65, 14]);
  });

  it('goldencheetah__Move_2014_01_17_09_33_11.gpx: cluetrust hr, temp and distance', () => {
    const { tracks } = read('goldencheetah__Move_2014_01_17_09_33_11.gpx');
    const points = tracks[0]?.points ?? [];
    expect(points).toHaveLength(1405);
    expect(points.every((point) => point.h !== undefined && point.T !== undefined)).toBe(true);
    expect(tracks[0]?.summary.distanceSource).toBe('points');
  });

  it('togeojson__strava.gpx and togeojson__Friday-Evening-Run.gpx: bare power and gpxtpx PowerInWatts', () => {
    const strava = read('togeojson__strava.gpx').tracks[0]?.points ?? [];
    expect(strava.map((point) => point.p)).toEqual([75, undefined, undefined]);
    expect(strava.map((point) => point.T)).toEqual([22, 20, 21]);
    const apple = read('togeojson__Friday-Evening-Run.gpx').tracks[0];
    expect(apple?.sport).toBe('running');
    expect(apple?.points.filter((point) => point.p !== undefined)).toHaveLength(17);
  });

  it('opentracks__legacy_gpx_trackpointextensions_incorrect.gpx: wrongly nested pwr:PowerInWatts still counts', () => {
    const { tracks } = read('opentracks__legacy_gpx_trackpointextensions_incorrect.gpx');
    expect(tracks[0]?.sport).toBe('cycling');
    expect(tracks[0]?.points[1]).toMatchObject({ h: 69, c: 3, p: 50 });
  });

  it('gpxpy__gpx1.0_with_all_fields.gpx: two routes and a one-point ride, no empty trk', () => {
    const { tracks } = read('gpxpy__gpx1.0_with_all_fields.gpx');
    expect(tracks.map((track) => [track.kind, track.name, track.points.length])).toEqual([
      ['route', 'example name', 3],
      ['route', 'second route', 2],
      ['ride', 'example name t', 1],
    ]);
  });

  it('goldencheetah__MetadataOnly.gpx: no tracks, the creator still read', () => {
    const { result } = read('goldencheetah__MetadataOnly.gpx');
    expect(result.drafts).toEqual([]);
    expect(result.creator).toBe('StravaGPX');
  });

  it('togeojson__bad.gpx: undefined positions keep their times', () => {
    const { tracks } = read('togeojson__bad.gpx');
    expect(tracks.map((track) => [track.kind, track.points.length])).toEqual([
      ['ride', 2],
      ['route', 1],
    ]);
    expect(tracks.flatMap((track) => track.points).every((point) => point.x === undefined)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { corpusAvailable, corpusFiles, readCorpus, readFixture } from '../../../../test/support/corpus.js';
import { DEFAULT_MAX_POINTS } from '../columns.js';
import type { ReaderResult } from '../draft.js';
import { RideFileWarningCode } from '../errors.js';
import type { Track } from '../model.js';
import {
  assertNeverThrowsOnDamage,
  assertReadsOrRefuses,
  assertTooLarge,
  column,
  finish,
  readAndFinish,
  utcSeconds,
} from '../test-support/xml-readers.js';
import { readKml } from './kml.js';

const OPTIONS = { maxPoints: DEFAULT_MAX_POINTS };
const WHEEL = { wheelRows: false };

function readKmlFixture(name: string): ReaderResult {
  return readKml(readFixture('kml', name), OPTIONS);
}

describe('readKml: tracks', () => {
  const result = readKmlFixture('tracks.kml');
  // Finishing a draft makes its rows the output's (finishRows): the tracks come from a read of their own.
  const tracks = finish(readKmlFixture('tracks.kml'));

  it('makes one draft per track placemark, named after it; points are not tracks', () => {
    expect(result.creator).toBeNull();
    expect(result.warnings).toEqual([]);
    expect(tracks.map((track) => [track.kind, track.name, track.points.length])).toEqual([
      ['ride', 'When first', 3],
      ['ride', 'Interleaved, coord first', 2],
      ['ride', 'Channels before the lists', 2],
      ['route', 'Untimed track', 2],
    ]);
    expect(tracks[0]?.sensors).toEqual({
      wheelSensor: false,
      wheelSensorReason: 'KML does not say where speed or distance came from',
      devices: [],
    });
  });

  it('pairs the i-th when with the i-th coord and the i-th value of each SimpleArrayData', () => {
    expect(tracks[0]?.points).toEqual([
      {
        x: 8.0001,
        y: 47.0001,
        e: 400,
        t: utcSeconds('2024-05-01T08:00:00Z'),
        c: 80,
        h: 120,
        p: 200,
        T: 21.5,
      },
      { x: 8.0002, y: 47.0002, e: 401.5, t: utcSeconds('2024-05-01T08:00:01Z'), c: 81, p: 210, T: 21 },
      { x: 8.0003, y: 47.0003, t: utcSeconds('2024-05-01T08:00:02Z'), c: 82, h: 122, T: 20.5 },
    ]);
  });

  it('keeps SimpleArrayData speed and distance in the columns only (no wheel sensor)', () => {
    const [draft] = result.drafts;
    expect(column(draft, 's')).toEqual([5, 5.5, 6]);
    expect(column(draft, 'd')).toEqual([0, 10, 21]);
    expect(tracks[0]?.summary.distanceSource).toBe('points');
  });

  it('reads when and coord in any order, and channels given before them', () => {
    expect(tracks[1]?.points).toEqual([
      { x: 7.1, y: 46.1, e: 500, t: utcSeconds('2024-05-02T08:00:00Z'), h: 140 },
      { x: 7.2, y: 46.2, e: 510, t: utcSeconds('2024-05-02T08:00:10Z'), h: 141 },
    ]);
    expect(tracks[2]?.points).toEqual([
      { x: 6.1, y: 45.1, t: utcSeconds('2024-05-03T08:00:00Z'), h: 130 },
      { x: 6.2, y: 45.2, t: utcSeconds('2024-05-03T08:00:05Z'), h: 131 },
    ]);
  });
});

describe('readKml: MultiTrack and LineString', () => {
  it('joins the Tracks of a MultiTrack into one draft per Placemark, gx-prefixed or not', () => {
    const tracks = finish(readKmlFixture('multitrack.kml'));
    expect(tracks.map((track) => [track.kind, track.name, track.points.length])).toEqual([
      ['ride', 'Paused ride', 4],
      ['ride', 'KML 2.3 MultiTrack', 2],
    ]);
    expect(tracks[0]?.points.map((point) => point.x)).toEqual([8.1, 8.2, 8.3, 8.4]);
  });

  it('makes a route of the LineStrings of a Placemark, joined, and ignores points and polygons', () => {
    const tracks = finish(readKmlFixture('linestrings.kml'));
    expect(tracks.map((track) => [track.kind, track.name])).toEqual([
      ['route', 'Planned route'],
      ['route', 'Two legs'],
    ]);
    expect(tracks[0]?.points).toEqual([
      { x: 8.1, y: 47.1, e: 400 },
      { x: 8.2, y: 47.2, e: 410 },
      { x: 8.3, y: 47.3 },
    ]);
    // the unreadable tuple has no value at all and is dropped
    expect(tracks[1]?.points).toEqual([
      { x: 7.1, y: 46.1 },
      { x: 7.2, y: 46.2 },
      { x: 7.3, y: 46.3 },
      { x: 7.5, y: 46.5 },
    ]);
  });

  it('splits coordinates at any whitespace, also beyond ASCII (no-break space, em space)', () => {
    const kml =
      '<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>' +
      '<Placemark><name>Line</name><LineString><coordinates>8.1,47.1,400\u00a08.2,47.2\u2003\n 8.3,47.3,</coordinates>' +
      '</LineString></Placemark>' +
      '<Placemark><name>Track</name><gx:Track><when>2024-05-01T08:00:00Z</when><gx:coord>8.1\u00a047.1 400</gx:coord>' +
      '<when>2024-05-01T08:00:01Z</when><gx:coord>\u2003 8.2,47.2 , 410 </gx:coord></gx:Track></Placemark>' +
      '</Document></kml>';
    const tracks = finish(readKml(new TextEncoder().encode(kml), OPTIONS));
    expect(tracks.map((track) => track.points)).toEqual([
      [
        { x: 8.1, y: 47.1, e: 400 },
        { x: 8.2, y: 47.2 },
        { x: 8.3, y: 47.3 },
      ],
      [
        { x: 8.1, y: 47.1, e: 400, t: utcSeconds('2024-05-01T08:00:00Z') },
        { x: 8.2, y: 47.2, e: 410, t: utcSeconds('2024-05-01T08:00:01Z') },
      ],
    ]);
  });
});

describe('readKml: pauses (issue 16)', () => {
  it('takes the break between the Tracks of a MultiTrack as a pause of the timer', () => {
    const track = (from: number, to: number): string =>
      '<gx:Track>' +
      Array.from(
        { length: to - from + 1 },
        (_, i) => `<when>${new Date((1_700_000_000 + from + i) * 1000).toISOString()}</when>`,
      ).join('') +
      Array.from(
        { length: to - from + 1 },
        (_, i) => `<gx:coord>8 ${47 + (from + i) / 10_000} 400</gx:coord>`,
      ).join('') +
      '</gx:Track>';
    const kml =
      '<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Placemark>' +
      `<gx:MultiTrack>${track(0, 100)}${track(160, 200)}</gx:MultiTrack></Placemark></kml>`;
    const [draft] = readKml(new TextEncoder().encode(kml), OPTIONS).drafts;
    expect(draft!.pauses).toEqual([[1_700_000_100, 1_700_000_160]]);
  });
});

describe('readKml: damaged and unusual files', () => {
  it('pairs what aligns when the when and coord counts differ, keeps the extra row and names the counts', () => {
    const result = readKmlFixture('unequal-counts.kml');
    expect(finish(result)[0]?.points).toEqual([
      { x: 8.1, y: 47.1, e: 400, t: utcSeconds('2024-05-01T08:00:00Z') },
      { t: utcSeconds('2024-05-01T08:00:01Z') },
      { t: utcSeconds('2024-05-01T08:00:02Z') },
    ]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]?.code).toBe(RideFileWarningCode.SKIPPED_DATA);
    expect(result.warnings[0]?.message).toContain('3 <when> but 2 <coord>');
  });

  it('reads a UTF-8 file with a byte-order mark', () => {
    const result = readKmlFixture('bom-utf8.kml');
    expect(result.warnings).toEqual([]);
    expect(finish(result).map((track) => [track.name, track.points.length])).toEqual([
      ['Grüezi – Ausfahrt 🚲', 2],
    ]);
  });

  it('reads an ISO-8859-1 file by its declared encoding', () => {
    const result = readKmlFixture('latin1.kml');
    expect(result.warnings).toEqual([]);
    expect(result.drafts.map((draft) => draft.name)).toEqual(['Über den Säntis, Café Crème']);
  });

  it('keeps the points before the cut of a truncated file and warns', () => {
    const result = readKmlFixture('truncated.kml');
    const [track] = finish(result);
    expect(track?.name).toBe('Battery died');
    expect(track?.points.slice(0, 2)).toEqual([
      { x: 8.1, y: 47.1, e: 401, t: utcSeconds('2024-05-01T08:00:00Z') },
      { x: 8.2, y: 47.2, e: 402, t: utcSeconds('2024-05-01T08:00:01Z') },
    ]);
    expect(result.warnings.map((warning) => warning.code)).toContain(RideFileWarningCode.TRUNCATED);
  });

  it('expands no entity of a billion-laughs file', () => {
    const result = readKmlFixture('billion-laughs.kml');
    const [track] = finish(result);
    expect((track?.name ?? '').length).toBeLessThan(20);
    expect(track?.points).toEqual([{ x: 8.1, y: 47.1, t: utcSeconds('2024-05-01T08:00:00Z') }]);
  });

  it('throws RideFileError TOO_LARGE past maxPoints', () => {
    assertTooLarge(() => readKml(readFixture('kml', 'tracks.kml'), { maxPoints: 2 }));
  });

  it('never throws on cut or corrupted bytes (property)', () => {
    assertNeverThrowsOnDamage((bytes) => readKml(bytes, OPTIONS), readFixture('kml', 'tracks.kml'), WHEEL);
  });
});

// Skipped, with CORPUS_SKIP_REASON printed by test/support/corpus.ts, when ../shared/corpus is absent.
describe.skipIf(!corpusAvailable)('readKml on the real-world corpus', () => {
  it.each(corpusFiles('kml').map((file) => file.name))(
    '%s: reads without throwing anything but RideFileError',
    (name) => {
      assertReadsOrRefuses((bytes) => readKml(bytes, OPTIONS), readCorpus(name), WHEEL);
    },
  );

  const read = (name: string): { result: ReaderResult; tracks: Track[] } =>
    readAndFinish((bytes) => readKml(bytes, OPTIONS), readCorpus(name));

  it('gpsbabel__realtime.kml: SimpleArrayData heartrate, cadence, power and temperature on the points', () => {
    const { tracks } = read('gpsbabel__realtime.kml');
    expect(tracks.map((track) => [track.kind, track.name, track.points.length])).toEqual([
      ['ride', 'Track', 17],
      ['route', 'Path', 17],
    ]);
    const points = tracks[0]?.points ?? [];
    expect(points[0]).toMatchObject({ x: -32.061312, y: 30.470605, e: 26.03, c: 245, h: 25, p: 88.9 });
    expect(points.filter((point) => point.h !== undefined)).toHaveLength(14);
    expect(points.filter((point) => point.c !== undefined)).toHaveLength(11);
    expect(points.filter((point) => point.p !== undefined)).toHaveLength(11);
    expect(points.filter((point) => point.T !== undefined)).toHaveLength(13);
  });

  it('togeojson__multitrack.kml and togeojson__non_gx_multitrack.kml: one 16-point ride each', () => {
    for (const name of ['togeojson__multitrack.kml', 'togeojson__non_gx_multitrack.kml']) {
      const { tracks } = read(name);
      expect(tracks.map((track) => [track.kind, track.name, track.points.length])).toEqual([
        ['ride', '8/8/2013 17:20', 16],
      ]);
    }
  });

  it('togeojson__gxtrack.kml and gpsbabel__Placemark-Track-1.kml: 7 points, gx-prefixed or not', () => {
    expect(read('togeojson__gxtrack.kml').tracks[0]?.points).toEqual(
      read('gpsbabel__Placemark-Track-1.kml').tracks[0]?.points,
    );
    expect(read('togeojson__gxtrack.kml').tracks[0]?.points).toHaveLength(7);
  });

  it('opentracks__kml22_order_location_and_when.kml: empty coords keep their index', () => {
    const { result, tracks } = read('opentracks__kml22_order_location_and_when.kml');
    const points = tracks[0]?.points ?? [];
    expect(points).toHaveLength(5);
    expect(points.map((point) => point.x)).toEqual([undefined, 14, 14.001, 14.002, undefined]);
    expect(result.warnings).toEqual([]);
  });

  it('opentracks__kml22_when_locations_different.kml: 1 when, 2 coords: a warning naming the counts', () => {
    const { result, tracks } = read('opentracks__kml22_when_locations_different.kml');
    expect(tracks[0]?.points).toEqual([
      { t: Math.floor(utcSeconds('2021-05-29T18:06:21.767Z')) },
      { x: 14, y: 3, e: 10 },
    ]);
    expect(result.warnings.map((warning) => warning.message)).toEqual([
      expect.stringContaining('1 <when> but 2 <coord>'),
    ]);
  });

  it('opentracks__kml22_without_locations.kml: an empty Track is no track', () => {
    expect(read('opentracks__kml22_without_locations.kml').result.drafts).toEqual([]);
  });

  it('opentracks__legacy_kml22_statistics_marker.kml: a MultiTrack of 2 Tracks with SimpleArrayData speed', () => {
    const { result, tracks } = read('opentracks__legacy_kml22_statistics_marker.kml');
    expect(tracks.map((track) => [track.kind, track.name, track.points.length])).toEqual([
      ['ride', '2020-11-28 18:06', 6],
    ]);
    expect(column(result.drafts[0], 's')).toEqual([0.5391469, 0.15777911, 0, 0, 0, 0]);
  });

  it('togeojson__linestring.kml: two LineString routes', () => {
    const { tracks } = read('togeojson__linestring.kml');
    expect(tracks.map((track) => [track.kind, track.name, track.points.length])).toEqual([
      ['route', 'unextruded', 2],
      ['route', 'extruded', 2],
    ]);
  });

  it('gpsbabel__google_ext.kml: 451 timed points', () => {
    const { tracks } = read('gpsbabel__google_ext.kml');
    expect(tracks.map((track) => [track.kind, track.points.length])).toEqual([['ride', 451]]);
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  readCorpus,
  REPOSITORY_ROOT,
} from '../../../../test/support/corpus.js';
import { PointColumns, SLOT_C, SLOT_D, SLOT_H, SLOT_P, SLOT_S, SLOT_TEMPERATURE } from '../columns.js';
import { noWheelSensor, UNKNOWN_RECORDING } from '../draft.js';
import type { RideFile, Track, TrackPoint } from '../model.js';
import { parseRideFile } from '../parse.js';
import { finishTrack } from '../track.js';
import {
  csvChunks,
  geoJsonChunks,
  gpxChunks,
  tcxChunks,
  writeGeoJson,
  writeGpx,
  writeTcx,
  WRITERS,
} from './index.js';
import { courseNames } from './tcx.js';
import { CHUNK_CHARACTERS } from './text.js';

const START = 1_714_809_600;

/** A small ride built in memory: `count` points north from 47°N, one a second, with every channel. */
function ride(count: number, options: { name?: string | null; wheel?: boolean } = {}): Track {
  const columns = new PointColumns(Math.max(count, 1));
  for (let i = 0; i < count; i++) {
    const row = columns.append();
    columns.x[row] = 8 + i * 1e-5;
    columns.y[row] = 47 + i * 1e-5;
    columns.e[row] = 400 + (i % 50) / 5;
    columns.t[row] = START + i;
    columns.set(SLOT_H, row, 120 + (i % 40));
    columns.set(SLOT_C, row, 85);
    columns.set(SLOT_P, row, 200 + (i % 7));
    columns.set(SLOT_S, row, 7.5);
    columns.set(SLOT_D, row, i * 7.5);
    columns.set(SLOT_TEMPERATURE, row, 18);
    columns.wheel[row] = options.wheel === true ? 1 : 0;
  }
  return finishTrack({
    kind: 'ride',
    name: options.name === undefined ? 'Morning ride' : options.name,
    sport: 'cycling',
    subSport: 'road',
    startTime: START,
    columns,
    laps: [],
    sensors: { ...noWheelSensor('test'), wheelSensor: options.wheel === true },
    recorded: null,
    calories: null,
    device: 'Garmin Edge 530',
    recording: UNKNOWN_RECORDING,
  });
}

interface FeatureCollection {
  features: Array<{ properties: Record<string, unknown>; geometry: { coordinates: unknown } }>;
}
const geoJson = (text: string): FeatureCollection => JSON.parse(text) as FeatureCollection;

const file = (...tracks: Track[]): RideFile => ({
  format: 'fit',
  creator: 'Garmin Edge 530',
  tracks,
  warnings: [],
});
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('writers: names and text', () => {
  const awkward = 'Tom & Jerry <"Col du Galibier"> 1\'000 m — Zürich→Genève 🚴';

  it('escapes markup and keeps non-ASCII in XML, so the name reads back exactly', () => {
    const track = ride(10, { name: awkward });
    for (const write of [writeGpx, writeTcx]) {
      const xml = write(file(track));
      expect(xml).not.toContain('Tom & Jerry');
      expect(xml).not.toContain('<"Col');
    }
    expect(parseRideFile(bytes(writeGpx(file(track)))).tracks[0]!.name).toBe(awkward);
    const route = { ...track, kind: 'route' as const, name: 'R&D <loop>' };
    expect(parseRideFile(bytes(writeTcx(file(route)))).tracks[0]!.name).toBe('R&D <loop>');
    expect(geoJson(writeGeoJson(file(track))).features[0]!.properties['name']).toBe(awkward);
  });

  it('leaves out characters XML cannot carry at all', () => {
    // A Track made by hand: the library's own tracks have clean names already (file-text.ts).
    const track = { ...ride(5), name: 'bad\u0000\u0007name\uD800' };
    expect(parseRideFile(bytes(writeGpx(file(track)))).tracks[0]!.name).toBe('badname');
  });

  it('writes a wheel-sensor speed in TrackPointExtension and power as <power>', () => {
    const gpx = writeGpx(file(ride(3, { wheel: true })));
    expect(gpx).toContain(
      '<extensions><power xmlns="urn:rideport:power">200</power><gpxtpx:TrackPointExtension>',
    );
    expect(gpx).toContain(
      '<gpxtpx:atemp>18</gpxtpx:atemp><gpxtpx:hr>120</gpxtpx:hr><gpxtpx:cad>85</gpxtpx:cad><gpxtpx:speed>7.5</gpxtpx:speed>',
    );
    expect(writeGpx(file(ride(3)))).not.toContain('speed');
  });

  it('marks only wheel-sensor distance as SensorState Present in TCX', () => {
    expect(writeTcx(file(ride(3, { wheel: true })))).toContain(
      '<DistanceMeters>7.5</DistanceMeters><HeartRateBpm>',
    );
    expect(writeTcx(file(ride(3, { wheel: true })))).toContain('<SensorState>Present</SensorState>');
    const plain = writeTcx(file(ride(3)));
    expect(plain).not.toContain('SensorState');
    expect(plain).not.toMatch(/<Trackpoint>.*<DistanceMeters>/);
  });

  it('keeps TCX course names within 15 characters and unique, and activity ids unique', () => {
    const route = (name: string | null): Track => ({ ...ride(2, { name }), kind: 'route' });
    expect(
      courseNames([route('Path'), route('Path'), route('Path'), route(null), route('Tour de Suisse day 1')]),
    ).toEqual(['Path', 'Path 2', 'Path 3', 'Route', 'Tour de Suisse']);
    expect(courseNames([route('Tour de Suisse day 1'), route('Tour de Suisse day 2')])).toEqual([
      'Tour de Suisse',
      'Tour de Suiss 2',
    ]);
    const twice = writeTcx(file(ride(3), ride(3)));
    expect(twice).toContain('<Id>2024-05-04T08:00:00Z</Id>');
    expect(twice).toContain('<Id>2024-05-04T08:00:00.001Z</Id>');
  });

  it('names the unit of every CSV column and leaves unknown cells empty', () => {
    const track = ride(2);
    const withGap = { ...track, points: [track.points[0]!, { t: START + 1 }] };
    const csv = [...csvChunks(file(withGap))].join('');
    const [header, first, second] = csv.split('\r\n');
    expect(header).toBe(
      'track,time_utc,unix_time_s,longitude_deg,latitude_deg,elevation_m,heart_rate_bpm,cadence_rpm,power_w,speed_m_per_s,distance_m,temperature_c',
    );
    expect(first).toBe('1,2024-05-04T08:00:00Z,1714809600,8,47,400,120,85,200,,,18');
    expect(second).toBe('1,2024-05-04T08:00:01Z,1714809601,,,,,,,,,');
  });

  it('aligns GeoJSON channels with the coordinates, null where unknown', () => {
    const track = ride(3);
    const gapped = { ...track, points: [track.points[0]!, { x: 8.1, y: 47.1 }, track.points[2]!] };
    const feature = geoJson(writeGeoJson(file(gapped))).features[0]!;
    const channels = feature.properties['coordinateProperties'] as Record<string, unknown[]>;
    expect(feature.geometry.coordinates).toEqual([
      [8, 47],
      [8.1, 47.1],
      [8.00002, 47.00002],
    ]);
    expect(channels['times']).toEqual(['2024-05-04T08:00:00Z', null, '2024-05-04T08:00:02Z']);
    expect(channels['heart']).toEqual([120, null, 122]);
    expect(channels['elevations']).toEqual([400, null, 400.4]);
    expect((feature.properties['summary'] as { pointCount: number }).pointCount).toBe(3);
  });
});

describe('writers: a 2-million-point track is written in bounded chunks', () => {
  // Built once: the columns hold the track; the writers must never hold a whole document.
  const huge = ride(2_000_000, { wheel: true });

  for (const [name, chunks] of Object.entries({
    gpx: gpxChunks,
    tcx: tcxChunks,
    geojson: geoJsonChunks,
    csv: csvChunks,
  })) {
    it(`${name}: every chunk stays near ${CHUNK_CHARACTERS} characters`, () => {
      let count = 0;
      let largest = 0;
      let total = 0;
      for (const chunk of chunks(file(huge))) {
        count += 1;
        largest = Math.max(largest, chunk.length);
        total += chunk.length;
      }
      expect(count).toBeGreaterThan(100);
      // A chunk is cut after the point that passes the mark: at most one point's text more.
      expect(largest).toBeLessThan(CHUNK_CHARACTERS + 4096);
      expect(total).toBeGreaterThan(2_000_000 * 40);
    });
  }

  it('offers every writer by format name', () => {
    expect(Object.keys(WRITERS).sort()).toEqual(['csv', 'geojson', 'gpx', 'tcx']);
  });
});

/**
 * Independent checks (issue 3): gpsbabel (Debian's package) reads the GPX and TCX we write with the same
 * point count, and xmllint validates them against the GPX 1.1 and TCX v2 schemas (the XSDs come from
 * Debian's pytrainer package). `.ci/install-system-tools` installs all three; CI must have them.
 */
const hasGpsbabel = spawnSync('gpsbabel', ['-V'], { encoding: 'utf8' }).status === 0;
const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;
const XSD_DIR = process.env['RIDEPORT_XSD_DIR'] ?? join(REPOSITORY_ROOT, '.cache', 'xsd');
const GPX_XSD = join(XSD_DIR, 'Topografix_gpx11.xsd');
const TCX_XSD = join(XSD_DIR, 'GarminTrainingCenterDatabase_v2.xsd');
const hasSchemas = hasXmllint && existsSync(GPX_XSD) && existsSync(TCX_XSD);
const TOOLS_SKIP_REASON = `${hasGpsbabel ? '' : 'gpsbabel '}${hasSchemas ? '' : 'xmllint+XSDs '}missing (run .ci/install-system-tools)`;
if (!hasGpsbabel || !hasSchemas)
  console.warn(`[rideport] ${TOOLS_SKIP_REASON}: those writer checks are skipped`);

/**
 * xmllint's complaints about `path` against `xsd`, '' when valid. One departure is ours on purpose
 * (tcx.ts): a TCX trackpoint without a time is written without `<Time>`, so for TCX the schema's
 * "Time expected" complaints are left out, and only those.
 */
function schemaErrors(xsd: string, path: string): string {
  // An untimed route's TCX draws one complaint per point: a megabyte of them would pass spawnSync's
  // default buffer, cut the output mid-line and kill xmllint (a CI run failed so).
  const run = spawnSync('xmllint', ['--noout', '--schema', xsd, path], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (run.error) throw run.error;
  if (run.status === 0) return '';
  return run.stderr
    .split('\n')
    .filter((line) => line.includes('validity error'))
    .filter((line) => xsd !== TCX_XSD || !/Expected is \( \{[^}]+\}Time \)/.test(line))
    .slice(0, 3)
    .join('\n');
}

describe('gpsbabel and the schemas accept what we write', () => {
  it('are installed where CI runs', () => {
    if (process.env['CI'] !== undefined) expect(hasGpsbabel && hasSchemas, TOOLS_SKIP_REASON).toBe(true);
  });

  const dir = mkdtempSync(join(tmpdir(), 'rideport-gpsbabel-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe.skipIf(!hasSchemas)(`schemas (${hasSchemas ? 'xmllint' : TOOLS_SKIP_REASON})`, () => {
    it('validates a ride with every channel, a route, and awkward names', () => {
      const awkward = 'Tom & Jerry <"Col du Galibier"> — Zürich';
      const track = ride(50, { name: awkward, wheel: true });
      const route = { ...ride(20, { name: 'R&D <loop>' }), kind: 'route' as const };
      const gpxPath = join(dir, 'built.gpx');
      const tcxPath = join(dir, 'built.tcx');
      writeFileSync(gpxPath, writeGpx(file(track, route)));
      writeFileSync(tcxPath, writeTcx(file(track, route)));
      expect(schemaErrors(GPX_XSD, gpxPath)).toBe('');
      expect(schemaErrors(TCX_XSD, tcxPath)).toBe('');
    });

    it('finds a real schema error (the check can fail)', () => {
      const path = join(dir, 'broken.gpx');
      writeFileSync(
        path,
        writeGpx(file(ride(3)))
          .replace('<ele>', '<elevation>')
          .replace('</ele>', '</elevation>'),
      );
      expect(schemaErrors(GPX_XSD, path)).toMatch(/elevation/);
    });
  });

  /** Points gpsbabel reads from `path`: its track points plus its route points (one kind per run). */
  const countWithGpsbabel = (format: 'gpx' | 'gtrnctr', path: string): number =>
    ['-t', '-r'].reduce((sum, kind) => {
      const csv = execFileSync('gpsbabel', [kind, '-i', format, '-f', path, '-o', 'unicsv', '-F', '-'], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      return sum + Math.max(0, csv.trim().split('\n').length - 1);
    }, 0);

  const samples = corpusAvailable
    ? corpusFiles().filter((entry) => ['fit', 'tcx', 'gpx', 'kml'].includes(entry.format))
    : [];

  describe.skipIf(!hasGpsbabel || !hasSchemas || !corpusAvailable)(
    `corpus samples (${!corpusAvailable ? CORPUS_SKIP_REASON : hasGpsbabel && hasSchemas ? 'gpsbabel, xmllint' : TOOLS_SKIP_REASON})`,
    () => {
      for (const sample of samples) {
        it(sample.name, () => {
          let parsed: RideFile;
          try {
            parsed = parseRideFile(readCorpus(sample.name));
          } catch {
            return; // a file with no track (corpus.test.ts names them)
          }
          const count = (keep: (point: TrackPoint) => boolean): number =>
            parsed.tracks.reduce((sum, track) => sum + track.points.filter(keep).length, 0);
          const positioned = count((point) => point.x !== undefined);
          // gpsbabel's TCX reader takes a latitude or longitude of exactly 0 for "no position".
          const positionedOffZero = count((point) => point.x !== undefined && point.x !== 0 && point.y !== 0);
          const gpxPath = join(dir, `${sample.name}.gpx`);
          const tcxPath = join(dir, `${sample.name}.tcx`);
          writeFileSync(gpxPath, writeGpx(parsed));
          writeFileSync(tcxPath, writeTcx(parsed));
          expect(schemaErrors(GPX_XSD, gpxPath)).toBe('');
          expect(schemaErrors(TCX_XSD, tcxPath)).toBe('');
          expect(countWithGpsbabel('gpx', gpxPath)).toBe(positioned);
          expect(countWithGpsbabel('gtrnctr', tcxPath)).toBe(positionedOffZero);
        });
      }
    },
  );
});

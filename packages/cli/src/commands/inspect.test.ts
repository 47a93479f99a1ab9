import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseRideFile, TRACK_POINT_KEYS } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFile,
  readFixture,
} from '../../../../test/support/corpus.js';
import type { InspectedRide } from '../inspect-json.js';
import { rideport, temporaryDirectory } from '../test-support/run.js';

const SAMPLE = 'fixtures/gpx/sample-ride.gpx';
const sample = parseRideFile(readFixture('gpx', 'sample-ride.gpx'));

describe('rideport inspect (text)', () => {
  it('reports the file and each track in readable lines', async () => {
    const run = await rideport(['inspect', SAMPLE]);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n').map((line) => line.trimEnd());
    for (const expected of [
      'format        GPX',
      'creator       StravaGPX',
      'warnings      none',
      'tracks        1',
      'track 1 of 1: ride "Evening lap of the Allmend"',
      '  sport         cycling',
      '  start         2024-05-06T17:12:00Z',
      '  points        30',
      '  distance      1.02 km (from positions)',
      '  elapsed       0:02:25',
      '  timer         0:02:25 (the file marks no pause)',
      '  moving        0:02:25',
      '  elevation     +14.5 m / -15.5 m (from points)',
      '  heart rate    min 124 / avg 141 / max 157 bpm',
      '  cadence       min 76 / avg 85 / max 91 rpm',
      '  device        unknown',
      '  wheel sensor  no: GPX does not say where speed or distance came from',
      '  laps          0',
      '  bounds        SW 47.35365, 8.52088  NE 47.35675, 8.52538',
    ]) {
      expect(lines).toContain(expected);
    }
    // Issue 35: what each letter is, the letters as --json and the points JSON have them; a channel on
    // every point needs no count ('points 30' says it), and the list wraps between channels only.
    expect(run.stdout).toContain(
      '\n  channels      x longitude, y latitude, e elevation, t time, c cadence,\n                h heart rate, p power, T temperature\n',
    );
    expect(run.stdout).toMatch(
      /^ {2}speed {9}min [\d.]+ \/ avg [\d.]+ \/ max [\d.]+ km\/h \(range from the positions\)$/m,
    );
    expect(run.stdout).toMatch(/^ {2}power {9}min 109 \/ avg 194 \/ max 287 W, normalized \d+ W$/m);
  });

  it('names the channels found on only some points with their count', async () => {
    const run = await rideport(['inspect', 'fixtures/fit/hr-messages.fit']);
    const channels = /^ {2}channels {6}([^]*?)\n {2}distance/m.exec(run.stdout)?.[1]?.replace(/\n +/g, ' ');
    expect(channels).toMatch(/, h heart rate on \d+ of \d+ points/);
    for (const part of channels!.split(', ')) {
      expect(part).toMatch(
        /^[xyetchpsdT] (longitude|latitude|elevation|time|cadence|heart rate|power|speed from a wheel sensor|distance from a wheel sensor|temperature)( on \d+ of \d+ points)?$/,
      );
    }
  });

  it('lists each warning of the file with its code after it, never before', async () => {
    const run = await rideport(['inspect', 'fixtures/gpx/truncated.gpx']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^warnings {6}[1-9]\d*$/m);
    expect(run.stdout).toMatch(
      /^ {2}the XML ends before its elements are closed .+ \(RIDEFILE_TRUNCATED\)$/m,
    );
    expect(run.stdout).not.toMatch(/^\s*RIDEFILE_/m);
  });

  it("says each track's warnings in words, where a cut-off ride stops (UTC), and the code (issue 16)", async () => {
    const run = await rideport(['inspect', 'fixtures/fit/truncated.fit']);
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n').map((line) => line.trimEnd());
    expect(lines).toContain('  start         2024-05-04T08:00:00Z');
    expect(lines).toContain('  end           2024-05-04T08:00:24Z');
    expect(lines).toContain(
      '  warning       This file ends early: the ride was read up to 08:00 UTC. (RIDEFILE_TRUNCATED)',
    );
    const crc = await rideport(['inspect', 'fixtures/fit/bad-crc.fit']);
    expect(crc.stdout).toContain(
      '  warning       This file is damaged (its checksum does not match its content): the ride shows what could be read. (RIDEFILE_BAD_CRC)',
    );
    // A sound file has no warning line.
    const sound = await rideport(['inspect', SAMPLE]);
    expect(sound.stdout).not.toMatch(/^ {2}warning /m);
  });

  it('reports every track of a file with several, routes included', async () => {
    const run = await rideport(['inspect', 'fixtures/tcx/multisport-and-courses.tcx']);
    expect(run.status).toBe(0);
    const expected = parseRideFile(readFixture('tcx', 'multisport-and-courses.tcx'));
    for (const [index, track] of expected.tracks.entries()) {
      expect(run.stdout).toContain(`track ${index + 1} of ${expected.tracks.length}: ${track.kind} `);
    }
    expect(expected.tracks.some((track) => track.kind === 'route')).toBe(true);
  });
});

describe('rideport inspect --json', () => {
  it('prints the ride file without points, with point count, channels, verdict and summary', async () => {
    const run = await rideport(['inspect', SAMPLE, '--json']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    const inspected = JSON.parse(run.stdout) as InspectedRide & { tracks: Record<string, unknown>[] };
    expect(inspected.format).toBe('gpx');
    expect(inspected.creator).toBe('StravaGPX');
    expect(inspected.warnings).toEqual([]);
    const track = inspected.tracks[0]!;
    expect(track).not.toHaveProperty('points');
    const { points, ...withoutPoints } = sample.tracks[0]!;
    expect(track).toMatchObject(withoutPoints);
    expect(track['pointCount']).toBe(points.length);
    expect(track['lastPointTime']).toBe(points.at(-1)!.t);
    expect(track['channels']).toEqual({ x: 30, y: 30, e: 30, t: 30, c: 30, h: 30, p: 30, T: 30 });
    expect(track['sensors']).toMatchObject({
      wheelSensor: false,
      wheelSensorReason: 'GPX does not say where speed or distance came from',
    });
    expect(track['summary']).toEqual(sample.tracks[0]!.summary);
  });

  it('reads a gzip-compressed file like the plain one', async () => {
    const directory = temporaryDirectory();
    try {
      writeFileSync(join(directory.path, 'ride.gpx.gz'), gzipSync(readFixture('gpx', 'sample-ride.gpx')));
      const gz = await rideport(['inspect', '--json', 'ride.gpx.gz'], directory.path);
      const plain = await rideport(['inspect', '--json', SAMPLE]);
      expect(gz.status).toBe(0);
      expect(gz.stdout).toBe(plain.stdout);
    } finally {
      directory.remove();
    }
  });
});

describe('rideport inspect: failures are status 1 and one stderr line', () => {
  let directory: ReturnType<typeof temporaryDirectory>;
  beforeEach(() => {
    directory = temporaryDirectory();
  });
  afterEach(() => {
    directory.remove();
  });

  it('a missing file: ENOENT', async () => {
    const run = await rideport(['inspect', 'missing.fit'], directory.path);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderrLines).toEqual([
      `rideport: inspect missing.fit: ENOENT: ${join(directory.path, 'missing.fit')} does not exist`,
    ]);
  });

  it('a directory: EISDIR', async () => {
    const run = await rideport(['inspect', '.'], directory.path);
    expect(run.status).toBe(1);
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toBe(`rideport: inspect .: EISDIR: ${directory.path} is a folder, not a file`);
  });

  it('a file that is no ride file, whatever its name: RIDEFILE_UNKNOWN_FORMAT', async () => {
    writeFileSync(join(directory.path, 'ride.fit'), 'Lorem ipsum dolor sit amet\n');
    const run = await rideport(['inspect', 'ride.fit', '--json'], directory.path);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toMatch(/^rideport: inspect ride\.fit: RIDEFILE_UNKNOWN_FORMAT: \S/);
  });

  it('an empty file: RIDEFILE_EMPTY', async () => {
    writeFileSync(join(directory.path, 'empty.gpx'), '');
    const run = await rideport(['inspect', 'empty.gpx'], directory.path);
    expect(run.status).toBe(1);
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toMatch(/^rideport: inspect empty\.gpx: RIDEFILE_EMPTY: \S/);
  });

  it('a file without points: RIDEFILE_NO_TRACKS', async () => {
    writeFileSync(
      join(directory.path, 'meta.gpx'),
      '<?xml version="1.0"?><gpx version="1.1"><metadata/></gpx>',
    );
    const run = await rideport(['inspect', 'meta.gpx'], directory.path);
    expect(run.status).toBe(1);
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toMatch(/^rideport: inspect meta\.gpx: RIDEFILE_NO_TRACKS: \S/);
  });
});

describe.skipIf(!corpusAvailable)(
  `rideport inspect, real files (${corpusAvailable ? 'corpus' : CORPUS_SKIP_REASON})`,
  () => {
    it('a Wahoo ELEMNT ride: wheel-sensor speed and distance, every channel counted', async () => {
      const file = corpusFile('fitparse__2019-02-17-062644-ELEMNT-297E-195-0.fit');
      const run = await rideport(['inspect', file.path, '--json']);
      expect(run.status).toBe(0);
      const inspected = JSON.parse(run.stdout) as InspectedRide;
      expect(inspected.format).toBe('fit');
      const track = inspected.tracks[0]!;
      expect(track.kind).toBe('ride');
      expect(track.sport).toBe('cycling');
      // SOURCES.md counts 13471 records, with speed on 13426 and distance on 13425 of them.
      expect(track.pointCount).toBe(13_471);
      expect(Object.keys(track.channels)).toEqual(TRACK_POINT_KEYS.filter((key) => key in track.channels));
      expect(track.channels.t).toBe(13_471);
      expect(track.channels.s).toBeGreaterThan(13_000);
      expect(track.channels.d).toBeGreaterThan(13_000);
      expect(track.sensors.wheelSensor).toBe(true);
      expect(track.sensors.wheelSensorReason).not.toBe('');
      expect(track.summary.pointCount).toBe(13_471);
    });

    it('a Garmin Fenix 2 multisport file, as text', async () => {
      const file = corpusFile('fitparse__activity-large-fenxi2-multisport.fit');
      const run = await rideport(['inspect', file.path]);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^format {8}FIT$/m);
      expect(run.stdout).toMatch(/^ {2}points {8}24239$/m);
      expect(run.stdout).toMatch(/^ {2}elapsed {7}6:5\d:\d\d$/m);
      expect(run.stdout).toMatch(/^ {2}wheel sensor {2}no: \S/m);
    });
  },
);

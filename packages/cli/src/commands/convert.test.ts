import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseRideFile, writeCsv, writeGeoJson, writeGpx, writeTcx } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFile,
  fixturePath,
  readFixture,
} from '../../../../test/support/corpus.js';
import { REPOSITORY_ROOT, rideport, temporaryDirectory } from '../test-support/run.js';

const SAMPLE = 'fixtures/gpx/sample-ride.gpx';
const samplePoints = parseRideFile(readFixture('gpx', 'sample-ride.gpx')).tracks[0]!.points;

interface PointsDocument {
  format: string;
  tracks: { kind: string; name: string | null; points: Record<string, number>[] }[];
}

describe('rideport convert --to points, to stdout', () => {
  it('prints one JSON document with exactly format and tracks of kind, name and points', async () => {
    for (const args of [
      ['convert', SAMPLE],
      ['convert', SAMPLE, '--to', 'points'],
      ['convert', '--to=points', SAMPLE],
    ]) {
      const run = await rideport(args);
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout.endsWith('}\n')).toBe(true);
      expect(run.stdout.indexOf('\n')).toBe(run.stdout.length - 1);
      const document = JSON.parse(run.stdout) as PointsDocument;
      expect(Object.keys(document)).toEqual(['format', 'tracks']);
      expect(document.format).toBe('gpx');
      expect(document.tracks).toHaveLength(1);
      expect(Object.keys(document.tracks[0]!)).toEqual(['kind', 'name', 'points']);
      expect(document.tracks[0]!.kind).toBe('ride');
      expect(document.tracks[0]!.name).toBe('Evening lap of the Allmend');
      expect(document.tracks[0]!.points).toEqual(samplePoints);
    }
  });

  it('keeps rides and routes apart in a file holding several', async () => {
    const run = await rideport(['convert', 'fixtures/tcx/multisport-and-courses.tcx']);
    expect(run.status).toBe(0);
    const document = JSON.parse(run.stdout) as PointsDocument;
    const expected = parseRideFile(readFixture('tcx', 'multisport-and-courses.tcx'));
    expect(document.tracks.map((track) => [track.kind, track.name, track.points])).toEqual(
      expected.tracks.map((track) => [track.kind, track.name, track.points]),
    );
  });
});

describe('rideport convert --out', () => {
  let directory: ReturnType<typeof temporaryDirectory>;
  beforeEach(() => {
    directory = temporaryDirectory();
  });
  afterEach(() => {
    directory.remove();
  });

  it('writes the whole document to the file and nothing to stdout', async () => {
    const out = join(directory.path, 'ride.json');
    const run = await rideport(['convert', SAMPLE, '--out', out]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    // What was written, in words (issue 20).
    expect(run.stderr).toBe(`wrote ${out}: JSON points, 1 track, ${samplePoints.length} points\n`);
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect((JSON.parse(text) as PointsDocument).tracks[0]!.points).toEqual(samplePoints);
    // Only the target is left: the temporary file was renamed, not copied.
    expect(readdirSync(directory.path)).toEqual(['ride.json']);
  });

  it('replaces an existing file and resolves a relative --out against the working directory', async () => {
    writeFileSync(join(directory.path, 'ride.json'), 'old content that is longer than nothing at all');
    const run = await rideport(
      ['convert', fixturePath('gpx', 'sample-ride.gpx'), '--out', 'ride.json'],
      directory.path,
    );
    expect(run.status).toBe(0);
    const document = JSON.parse(readFileSync(join(directory.path, 'ride.json'), 'utf8')) as PointsDocument;
    expect(document.tracks[0]!.points).toHaveLength(samplePoints.length);
    expect(readdirSync(directory.path)).toEqual(['ride.json']);
  });

  it('fails with ENOENT naming the target when its directory does not exist', async () => {
    const out = join(directory.path, 'missing', 'ride.json');
    const run = await rideport(['convert', SAMPLE, '--out', out]);
    expect(run.status).toBe(1);
    expect(run.stderrLines).toEqual([
      `rideport: convert ${SAMPLE}: ENOENT: cannot write ${out}: the folder ${dirname(out)} does not exist`,
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it('writes no file at all when the input cannot be read', async () => {
    const out = join(directory.path, 'ride.json');
    writeFileSync(join(directory.path, 'notes.txt'), 'not a ride\n');
    const run = await rideport(['convert', 'notes.txt', '--out', out], directory.path);
    expect(run.status).toBe(1);
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toMatch(/^rideport: convert notes\.txt: RIDEFILE_UNKNOWN_FORMAT: /);
    expect(readdirSync(directory.path)).toEqual(['notes.txt']);
  });

  it('reads a gzip-compressed file like the plain one', async () => {
    writeFileSync(join(directory.path, 'ride.gpx.gz'), gzipSync(readFixture('gpx', 'sample-ride.gpx')));
    const run = await rideport(['convert', 'ride.gpx.gz'], directory.path);
    expect(run.status).toBe(0);
    const document = JSON.parse(run.stdout) as PointsDocument;
    expect(document.format).toBe('gpx');
    expect(document.tracks[0]!.points).toEqual(samplePoints);
  });
});

describe('rideport convert: files that cannot be read, in words (issue 20)', () => {
  it.each([
    ['a file that does not exist', 'fixtures/gpx/no-such-ride.gpx', 'ENOENT', 'does not exist'],
    ['a folder', 'fixtures/gpx', 'EISDIR', 'is a folder, not a file'],
  ])('%s', async (_case, file, code, words) => {
    for (const command of ['convert', 'inspect']) {
      const run = await rideport([command, file]);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `rideport: ${command} ${file}: ${code}: ${join(REPOSITORY_ROOT, file)} ${words}\n`,
      );
    }
  });
});

describe('rideport convert to the writer formats', () => {
  const sample = parseRideFile(readFixture('gpx', 'sample-ride.gpx'));

  it.each([
    ['gpx', writeGpx],
    ['tcx', writeTcx],
    ['geojson', writeGeoJson],
    ['csv', writeCsv],
  ] as const)('--to %s prints what the library writer writes', async (target, write) => {
    const run = await rideport(['convert', SAMPLE, '--to', target]);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(write(sample));
  });

  it('reads its own GPX and TCX back to the same positions and times', async () => {
    for (const target of ['gpx', 'tcx']) {
      const run = await rideport(['convert', SAMPLE, '--to', target]);
      const back = parseRideFile(new TextEncoder().encode(run.stdout));
      expect(back.format).toBe(target);
      expect(back.tracks[0]!.points.map(({ x, y, t }) => [x, y, t])).toEqual(
        samplePoints.map(({ x, y, t }) => [x, y, t]),
      );
    }
  });

  it('takes the target from the --out extension when --to is not given', async () => {
    const directory = temporaryDirectory();
    try {
      for (const [name, start] of [
        ['ride.gpx', '<?xml'],
        ['ride.TCX', '<?xml'],
        ['ride.geojson', '{"type":"FeatureCollection"'],
        ['ride.csv', 'track,time_utc'],
        ['ride.json', '{"format":"gpx"'],
      ] as const) {
        const run = await rideport(
          ['convert', fixturePath('gpx', 'sample-ride.gpx'), '--out', name],
          directory.path,
        );
        expect(run.status).toBe(0);
        expect(readFileSync(join(directory.path, name), 'utf8').startsWith(start)).toBe(true);
      }
      // An extension that names no writer, or none, is a usage error that lists them, and writes nothing
      // (issue 20: `--out y.kml` wrote JSON points).
      for (const name of ['y.kml', 'y.fit', 'ride.txt', 'ride']) {
        const run = await rideport(
          ['convert', fixturePath('gpx', 'sample-ride.gpx'), '--out', name],
          directory.path,
        );
        expect(run.status).toBe(2);
        expect(run.stderr).toMatch(
          new RegExp(
            `^rideport: usage: convert: cannot tell which format to write to '${name}': .* names no writer; give --to points\\|gpx\\|tcx\\|geojson\\|csv, or an --out file ending \\.json, \\.gpx, \\.tcx, \\.geojson, \\.csv\n$`,
          ),
        );
        expect(existsSync(join(directory.path, name))).toBe(false);
      }
      // An explicit --to wins over the extension.
      await rideport(
        ['convert', fixturePath('gpx', 'sample-ride.gpx'), '--to', 'csv', '--out', 'x.gpx'],
        directory.path,
      );
      expect(readFileSync(join(directory.path, 'x.gpx'), 'utf8').startsWith('track,')).toBe(true);
    } finally {
      directory.remove();
    }
  });
});

describe.skipIf(!corpusAvailable)(
  `rideport convert, real files (${corpusAvailable ? 'corpus' : CORPUS_SKIP_REASON})`,
  () => {
    it('writes all 99,998 points of the largest FIT file, across many output chunks', async () => {
      const directory = temporaryDirectory();
      try {
        const out = join(directory.path, 'big.json');
        const run = await rideport([
          'convert',
          corpusFile('muktihari-fit__big_activity.fit').path,
          '--out',
          out,
        ]);
        expect(run.status).toBe(0);
        const document = JSON.parse(readFileSync(out, 'utf8')) as PointsDocument;
        expect(document.format).toBe('fit');
        expect(document.tracks).toHaveLength(1);
        expect(document.tracks[0]!.points).toHaveLength(99_998);
        expect(typeof document.tracks[0]!.points.at(-1)?.['t']).toBe('number');
      } finally {
        directory.remove();
      }
    });
  },
);

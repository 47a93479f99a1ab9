// The FIT → GPX conversions bench/convert.ts measures, one per contender id, loaded by the measuring
// child process (timing-child.js), which runs one contender each. Plain JavaScript for the same reason
// as peer-loaders.js (no tsx loader in the measured heap).
//
// - ours: gpxChunks(parseRideFile(bytes)), every chunk encoded and written to /dev/null (what
//   `rideport convert --to gpx` does, without the disk).
// - ffp+gpx-builder: fit-file-parser records → gpx-builder StravaBuilder points (hr, cad, atemp, power)
//   → buildGPX, each as its README shows, the text written to /dev/null.
// - gpsbabel: `gpsbabel -i garmin_fit -f <file> -o gpx -F -` in a child process per run (its start is
//   part of its time, as for anyone who runs it; its FIT reader cannot read a pipe, so the bytes go
//   through a temporary file written once, untimed).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

/** @typedef {(bytes: Buffer) => unknown} ConvertRun */

/** @type {Record<string, () => Promise<ConvertRun>>} */
const LOADERS = {
  async ours() {
    const { gpxChunks, parseRideFile } = await import('@rideport/ridefile');
    const devNull = openSync('/dev/null', 'w');
    return (bytes) => {
      let written = 0;
      for (const chunk of gpxChunks(parseRideFile(bytes))) written += writeSync(devNull, chunk);
      return written;
    };
  },
  async 'ffp+gpx-builder'() {
    const { default: FitParser } = await import('fit-file-parser');
    const { buildGPX, StravaBuilder } = await import('gpx-builder');
    const { Point } = StravaBuilder.MODELS;
    const devNull = openSync('/dev/null', 'w');
    return (bytes) => {
      let records = [];
      let failure;
      new FitParser({ force: true, mode: 'list' }).parse(bytes, (error, data) => {
        failure = error;
        records = data?.records ?? [];
      });
      if (failure !== undefined) throw new Error(failure);
      const points = records
        .filter((record) => record.position_lat !== undefined && record.position_long !== undefined)
        .map(
          (record) =>
            new Point(record.position_lat, record.position_long, {
              ...(record.altitude === undefined ? {} : { ele: record.altitude }),
              ...(record.timestamp === undefined ? {} : { time: record.timestamp }),
              ...(record.heart_rate === undefined ? {} : { hr: record.heart_rate }),
              ...(record.cadence === undefined ? {} : { cad: record.cadence }),
              ...(record.power === undefined ? {} : { power: record.power }),
              ...(record.temperature === undefined ? {} : { atemp: record.temperature }),
            }),
        );
      const builder = new StravaBuilder();
      builder.setSegmentPoints(points);
      return writeSync(devNull, buildGPX(builder.toObject()));
    };
  },
  async gpsbabel() {
    if (spawnSync('gpsbabel', ['-V']).status !== 0) throw new Error('gpsbabel is not installed');
    const directory = mkdtempSync(join(tmpdir(), 'rideport-bench-'));
    process.on('exit', () => {
      rmSync(directory, { recursive: true, force: true });
    });
    const written = new Map();
    return (bytes) => {
      let path = written.get(bytes);
      if (path === undefined) {
        path = join(directory, `${written.size}.fit`);
        writeFileSync(path, bytes);
        written.set(bytes, path);
      }
      const run = spawnSync('gpsbabel', ['-i', 'garmin_fit', '-f', path, '-o', 'gpx', '-F', '-'], {
        maxBuffer: 1 << 30,
      });
      if (run.status !== 0) throw new Error(run.stderr.toString().trim());
      return run.stdout.length;
    };
  },
};

/** The conversion run of `id` (timing-child.js's `load`); throws on an unknown id. */
export async function load(id) {
  const loader = LOADERS[id];
  if (loader === undefined)
    throw new Error(`unknown converter ${id}; known: ${Object.keys(LOADERS).join(', ')}`);
  return loader();
}

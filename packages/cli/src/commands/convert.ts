/**
 * `rideport convert <file> [--to points|gpx|tcx|geojson|csv] [--out <file>]` (docs/contributors/architecture.md, "`rideport`
 * command"; issue 3). Every target is written in chunks, so a 2-million-point track never becomes one
 * string.
 */
import { extname, resolve } from 'node:path';
import { type RideFile, WRITE_FORMATS, WRITERS, type WriteFormat } from '@rideport/ridefile';
import { onlyFile, parseCommandArgs } from '../args.js';
import { writeFileAtomically } from '../atomic-write.js';
import { OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from '../io.js';
import { pointsJsonChunks } from '../points-json.js';
import { readRide } from '../read-ride.js';
import { sayWarnings } from '../ride-warnings.js';
import { streamSink, writeChunks } from '../sink.js';
import { parseConfigOf } from '../options.js';
import { CONVERT_OPTIONS, OUT_EXTENSIONS, type Target, TARGETS } from './convert-options.js';

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('convert', args, parseConfigOf(CONVERT_OPTIONS));
  const file = onlyFile('convert', positionals);
  if (values.out === '') throw new UsageError('convert: --out needs a file name');
  // Issue 20: `--out y.kml` silently wrote JSON points. Without --to, the --out file's extension must
  // name a writer; standard output (no --out) gets points.
  const fromExtension = values.out === undefined ? 'points' : targetOfExtension(values.out);
  if (values.to === undefined && fromExtension === undefined) {
    throw new UsageError(
      `convert: cannot tell which format to write to '${values.out ?? ''}': ${extensionWords(values.out ?? '')} names no writer; give --to ${TARGETS.join('|')}, or an --out file ending ${OUT_EXTENSIONS}`,
    );
  }
  const to = values.to ?? fromExtension ?? 'points';
  if (!isTarget(to)) {
    throw new UsageError(`convert: unsupported --to '${to}' (supported: ${TARGETS.join(', ')})`);
  }
  const target = to;

  let ride: RideFile;
  try {
    ride = await readRide(file, io.cwd);
    sayWarnings(io, `convert ${file}`, ride);
    const chunks = target === 'points' ? pointsJsonChunks(ride) : WRITERS[target satisfies WriteFormat](ride);
    if (values.out === undefined) {
      await writeChunks(streamSink(io.stdout), chunks);
    } else {
      await writeFileAtomically(resolve(io.cwd, values.out), (sink) => writeChunks(sink, chunks));
    }
  } catch (error) {
    throw new OperationError(`convert ${file}`, error);
  }
  // What was written, on stderr (issue 20), when stdout is not the output itself.
  if (values.out !== undefined) io.stderr.write(`${wroteLine(values.out, target, ride)}\n`);
  return ExitCode.OK;
}

/** `ride.gpx` → gpx, `ride.json` → points; undefined for anything else (the default then applies). */
function targetOfExtension(out: string | undefined): Target | undefined {
  if (out === undefined) return undefined;
  const extension = extname(out).slice(1).toLowerCase();
  if (extension === 'json') return 'points';
  const formats = Object.keys(WRITE_FORMATS) as WriteFormat[];
  return formats.find((format) => WRITE_FORMATS[format].extension === extension);
}

const TARGET_NAMES: Record<Target, string> = {
  points: 'JSON points',
  gpx: 'GPX 1.1',
  tcx: 'TCX v2',
  geojson: 'GeoJSON',
  csv: 'CSV',
};

/** `wrote ride.gpx: GPX 1.1, 1 track, 1,234 points` */
function wroteLine(out: string, target: Target, ride: RideFile): string {
  const points = ride.tracks.reduce((sum, track) => sum + track.points.length, 0);
  const count = (n: number, noun: string): string =>
    `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
  return `wrote ${out}: ${TARGET_NAMES[target]}, ${count(ride.tracks.length, 'track')}, ${count(points, 'point')}`;
}

function extensionWords(out: string): string {
  const extension = extname(out);
  return extension === '' ? 'a name without an extension' : `the extension ${extension}`;
}

function isTarget(value: string): value is Target {
  return (TARGETS as readonly string[]).includes(value);
}

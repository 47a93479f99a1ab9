/**
 * `rideport convert <file> [--to points|gpx|tcx|geojson|csv] [--out <file>]` (design.md, "`rideport`
 * command"; issue 3). Every target is written in chunks, so a 2-million-point track never becomes one
 * string.
 */
import { extname, resolve } from 'node:path';
import { WRITE_FORMATS, WRITERS, type WriteFormat } from '@rideport/ridefile';
import { onlyFile, parseCommandArgs } from '../args.js';
import { writeFileAtomically } from '../atomic-write.js';
import { OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from '../io.js';
import { pointsJsonChunks } from '../points-json.js';
import { readRide } from '../read-ride.js';
import { streamSink, writeChunks } from '../sink.js';
import type { Command } from './command.js';

const TARGETS = ['points', 'gpx', 'tcx', 'geojson', 'csv'] as const;
type Target = (typeof TARGETS)[number];

const help = `Usage: rideport convert <file> [--to ${TARGETS.join('|')}] [--out <file>]

Reads a FIT, TCX, GPX or KML file (or a .gz of one) and writes it in another form.

Options:
  --to <target>   output form; supported: ${TARGETS.join(', ')} (default: the --out file's
                  extension when it names one of them, .json for points; else points)
                  points: {"format", "tracks": [{"kind", "name", "points": [...]}]} as JSON
                  gpx: GPX 1.1 with Garmin TrackPointExtension v2 (rides as <trk>, routes as <rte>)
                  tcx: TrainingCenterDatabase v2 (rides as Activity, routes as Course)
                  geojson: a FeatureCollection, one LineString per track, channels per point
                  csv: one row per point, a header with units
  --out <file>    write to this file (replaced whole, never left half-written) instead of stdout
  -h, --help      show this help
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('convert', args, {
    to: { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(help);
    return ExitCode.OK;
  }
  const file = onlyFile('convert', positionals);
  if (values.out === '') throw new UsageError('convert: --out needs a file name');
  const to = values.to ?? targetOfExtension(values.out) ?? 'points';
  if (!isTarget(to)) {
    throw new UsageError(`convert: unsupported --to '${to}' (supported: ${TARGETS.join(', ')})`);
  }
  const target = to;

  try {
    const ride = await readRide(file, io.cwd);
    const chunks = target === 'points' ? pointsJsonChunks(ride) : WRITERS[target satisfies WriteFormat](ride);
    if (values.out === undefined) {
      await writeChunks(streamSink(io.stdout), chunks);
    } else {
      await writeFileAtomically(resolve(io.cwd, values.out), (sink) => writeChunks(sink, chunks));
    }
  } catch (error) {
    throw new OperationError(`convert ${file}`, error);
  }
  return ExitCode.OK;
}

export const convertCommand: Command = {
  name: 'convert',
  synopsis: `<file> [--to ${TARGETS.join('|')}] [--out <file>]`,
  summary: 'write a ride file as JSON points, GPX, TCX, GeoJSON or CSV',
  help,
  run,
};

/** `ride.gpx` → gpx, `ride.json` → points; undefined for anything else (the default then applies). */
function targetOfExtension(out: string | undefined): Target | undefined {
  if (out === undefined) return undefined;
  const extension = extname(out).slice(1).toLowerCase();
  if (extension === 'json') return 'points';
  const formats = Object.keys(WRITE_FORMATS) as WriteFormat[];
  return formats.find((format) => WRITE_FORMATS[format].extension === extension);
}

function isTarget(value: string): value is Target {
  return (TARGETS as readonly string[]).includes(value);
}

/**
 * `rideport convert <file> [--to points] [--out <file>]` (design.md, "`rideport` command").
 * Only the `points` target exists so far; gpx, tcx, geojson and csv come with the writers.
 */
import { resolve } from 'node:path';
import { onlyFile, parseCommandArgs } from '../args.js';
import { writeFileAtomically } from '../atomic-write.js';
import { OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from '../io.js';
import { pointsJsonChunks } from '../points-json.js';
import { readRide } from '../read-ride.js';
import { streamSink, writeChunks } from '../sink.js';
import type { Command } from './command.js';

const TARGETS = ['points'] as const;

const help = `Usage: rideport convert <file> [--to points] [--out <file>]

Reads a FIT, TCX, GPX or KML file (or a .gz of one) and writes it in another form.

Options:
  --to <target>   output form; supported: ${TARGETS.join(', ')} (default: points)
                  points: {"format", "tracks": [{"kind", "name", "points": [...]}]} as JSON
  --out <file>    write to this file (replaced whole, never left half-written) instead of stdout
  -h, --help      show this help
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('convert', args, {
    to: { type: 'string', default: 'points' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(help);
    return ExitCode.OK;
  }
  const file = onlyFile('convert', positionals);
  if (!(TARGETS as readonly string[]).includes(values.to)) {
    throw new UsageError(`convert: unsupported --to '${values.to}' (supported: ${TARGETS.join(', ')})`);
  }
  if (values.out === '') throw new UsageError('convert: --out needs a file name');

  try {
    const ride = await readRide(file, io.cwd);
    const chunks = pointsJsonChunks(ride);
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
  synopsis: '<file> [--to points] [--out <file>]',
  summary: 'write a ride file as JSON points',
  help,
  run,
};

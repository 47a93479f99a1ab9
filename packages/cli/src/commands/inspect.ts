/** `rideport inspect <file> [--json]` (docs/contributors/architecture.md, "`rideport` command"). */
import { onlyFile, parseCommandArgs } from '../args.js';
import { OperationError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { inspectRide } from '../inspect-json.js';
import { inspectText } from '../inspect-text.js';
import type { CliIo } from '../io.js';
import { readRide } from '../read-ride.js';
import { streamSink } from '../sink.js';
import type { Command } from './command.js';

const help = `Usage: rideport inspect <file> [--json]

Reads a FIT, TCX, GPX, KML or KMZ file (or a .gz of one) and reports what it holds: format, creator,
warnings, and per track the sport, start, channels, distance, times, elevation, speed, heart rate,
cadence and power, device, whether speed and distance come from a wheel sensor (and why), laps
and bounds.

Options:
  --json          print the ride file without its points, with per track the point count, the
                  channels present (with counts), the wheel-sensor verdict and the summary
  -h, --help      show this help
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('inspect', args, {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(help);
    return ExitCode.OK;
  }
  const file = onlyFile('inspect', positionals);

  try {
    const inspected = inspectRide(await readRide(file, io.cwd));
    const output = values.json === true ? `${JSON.stringify(inspected, null, 2)}\n` : inspectText(inspected);
    await streamSink(io.stdout).write(output);
  } catch (error) {
    throw new OperationError(`inspect ${file}`, error);
  }
  return ExitCode.OK;
}

export const inspectCommand: Command = {
  name: 'inspect',
  synopsis: '<file> [--json]',
  summary: 'report what a ride file holds',
  help,
  run,
};

/** `rideport inspect <file> [--json]` (docs/contributors/architecture.md, "`rideport` command"). */
import { onlyFile, parseCommandArgs } from '../args.js';
import { OperationError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { inspectRide } from '../inspect-json.js';
import { inspectText } from '../inspect-text.js';
import type { CliIo } from '../io.js';
import { readRide } from '../read-ride.js';
import { columnsOf } from '../wrap.js';
import { sayWarnings } from '../ride-warnings.js';
import { streamSink } from '../sink.js';
import { parseConfigOf } from '../options.js';
import { INSPECT_OPTIONS } from './inspect-options.js';

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('inspect', args, parseConfigOf(INSPECT_OPTIONS));
  const file = onlyFile('inspect', positionals);

  try {
    const ride = await readRide(file, io.cwd);
    // On stderr as every command says them (issue 35), whether the report goes to a file or a program.
    sayWarnings(io, `inspect ${file}`, ride);
    const inspected = inspectRide(ride);
    const output =
      values.json === true
        ? `${JSON.stringify(inspected, null, 2)}\n`
        : inspectText(inspected, columnsOf(io.columns));
    await streamSink(io.stdout).write(output);
  } catch (error) {
    throw new OperationError(`inspect ${file}`, error);
  }
  return ExitCode.OK;
}

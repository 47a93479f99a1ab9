/**
 * The `rideport` command (docs/contributors/architecture.md, "`rideport` command"): picks the command, runs it, and turns
 * every failure into one stderr line and an exit status (0 ok, 1 failed operation, 2 bad usage).
 */
import { tuneLongRunningProcess } from '@rideport/host';
import { parseCommandArgs } from './args.js';
import { COMMANDS } from './commands/index.js';
import { commandNameOf } from './early-process.js';
import { failureLine, OperationError, UsageError, usageLine } from './errors.js';
import { ExitCode } from './exit-code.js';
import type { CliIo } from './io.js';
import { commandNames, usageText } from './usage.js';

export type { CliIo, CliWritable } from './io.js';

/**
 * What the launcher (bin/rideport.js) does to its own process before `main`, and tests that run `main`
 * inside theirs do not: a command that runs until stopped keeps V8's young generation at its first
 * size and gives freed memory back to the system every minute, so its memory does not climb for hours
 * (@rideport/host's tuneLongRunningProcess, issue 22). The allocator's arenas are capped
 * earlier still, before this module is loaded (early-process.ts).
 */
export function prepareProcess(argv: string[]): void {
  const name = commandNameOf(argv);
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command?.runsUntilStopped === true) {
    tuneLongRunningProcess();
  }
}

/** Runs `rideport` with `argv` (the arguments after the program name); resolves to the exit status. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(usageLine(error.message));
      return ExitCode.USAGE;
    }
    const failure =
      error instanceof OperationError ? error : new OperationError(argv[0] ?? 'rideport', error);
    io.stderr.write(failureLine(failure.what, failure.code, failure.message));
    return ExitCode.FAILED;
  }
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  // Options before the command name are rideport's own (only --help so far); the rest is the command's.
  const commandAt = argv.findIndex((arg) => !arg.startsWith('-'));
  const ownArgs = commandAt === -1 ? argv : argv.slice(0, commandAt);
  const { values } = parseCommandArgs(null, ownArgs, { help: { type: 'boolean', short: 'h' } });
  if (values.help === true) {
    io.stdout.write(usageText(COMMANDS));
    return ExitCode.OK;
  }
  const name = argv[commandAt];
  if (commandAt === -1 || name === undefined) {
    throw new UsageError(`missing command (available commands: ${commandNames(COMMANDS)})`);
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    throw new UsageError(`unknown command '${name}' (available commands: ${commandNames(COMMANDS)})`);
  }
  return command.run(argv.slice(commandAt + 1), io);
}

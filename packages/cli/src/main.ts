/**
 * The `rideport` command: picks the command, runs it, and turns every failure into one stderr line and
 * an exit status (0 ok, 1 failed operation, 2 bad usage).
 *
 * Issue 35: this module and what it imports statically are light (the command tables, parsing, the
 * words of errors); a command's module is loaded only when it runs, so `rideport convert`, `inspect`
 * and `sync` never load the server, and an install without @rideport/host runs them.
 */
import { parseCommandArgs } from './args.js';
import { adminHelp } from './admin-help.js';
import { type Command, COMMANDS, type CommandModule } from './commands/index.js';
import { commandNameOf } from './early-process.js';
import { CliError, CliErrorCode, failureLine, OperationError, UsageError, usageLine } from './errors.js';
import { ExitCode } from './exit-code.js';
import { hostMissing, HOST_PACKAGE } from './host-missing.js';
import type { CliIo } from './io.js';
import { allOptions, commandHelp, parseConfigOf } from './options.js';
import { commandNames, usageText } from './usage.js';
import { columnsOf } from './wrap.js';

export type { CliIo, CliWritable } from './io.js';

/**
 * What the launcher (bin/rideport.js) does to its own process before `main`, and tests that run `main`
 * inside theirs do not: a command that runs until stopped keeps V8's young generation at its first
 * size and gives freed memory back to the system every minute, so its memory does not climb for hours
 * (@rideport/host's tuneLongRunningProcess, issue 22). The allocator's arenas are capped
 * earlier still, before this module is loaded (early-process.ts).
 *
 * Issue 35: the settings come from @rideport/host, loaded only for such a command. `rideport sync` on
 * an install without the host runs without them and says nothing: they matter only over days, the
 * rider cannot act on them short of installing the server, and a line at every start would read as a
 * fault where there is none.
 */
export async function prepareProcess(argv: string[]): Promise<void> {
  const name = commandNameOf(argv);
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command?.runsUntilStopped !== true) return;
  try {
    const { tuneLongRunningProcess } = await import('@rideport/host/long-running');
    tuneLongRunningProcess();
  } catch (error) {
    if (!hostMissing(error)) throw error;
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
  const width = columnsOf(io.columns);
  // Options before the command name are rideport's own (only --help so far); the rest is the command's.
  const commandAt = argv.findIndex((arg) => !arg.startsWith('-'));
  const ownArgs = commandAt === -1 ? argv : argv.slice(0, commandAt);
  const { values } = parseCommandArgs(null, ownArgs, { help: { type: 'boolean', short: 'h' } });
  if (values.help === true) {
    io.stdout.write(usageText(COMMANDS, width));
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
  const args = argv.slice(commandAt + 1);
  // The help comes from the command's table, before its module is loaded (issue 35).
  const help = helpOf(command, args, width);
  if (help !== null) {
    io.stdout.write(help.text);
    return help.status;
  }
  return (await load(command)).run(args, io);
}

/** The help `args` ask for, if they do: options that are not the command's are a usage error here. */
function helpOf(command: Command, args: string[], width: number): { text: string; status: number } | null {
  if (command.subcommands !== undefined) return adminHelp(command, args, width);
  const { values } = parseCommandArgs(command.name, args, parseConfigOf(allOptions(command)));
  return values['help'] === true ? { text: commandHelp(command, width), status: ExitCode.OK } : null;
}

/** The command's module; without @rideport/host installed, a command that needs it says so. */
async function load(command: Command): Promise<CommandModule> {
  try {
    return await command.load();
  } catch (error) {
    if (!hostMissing(error)) throw error;
    throw new OperationError(
      command.name,
      new CliError(
        CliErrorCode.NOT_INSTALLED,
        `rideport ${command.name} runs the Rideport server, which comes with the package ${HOST_PACKAGE}, and it is not installed here: install it beside @rideport/cli (npm install ${HOST_PACKAGE}) and run this again`,
        { cause: error },
      ),
    );
  }
}

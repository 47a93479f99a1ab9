/**
 * The helps of `rideport admin` and of its subcommands, from their tables (commands/admin-options.ts,
 * issue 35), before admin.ts, which loads the server, is loaded.
 */
import { parseCommandArgs } from './args.js';
import { ADMIN_SUBCOMMANDS, adminSubcommandSpec } from './commands/admin-options.js';
import { UsageError } from './errors.js';
import { ExitCode } from './exit-code.js';
import { allOptions, commandHelp, parseConfigOf, type CommandSpec } from './options.js';

/**
 * `rideport admin` alone (status 2: a subcommand is missing) or with --help, or a subcommand with
 * --help; null when the arguments ask for no help. An unknown subcommand is a usage error here.
 */
export function adminHelp(
  admin: CommandSpec,
  args: readonly string[],
  width: number,
): { text: string; status: number } | null {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h') {
    return { text: commandHelp(admin, width), status: name === undefined ? ExitCode.USAGE : ExitCode.OK };
  }
  const subcommand = ADMIN_SUBCOMMANDS.find((candidate) => candidate.name === name);
  if (subcommand === undefined) {
    throw new UsageError(
      `admin: unknown subcommand '${name}' (available: ${ADMIN_SUBCOMMANDS.map((candidate) => candidate.name).join(', ')})`,
    );
  }
  const spec = adminSubcommandSpec(subcommand);
  const { values } = parseCommandArgs(spec.name, [...rest], parseConfigOf(allOptions(spec)));
  return values['help'] === true ? { text: commandHelp(spec, width), status: ExitCode.OK } : null;
}

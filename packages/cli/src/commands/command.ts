/** The shape every `rideport` subcommand module exports (one module per command, docs/contributors/architecture.md layout). */
import type { CliIo } from '../io.js';

export interface Command {
  name: string;
  /** the arguments after the name, e.g. `<file> [--json]`, for the command list of `rideport --help` */
  synopsis: string;
  /** what the command does, a few words for the same list */
  summary: string;
  /** the full `rideport <name> --help` text */
  help: string;
  /**
   * a command that runs until stopped (a server, the sync engine): its process keeps V8's young
   * generation small (prepareProcess in main.ts, issue 22)
   */
  runsUntilStopped?: true;
  /** runs with the arguments after the command name; resolves to the exit status */
  run(args: string[], io: CliIo): Promise<number>;
}

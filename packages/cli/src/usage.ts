/** The `rideport --help` text, built from the command list so it cannot drift from what exists. */
import type { Command } from './commands/index.js';

export function usageText(commands: readonly Command[]): string {
  const entries = commands.map((command) => `${command.name} ${command.synopsis}`);
  const width = Math.max(...entries.map((entry) => entry.length)) + 3;
  const list = commands.map((command, i) => `  ${entries[i]!.padEnd(width)}${command.summary}\n`).join('');
  return `Usage: rideport <command> [options]

Commands:
${list}
Run 'rideport <command> --help' for a command's options.
Exit status: 0 ok, 1 failed operation, 2 bad usage.
`;
}

export function commandNames(commands: readonly Command[]): string {
  return commands.map((command) => command.name).join(', ');
}

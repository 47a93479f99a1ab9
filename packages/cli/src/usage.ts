/** The `rideport --help` text, built from the command list so it cannot drift from what exists. */
import type { CommandSpec } from './options.js';
import { wrapParagraph } from './wrap.js';

/**
 * Each command with its arguments, and below it what it does (issue 35: one line of both ran to 237
 * characters), wrapped at `width`.
 */
export function usageText(commands: readonly CommandSpec[], width: number): string {
  const list = commands.flatMap((command) => [
    ...wrapParagraph(`${command.name} ${command.synopsis}`, width, '  ', '      '),
    ...wrapParagraph(command.summary, width, '      ', '      '),
  ]);
  return [
    'Usage: rideport <command> [options]',
    '',
    'Commands:',
    ...list,
    '',
    ...wrapParagraph("Run 'rideport <command> --help' for a command's options.", width),
    ...wrapParagraph('Exit status: 0 ok, 1 failed operation, 2 bad usage.', width),
    '',
  ].join('\n');
}

export function commandNames(commands: readonly CommandSpec[]): string {
  return commands.map((command) => command.name).join(', ');
}

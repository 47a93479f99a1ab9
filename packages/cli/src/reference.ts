/**
 * docs/reference/cli.md, made from the command tables (issue 35) by `npm run docs:cli`; help.test.ts
 * fails when the file is not what they make now, so the page cannot drift from the commands.
 */
import { ADMIN_SUBCOMMANDS, adminSubcommandSpec } from './commands/admin-options.js';
import { COMMANDS } from './commands/index.js';
import { commandReference } from './options.js';

export const REFERENCE_PATH = 'docs/reference/cli.md';

/** The page as `npm run docs:cli` writes it: formatted as the repository's Prettier settings say. */
export async function formattedCliReference(): Promise<string> {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(REFERENCE_PATH)) ?? {};
  return prettier.format(cliReference(), { ...options, parser: 'markdown' });
}

export function cliReference(): string {
  const sections = COMMANDS.flatMap((command) => [
    commandReference(command),
    ...(command.subcommands === undefined
      ? []
      : ADMIN_SUBCOMMANDS.map((subcommand) => commandReference(adminSubcommandSpec(subcommand)))),
  ]);
  return [
    '# The `rideport` command',
    '',
    '<!-- Made by `npm run docs:cli` from the option tables in packages/cli/src/commands/*-options.ts: edit those, not this page. -->',
    '',
    'Every command, its options and their defaults, as `rideport <command> --help` prints them. Exit status: 0 ok, 1 failed operation, 2 bad usage.',
    '',
    ...sections,
  ]
    .join('\n')
    .replace(/\n+$/, '\n');
}

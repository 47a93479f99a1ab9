/**
 * One table of options per command (issue 35: `rideport up --help` left out `--no-devices`, which the
 * README listed): each option's name, value placeholder, default, one-line description and parseArgs
 * type are written once, and the parseArgs configuration, the `--help` text and the reference page
 * (docs/reference/cli.md, `npm run docs:cli`) are all made from it, so none of them can leave one out.
 *
 * This module and the tables (commands/*-options.ts) import nothing but Node and each other, so that
 * `rideport --help` and the one-off commands load no server (issue 35, commands/index.ts).
 */
import { wrapParagraph } from './wrap.js';

export interface OptionSpec {
  /** the long name, without `--` */
  readonly name: string;
  readonly short?: string;
  readonly type: 'string' | 'boolean';
  /** may be given more than once */
  readonly multiple?: true;
  /** the value's placeholder in the help, e.g. `<folder>`: string options only */
  readonly value?: string;
  /** a default that parseArgs fills in, shown in the help */
  readonly default?: string;
  /** what applies when the option is absent, in words, shown in the help (parseArgs fills in nothing) */
  readonly defaultWords?: string;
  /** what the option does, one sentence without its default */
  readonly description: string;
}

export interface OptionGroup {
  /** the heading, e.g. `Connection limits`; the command's own options are under `Options` */
  readonly title: string;
  readonly options: readonly OptionSpec[];
}

/** Everything `rideport <name> --help` says, and what `rideport --help` lists. */
export interface CommandSpec {
  readonly name: string;
  /** the arguments after the name, e.g. `<file> [--json]`, for the usage line and the command list */
  readonly synopsis: string;
  /** what the command does, a few words for the command list of `rideport --help` */
  readonly summary: string;
  /** paragraphs before the options */
  readonly about: readonly string[];
  readonly groups: readonly OptionGroup[];
  /** a command of subcommands (`admin`): each one's name, arguments and words */
  readonly subcommands?: readonly { name: string; synopsis: string; summary: string }[];
  /** paragraphs after the options */
  readonly notes?: readonly string[];
  /**
   * a command that runs until stopped (a server, the sync engine): its process keeps V8's young
   * generation small and gives freed memory back (prepareProcess in main.ts, issue 22)
   */
  readonly runsUntilStopped?: true;
  /** the command runs the server: it needs @rideport/host installed (issue 35) */
  readonly needsHost?: true;
}

export const HELP_OPTION = {
  name: 'help',
  short: 'h',
  type: 'boolean',
  description: 'show this help',
} as const satisfies OptionSpec;

/** Every option of a command, in the order its help lists them. */
export function allOptions(spec: Pick<CommandSpec, 'groups'>): OptionSpec[] {
  return spec.groups.flatMap((group) => group.options);
}

/** The parseArgs configuration of a table of options, typed by their names. */
export type ParseConfigOf<T extends readonly OptionSpec[]> = {
  [O in T[number] as O['name']]: {
    type: O['type'];
    multiple: O extends { multiple: true } ? true : false;
    short?: string;
  } & (O extends { default: string } ? { default: string } : unknown);
};

export function parseConfigOf<const T extends readonly OptionSpec[]>(options: T): ParseConfigOf<T> {
  const config: Record<
    string,
    { type: 'string' | 'boolean'; multiple: boolean; short?: string; default?: string }
  > = {};
  for (const option of options) {
    config[option.name] = {
      type: option.type,
      multiple: option.multiple === true,
      ...(option.short === undefined ? {} : { short: option.short }),
      ...(option.default === undefined ? {} : { default: option.default }),
    };
  }
  return config as ParseConfigOf<T>;
}

/** `-h, --help`, `--watch <folder>` */
export function optionLabel(option: OptionSpec): string {
  const long = `--${option.name}${option.value === undefined ? '' : ` ${option.value}`}`;
  return option.short === undefined ? long : `-${option.short}, ${long}`;
}

/** The description with its default, as the help and the reference say it. */
export function optionWords(option: OptionSpec): string {
  const more = option.multiple === true ? '; repeat for more' : '';
  const fallback = option.default ?? option.defaultWords;
  return `${option.description}${more}${fallback === undefined ? '' : ` (default: ${fallback})`}`;
}

/** Where an option's description begins, when the width leaves room beside its label. */
const DESCRIPTION_COLUMN = 26;
/** Narrower than this beside the label, and descriptions go on a line of their own. */
const LEAST_DESCRIPTION_WIDTH = 30;

/** An option's lines in a help: label, then the description wrapped beside it or below it. */
export function optionLines(option: OptionSpec, width: number): string[] {
  const label = `  ${optionLabel(option)}`;
  const words = optionWords(option);
  if (width - DESCRIPTION_COLUMN < LEAST_DESCRIPTION_WIDTH) {
    return [label, ...wrapParagraph(words, width, '      ', '      ')];
  }
  const column = ' '.repeat(DESCRIPTION_COLUMN);
  if (label.length + 2 > DESCRIPTION_COLUMN) return [label, ...wrapParagraph(words, width, column, column)];
  return wrapParagraph(words, width, label.padEnd(DESCRIPTION_COLUMN), column);
}

/** The whole `rideport <name> --help`, wrapped at `width`. */
export function commandHelp(spec: CommandSpec, width: number): string {
  const lines = wrapParagraph(`Usage: rideport ${spec.name} ${spec.synopsis}`, width, '', '    ');
  for (const paragraph of spec.about) lines.push('', ...wrapParagraph(paragraph, width));
  if (spec.subcommands !== undefined) {
    lines.push('', 'Subcommands:');
    for (const subcommand of spec.subcommands) {
      lines.push(...wrapParagraph(`${subcommand.name} ${subcommand.synopsis}`.trim(), width, '  ', '      '));
      lines.push(...wrapParagraph(subcommand.summary, width, '      ', '      '));
    }
  }
  for (const group of spec.groups) {
    lines.push('', `${group.title}:`);
    for (const option of group.options) lines.push(...optionLines(option, width));
  }
  for (const paragraph of spec.notes ?? []) lines.push('', ...wrapParagraph(paragraph, width));
  return `${lines.join('\n')}\n`;
}

/** Markdown text: `<` and `>` outside code spans as entities (`<N>d` is no HTML tag). */
function markdownText(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replaceAll('<', '&lt;').replaceAll('>', '&gt;')))
    .join('');
}

/** A Markdown table cell: pipes escaped. */
function cell(text: string): string {
  return markdownText(text).replaceAll('|', '\\|');
}

/** One command's section of docs/reference/cli.md. */
export function commandReference(spec: CommandSpec): string {
  const lines = [
    `## rideport ${spec.name}`,
    '',
    '```',
    `rideport ${spec.name} ${spec.synopsis}`,
    '```',
    '',
    ...spec.about.flatMap((paragraph) => [markdownText(paragraph), '']),
  ];
  for (const group of spec.groups) {
    lines.push(`### ${group.title}`, '', '| Option | Default | What it does |', '| --- | --- | --- |');
    for (const option of group.options) {
      const fallback = option.default ?? option.defaultWords ?? '';
      const description = `${option.description}${option.multiple === true ? '; repeat for more' : ''}`;
      const label = optionLabel(option).replaceAll('|', '\\|');
      lines.push(`| \`${label}\` | ${cell(fallback)} | ${cell(description)} |`);
    }
    lines.push('');
  }
  for (const paragraph of spec.notes ?? []) lines.push(markdownText(paragraph), '');
  return lines.join('\n');
}

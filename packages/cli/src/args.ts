/** Command-line parsing shared by the commands: `node:util` parseArgs in strict mode, usage errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';

// @types/node does not export these two helper types of parseArgs; derive them from what it does export.
type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;
type ParsedResults<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

type StrictConfig<O extends ParseArgsOptionsConfig> = {
  args: string[];
  options: O;
  allowPositionals: true;
  strict: true;
};

/**
 * Parses a command's arguments (strict: unknown options and missing values are usage errors).
 * Node's messages go on to explain `--` in a second sentence; the first says what is wrong.
 */
export function parseCommandArgs<O extends ParseArgsOptionsConfig>(
  /** the command's name; null for rideport's own options before the command */
  command: string | null,
  args: string[],
  options: O,
): ParsedResults<StrictConfig<O>> {
  try {
    // Inside the try: a missing value is a usage error like parseArgs' own.
    return parseArgs<StrictConfig<O>>({
      args: joinDashedValues(args, options),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const sentence = /^.*?[^.]\.(?=\s|$)/.exec(message)?.[0].slice(0, -1) ?? message;
    const firstSentence = sentence.charAt(0).toLowerCase() + sentence.slice(1);
    const where = command === null ? '' : `${command}: `;
    const help = command === null ? 'rideport --help' : `rideport ${command} --help`;
    throw new UsageError(`${where}${firstSentence} (see ${help})`);
  }
}

/**
 * Joins `--name <value>` into `--name=<value>` when the value begins with '-' (issue 20): Node's strict
 * parseArgs refuses such a value as "ambiguous", yet tokens and passwords are random base64url and may
 * begin with '-', and every credential must work as printed, in both documented forms. As getopt_long
 * does for an option that requires an argument, the next argument is the value, whatever it begins
 * with, unless it is one of this command's own options (or `--`): then the value is missing.
 */
export function joinDashedValues(args: readonly string[], options: ParseArgsOptionsConfig): string[] {
  const ownOptions = new Set(['--']);
  for (const [name, option] of Object.entries(options)) {
    ownOptions.add(`--${name}`);
    if (option.short !== undefined) ownOptions.add(`-${option.short}`);
  }
  const isOwnOption = (arg: string): boolean => ownOptions.has(arg.replace(/=.*$/s, ''));
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      joined.push(...args.slice(i));
      break;
    }
    const value = args[i + 1];
    if (arg.startsWith('--') && options[arg.slice(2)]?.type === 'string') {
      if (value === undefined || isOwnOption(value)) throw new Error(`Option '${arg}' needs a value.`);
      if (value.startsWith('-')) {
        joined.push(`${arg}=${value}`);
        i++;
        continue;
      }
    }
    joined.push(arg);
  }
  return joined;
}

/** The one `<file>` argument a command takes. */
export function onlyFile(command: string, positionals: readonly string[]): string {
  const [file, ...extra] = positionals;
  if (file === undefined || file === '') {
    throw new UsageError(`${command}: missing <file> argument (see rideport ${command} --help)`);
  }
  if (extra.length > 0) {
    throw new UsageError(
      `${command}: takes one <file>, got also ${extra.map((arg) => `'${arg}'`).join(' ')}`,
    );
  }
  return file;
}

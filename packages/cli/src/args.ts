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
    return parseArgs<StrictConfig<O>>({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const sentence = /^.*?[^.]\.(?=\s|$)/.exec(message)?.[0].slice(0, -1) ?? message;
    const firstSentence = sentence.charAt(0).toLowerCase() + sentence.slice(1);
    const where = command === null ? '' : `${command}: `;
    const help = command === null ? 'rideport --help' : `rideport ${command} --help`;
    throw new UsageError(`${where}${firstSentence} (see ${help})`);
  }
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

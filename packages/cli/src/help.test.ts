/**
 * Issue 35: each command's `--help` and its reference page come from one table of options
 * (options.ts), and every help and start-up line fits the terminal.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { announceStartUp } from './announce.js';
import { ADMIN_SUBCOMMANDS, adminSubcommandSpec } from './commands/admin-options.js';
import { COMMANDS } from './commands/index.js';
import { allOptions, commandHelp, type CommandSpec } from './options.js';
import { formattedCliReference, REFERENCE_PATH } from './reference.js';
import { Capture, REPOSITORY_ROOT, rideport } from './test-support/run.js';
import { CONNECTION_DEFAULTS } from './commands/shared-options.js';
import { DEFAULT_CONNECTION_LIMITS } from '@rideport/server';
import { wordsOf } from './wrap.js';
import { main } from './main.js';

/** Every command and every admin subcommand, with the arguments that ask for its help. */
const HELPS: [CommandSpec, string[]][] = [
  ...COMMANDS.map((command): [CommandSpec, string[]] => [command, [command.name, '--help']]),
  ...ADMIN_SUBCOMMANDS.map((subcommand): [CommandSpec, string[]] => [
    adminSubcommandSpec(subcommand),
    ['admin', subcommand.name, '--help'],
  ]),
];

/** `rideport ...args` with stdout a terminal `columns` wide. */
async function at(columns: number | undefined, args: string[]): Promise<string> {
  const stdout = new Capture();
  const stderr = new Capture();
  const status = await main(args, {
    stdout,
    stderr,
    cwd: REPOSITORY_ROOT,
    env: {},
    ...(columns === undefined ? {} : { columns }),
  });
  expect(stderr.text).toBe('');
  expect(status).toBe(0);
  return stdout.text;
}

/** The long names of the options a help lists: its lines that begin with `  -`. */
function listedOptions(help: string): string[] {
  return help
    .split('\n')
    .filter((line) => /^ {2}-/.test(line))
    .map((line) => /--([\w-]+)/.exec(line)![1]!);
}

describe('each command has one table of options', () => {
  it.each(HELPS.map(([spec, args]) => [args.join(' '), spec, args] as const))(
    '%s lists every option of its table, once, and nothing else',
    async (_, spec, args) => {
      for (const columns of [40, 80, 120]) {
        const help = await at(columns, args);
        expect(listedOptions(help)).toEqual(allOptions(spec).map((option) => option.name));
      }
    },
  );

  it('rideport up --help lists --no-devices, which the README names, in its usage line too', async () => {
    const help = await at(undefined, ['up', '--help']);
    expect(help).toMatch(/^ {2}--no-devices {2,}do not look for GPS devices/m);
    expect(help.slice(0, help.indexOf('\n\n'))).toContain('[--no-devices]');
  });

  it.each(HELPS.map(([spec]) => [spec.name, spec] as const))(
    'the usage line of rideport %s names only options of its table',
    (_, spec) => {
      const names = new Set(allOptions(spec).map((option) => option.name));
      for (const [, name] of spec.synopsis.matchAll(/--([\w-]+)/g)) expect(names).toContain(name);
    },
  );

  it('the server defaults the tables show are the server’s', () => {
    expect(CONNECTION_DEFAULTS).toEqual({
      perAddress: DEFAULT_CONNECTION_LIMITS.perAddress,
      headerTimeoutSeconds: DEFAULT_CONNECTION_LIMITS.headerTimeoutMs / 1000,
      requestTimeoutSeconds: DEFAULT_CONNECTION_LIMITS.requestTimeoutMs / 1000,
      keepAliveTimeoutSeconds: DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs / 1000,
      idleTimeoutSeconds: DEFAULT_CONNECTION_LIMITS.idleTimeoutMs / 1000,
    });
  });
});

// The documentation of the options is docs/reference/cli.md, made from the same tables by
// `npm run docs:cli`: this fails until it is made anew after a table changes.
describe(REFERENCE_PATH, () => {
  const page = readFileSync(join(REPOSITORY_ROOT, REFERENCE_PATH), 'utf8');

  it('is what `npm run docs:cli` makes from the tables now', async () => {
    expect(page).toBe(await formattedCliReference());
  });

  it.each(HELPS.map(([spec]) => [spec.name, spec] as const))(
    'documents exactly the options of rideport %s',
    (name, spec) => {
      const section = page.split(/^## /m).find((part) => part.startsWith(`rideport ${name}\n`));
      expect(section).toBeDefined();
      const documented = [...section!.matchAll(/^\| `(?:-\w, )?--([\w-]+)/gm)].map((match) => match[1]);
      expect(documented).toEqual(allOptions(spec).map((option) => option.name));
    },
  );
});

/**
 * Lines at most `width` wide, except a line that is one word (a URL, a path, a `command`) that does
 * not fit on any line: those are never broken.
 */
function expectFits(text: string, width: number): void {
  for (const line of text.split('\n')) {
    if (line.length <= width) continue;
    expect(wordsOf(line), `a line wider than ${width}: ${line}`).toHaveLength(1);
  }
}

/** The words of a text, whatever its line breaks. */
const words = (text: string): string[] => wordsOf(text.replace(/\n/g, ' '));

describe('help and start-up lines wrap at the terminal’s width (issue 35)', () => {
  it.each([40, 80, 120])('every help at %i columns', async (columns) => {
    const overview = await at(columns, ['--help']);
    expectFits(overview, columns);
    expect(words(overview)).toEqual(words(await at(10_000, ['--help'])));
    for (const [spec, args] of HELPS) {
      const help = await at(columns, args);
      expectFits(help, columns);
      // Nothing lost or broken: the same words as on a terminal too wide to wrap anything.
      expect(words(help)).toEqual(words(commandHelp(spec, 10_000)));
    }
  });

  it('80 columns when the width is unknown or stdout is not a terminal', async () => {
    expect(await at(undefined, ['up', '--help'])).toBe(await at(80, ['up', '--help']));
    const longest = Math.max(...(await at(undefined, ['--help'])).split('\n').map((line) => line.length));
    expect(longest).toBeLessThanOrEqual(80);
  });

  it.each([40, 80, 120])('option descriptions keep their column at %i columns', async (columns) => {
    const help = await at(columns, ['sync', '--help']);
    const once = help.split('\n').findIndex((line) => line.startsWith('  --once'));
    const continued = help.split('\n')[once + 1]!;
    // Beside the label where there is room, else on lines of their own below it.
    expect(continued).toMatch(columns >= 56 ? /^ {26}\S/ : /^ {6}\S/);
  });

  it.each([40, 80, 120])('start-up lines at %i columns: a URL and a command stay whole', (columns) => {
    const stdout = new Capture();
    const link = 'http://127.0.0.1:4242/sign-in/link?token=VwVZqS_0PmmEbahFzZkVEZ_ZuLLdxGFBBdFSQ-X9Oos';
    const command = '`npx rideport admin sign-in-link --data "/tmp/a folder"`';
    const message = `The link ${link} signs you in and works once, for 2 minutes; after that, ${command} makes a new one\n  curl -H "x-service-api-key: 0123" http://127.0.0.1:4242/api/v1/trips.json`;
    announceStartUp({ stdout, stderr: new Capture(), cwd: '/', columns }, 'text', message);
    const lines = stdout.lines;
    expect(lines.filter((line) => line.includes(link))).toHaveLength(1);
    expect(lines.filter((line) => line.includes(command))).toHaveLength(1);
    // The example set apart stays one line, as it must be pasted.
    expect(lines.at(-1)).toBe('  curl -H "x-service-api-key: 0123" http://127.0.0.1:4242/api/v1/trips.json');
    expectFits(lines.slice(0, -1).join('\n'), columns);
    expect(lines.slice(1, -1).every((line) => line.startsWith('  '))).toBe(true);
  });

  it('says rideport --help in the words it had, one command and its words to two lines', async () => {
    const run = await rideport(['--help']);
    expect(run.stdout).toContain('\n  inspect <file> [--json]\n      report what a ride file holds\n');
  });
});

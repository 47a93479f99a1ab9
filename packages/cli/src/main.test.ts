import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from './commands/index.js';
import { LONG_RUNNING_COMMANDS } from './early-process.js';
import { rideport } from './test-support/run.js';

describe('rideport: help', () => {
  it.each([['--help'], ['-h']])(
    '%s prints the usage with every command, on stdout, status 0',
    async (flag) => {
      const run = await rideport([flag]);
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(/^Usage: rideport <command>/);
      expect(run.stdout).toContain('convert <file> [--to points|gpx|tcx|geojson|csv] [--out <file>]');
      expect(run.stdout).toContain('inspect <file> [--json]');
    },
  );

  it.each([
    ['convert', '--help'],
    ['inspect', '-h'],
  ])('%s %s prints the command help, even without a file', async (command, flag) => {
    const run = await rideport([command, flag]);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(new RegExp(`^Usage: rideport ${command} <file>`));
  });
});

describe('rideport: bad usage is status 2 and one stderr line', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'no command',
      [],
      /missing command \(available commands: up, sync, convert, inspect, serve, worker, admin\)/,
    ],
    [
      'an unknown command',
      ['frobnicate', 'x.fit'],
      /unknown command 'frobnicate' \(available commands: up, sync, convert, inspect, serve, worker, admin\)/,
    ],
    ['an unknown option before the command', ['--verbose', 'inspect', 'x.gpx'], /unknown option '--verbose'/],
    [
      'an unknown option of inspect',
      ['inspect', '--yaml', 'x.gpx'],
      /^rideport: usage: inspect: unknown option '--yaml'/,
    ],
    [
      'an unknown option of convert',
      ['convert', 'x.gpx', '-z'],
      /^rideport: usage: convert: unknown option '-z'/,
    ],
    ['inspect without a file', ['inspect'], /inspect: missing <file> argument/],
    ['inspect --json without a file', ['inspect', '--json'], /inspect: missing <file> argument/],
    ['convert without a file', ['convert', '--to', 'points'], /convert: missing <file> argument/],
    ['two files', ['inspect', 'a.gpx', 'b.gpx'], /inspect: takes one <file>, got also 'b.gpx'/],
    [
      'an unknown target',
      ['convert', 'x.gpx', '--to=svg'],
      /unsupported --to 'svg' \(supported: points, gpx, tcx, geojson, csv\)/,
    ],
    [
      '--to without its value',
      ['convert', 'x.gpx', '--to'],
      /convert: option '--to' needs a value \(see rideport convert --help\)/,
    ],
    [
      '--json given a value',
      ['inspect', 'x.gpx', '--json=yes'],
      /inspect: option '--json' does not take an argument/,
    ],
  ];

  it.each(cases)('%s', async (_, args, message) => {
    const run = await rideport(args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toMatch(/^rideport: usage: /);
    expect(run.stderrLines[0]).toMatch(message);
  });

  it('checks usage before touching the file', async () => {
    // The file does not exist: a usage error must win over ENOENT, or scripts would misread the status.
    const run = await rideport(['convert', 'no-such-file.gpx', '--to', 'svg']);
    expect(run.status).toBe(2);
    expect(run.stderr).not.toContain('ENOENT');
  });
});

// Issue 22: the launcher keeps V8's young generation small and gives freed memory back every minute for
// the commands that run until stopped (young-generation.ts and freed-memory.ts in @rideport/server),
// and only for them. Run in a process of its own, since it
// changes the process it runs in.
describe('prepareProcess', () => {
  /** Whether the young generation is kept small, and whether malloc_trim was loaded (koffi, on glibc). */
  async function prepared(argv: string[]): Promise<[boolean, boolean]> {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const main = new URL('./main.ts', import.meta.url).href;
    const script = `const { prepareProcess } = await import(${JSON.stringify(main)});
await prepareProcess(${JSON.stringify(argv)});
const { createRequire } = await import('node:module');
const trims = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/koffi/'));
console.log(JSON.stringify([process.env.RIDEPORT_SMALL_YOUNG_GENERATION === '1', trims]));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', tsx, '--conditions=@rideport/source', '--input-type=module', '-e', script],
      { env: { ...process.env, NODE_OPTIONS: '' } },
    );
    return JSON.parse(stdout) as [boolean, boolean];
  }

  it('does both for up, sync, serve and worker, and neither for one-off commands', async () => {
    const commands = ['up', 'sync', 'serve', 'worker', 'convert', 'inspect', 'admin'];
    const done = await Promise.all(commands.map((command) => prepared([command, '--help'])));
    // malloc_trim exists only with glibc; elsewhere (macOS, Windows, musl) nothing is loaded for it.
    const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
    const trims = report.header.glibcVersionRuntime !== undefined;
    expect(Object.fromEntries(commands.map((command, index) => [command, done[index]]))).toEqual({
      up: [true, trims],
      sync: [true, trims],
      serve: [true, trims],
      worker: [true, trims],
      convert: [false, false],
      inspect: [false, false],
      admin: [false, false],
    });
  });
});

// Issue 22: the launcher caps the C allocator's arenas first, for the same commands (early-process.ts).
describe('prepareAllocator', () => {
  it('knows the commands that run until stopped as the commands themselves say', () => {
    const flagged = COMMANDS.filter((command) => command.runsUntilStopped === true).map(({ name }) => name);
    expect([...LONG_RUNNING_COMMANDS].sort()).toEqual(flagged.sort());
  });

  it('caps the arenas for up, sync, serve and worker (on glibc), and not for one-off commands', async () => {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const early = new URL('./early-process.ts', import.meta.url).href;
    const commands = ['up', 'sync', 'serve', 'worker', 'convert', 'inspect', 'admin'];
    const script = `const { prepareAllocator } = await import(${JSON.stringify(early)});
console.log(JSON.stringify(await Promise.all(${JSON.stringify(commands)}.map((name) => prepareAllocator([name, '--help'])))));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', tsx, '--conditions=@rideport/source', '--input-type=module', '-e', script],
      { env: { ...process.env, NODE_OPTIONS: '', MALLOC_ARENA_MAX: undefined } },
    );
    const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
    const glibc = report.header.glibcVersionRuntime !== undefined;
    expect(JSON.parse(stdout)).toEqual([glibc, glibc, glibc, glibc, false, false, false]);
  });
});

/**
 * Issue 35: `rideport convert`, `inspect` and `sync` load nothing of the server (@rideport/server,
 * @rideport/host's server, @rideport/dashboard, fastify, pg; convert and inspect no native module at
 * all), and without @rideport/host installed the commands that run the server say to install it.
 * Checked in the launcher's own process, with Node module hooks that record every module loaded, or
 * that make the host's packages missing as on an install without them.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, REPOSITORY_ROOT, temporaryDirectory } from './test-support/run.js';

let directory: { path: string; remove: () => void };

/** Records every module loaded, ES modules through a load hook and CommonJS ones from require's cache. */
const RECORDING_HOOKS = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.RIDEPORT_MODULES_LOG, url + '\\n');
  return next(url, context);
}`;
const RECORDING = `
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register('./recording-hooks.mjs', import.meta.url);
const require = createRequire(import.meta.url);
process.on('exit', () => {
  appendFileSync(process.env.RIDEPORT_MODULES_LOG, Object.keys(require.cache).join('\\n') + '\\n');
});`;

/** As on an install of @rideport/cli without its optional peer @rideport/host (nor what it brings). */
const MISSING_HOOKS = `
export async function resolve(specifier, context, next) {
  if (/^@rideport\\/(host|server|dashboard)(\\/|$)/.test(specifier)) {
    const error = new Error("Cannot find package '" + specifier.split('/').slice(0, 2).join('/') + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
const MISSING = `
import { register } from 'node:module';
register('./missing-hooks.mjs', import.meta.url);`;

beforeAll(async () => {
  await buildCli();
  directory = temporaryDirectory();
  writeFileSync(join(directory.path, 'recording-hooks.mjs'), RECORDING_HOOKS);
  writeFileSync(join(directory.path, 'recording.mjs'), RECORDING);
  writeFileSync(join(directory.path, 'missing-hooks.mjs'), MISSING_HOOKS);
  writeFileSync(join(directory.path, 'missing.mjs'), MISSING);
  mkdirSync(join(directory.path, 'rides'));
}, 120_000);

afterAll(() => {
  directory.remove();
});

/** `rideport ...args` with a preload; its exit status and output. */
async function launch(
  preload: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        pathToFileURL(join(directory.path, preload)).href,
        'packages/cli/bin/rideport.js',
        ...args,
      ],
      { cwd: REPOSITORY_ROOT, env: { ...process.env, NODE_OPTIONS: '', ...env } },
    );
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The modules `rideport ...args` loaded, as paths in the repository (node_modules links followed). */
async function modulesLoaded(name: string, args: string[]): Promise<string[]> {
  const log = join(directory.path, `${name}.log`);
  writeFileSync(log, '');
  await launch('recording.mjs', args, { RIDEPORT_MODULES_LOG: log });
  const loaded = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  return loaded.map((entry) =>
    entry.startsWith('file://') ? decodeURIComponent(new URL(entry).pathname) : entry,
  );
}

/** `rideport sync --once` of an empty folder to a server that is not there, with data in `data`. */
function syncOnce(data: string): string[] {
  const credentials = ['--api-key', 'key', '--auth-token', 'token'];
  const server = ['--server', 'http://127.0.0.1:9'];
  const rest = ['--import', 'all', '--data', join(directory.path, data)];
  return ['sync', join(directory.path, 'rides'), '--once', ...server, ...credentials, ...rest];
}

/** The server's weight: its packages and the libraries only it needs. */
const SERVER_MODULES =
  /\/packages\/(server|dashboard)\/|\/packages\/host\/(?!dist\/(freed-memory|long-running)\.js)|\/node_modules\/(fastify|@fastify|pg|pg-[\w-]+|kysely)\//;
/** The server's memory settings for a long-running process, which load nothing else of it (issues 22, 36). */
const MEMORY_SETTINGS = /\/packages\/server\/dist\/(young-generation|heap-collection)\.js$/;
/** Native modules: convert and inspect need none. */
const NATIVE_MODULES = /\/node_modules\/(koffi|better-sqlite3)\//;

describe('commands that need no server load none (issue 35)', () => {
  it('rideport convert and inspect load nothing of the server, the host or a native module', async () => {
    const out = join(directory.path, 'ride.gpx');
    for (const [name, args] of [
      ['convert', ['convert', 'fixtures/fit/truncated.fit', '--out', out]],
      ['inspect', ['inspect', 'fixtures/gpx/sample-ride.gpx', '--json']],
      ['help', ['--help']],
    ] as const) {
      const loaded = await modulesLoaded(name, [...args]);
      // The recording saw the command run: its own module was loaded.
      expect(loaded.some((path) => path.endsWith('/packages/cli/dist/main.js'))).toBe(true);
      expect(loaded.filter((path) => SERVER_MODULES.test(path) || path.includes('/packages/host/'))).toEqual(
        [],
      );
      expect(loaded.filter((path) => NATIVE_MODULES.test(path))).toEqual([]);
    }
  });

  it('rideport up --help loads nothing of the server: the help comes from the table', async () => {
    const loaded = await modulesLoaded('up-help', ['up', '--help']);
    expect(loaded.some((path) => path.endsWith('/packages/cli/dist/commands/up-options.js'))).toBe(true);
    expect(loaded.some((path) => path.endsWith('/packages/cli/dist/commands/up.js'))).toBe(false);
    expect(loaded.filter((path) => SERVER_MODULES.test(path) && !MEMORY_SETTINGS.test(path))).toEqual([]);
  });

  it('rideport sync loads nothing of the server beyond the memory settings of a long-running process', async () => {
    const loaded = await modulesLoaded('sync', syncOnce('sync-data'));
    expect(loaded.some((path) => path.endsWith('/packages/cli/dist/commands/sync.js'))).toBe(true);
    expect(loaded.filter((path) => SERVER_MODULES.test(path) && !MEMORY_SETTINGS.test(path))).toEqual([]);
    // The host's memory settings, which load no server (issue 22).
    expect(loaded.some((path) => path.endsWith('/packages/host/dist/long-running.js'))).toBe(true);
  });
});

describe('without @rideport/host installed (issue 35)', () => {
  it('a command that runs the server exits 1 saying to install it; its help still shows', async () => {
    for (const command of ['up', 'serve', 'admin']) {
      const args = command === 'admin' ? ['admin', 'purge-tasks'] : [command, '--port', '0'];
      const run = await launch('missing.mjs', args);
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `rideport: ${command}: RIDEPORT_NOT_INSTALLED: rideport ${command} runs the Rideport server, which comes with the package @rideport/host, and it is not installed here: install it beside @rideport/cli (npm install @rideport/host) and run this again\n`,
      );
    }
    const help = await launch('missing.mjs', ['up', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: rideport up /);
  });

  it('convert and sync run as they do with it', async () => {
    const convert = await launch('missing.mjs', ['convert', 'fixtures/gpx/sample-ride.gpx', '--to', 'gpx']);
    expect(convert.status).toBe(0);
    expect(convert.stdout).toContain('<gpx');
    const sync = await launch('missing.mjs', syncOnce('sync-without-host'));
    // Nothing to upload, and the server cannot be reached: the credentials check says so.
    expect(sync.stdout).toContain('0 synced, 0 failed');
    expect(sync.stderr).toMatch(/^rideport: sync: RIDEPORT_UNREACHABLE: /);
    expect(sync.status).toBe(1);
  });
});

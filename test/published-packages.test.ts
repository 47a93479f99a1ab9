/**
 * The published packages as the developers of other tools meet them (issue 21, "A package people can
 * depend on"): each is packed the way `npm run release` publishes it (scripts/pack-package.ts), the
 * tarball is linted (publint, arethetypeswrong), and then installed into an empty project outside
 * the repository, where it is used from Node ESM, from `require`, from TypeScript with `nodenext`
 * and with `bundler` resolution, and from an esbuild browser bundle run in Chromium. Every one of
 * those reads the same files to the same JSON as the sources do, and the client talks to the real
 * server over a real socket.
 *
 * The install resolves the tarballs' dependencies from npm's cache (`--prefer-offline`): the exact
 * versions the repository locks are there after `npm ci`, so no registry is asked in the usual case.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { CLIENT_VERSION } from '@rideport/client';
import { parseRideFile, writeGpx } from '@rideport/ridefile';
import { build } from 'esbuild';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPerson,
  credentialsFor,
  testServer,
  type TestServer,
} from '../packages/server/src/test-support/server.js';
import {
  DEVELOPMENT_CONDITION,
  npmEnvironment,
  packPackage,
  PUBLISHED_PACKAGES,
  type PackedPackage,
} from '../scripts/pack-package.js';
import { CHROMIUM_SKIP_REASON, chromiumAvailable, launchChromium } from './support/chromium.js';
import { fixturePath, REPOSITORY_ROOT } from './support/corpus.js';
import { freePort } from './support/ports.js';

const run = promisify(execFile);
const TSC = join(REPOSITORY_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const ATTW = join(REPOSITORY_ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');

if (!chromiumAvailable) console.warn(`[published packages] ${CHROMIUM_SKIP_REASON}`);

/** Files of the repository's fixtures, read by every consumer; the GPX is gzipped to take fflate's path. */
const SAMPLES: { name: string; bytes: Uint8Array }[] = [
  { name: 'multisport-wheel.fit', bytes: readFileSync(fixturePath('fit', 'multisport-wheel.fit')) },
  { name: 'truncated.fit', bytes: readFileSync(fixturePath('fit', 'truncated.fit')) },
  { name: 'activity.tcx', bytes: readFileSync(fixturePath('tcx', 'activity.tcx')) },
  { name: 'sample-ride.gpx.gz', bytes: gzipSync(readFileSync(fixturePath('gpx', 'sample-ride.gpx'))) },
  { name: 'tracks.kml', bytes: readFileSync(fixturePath('kml', 'tracks.kml')) },
];

/** What each consumer reports for one file: the whole parsed file and its GPX, as JSON text. */
interface Reading {
  name: string;
  ride: string;
  gpx: string;
}

/** The same reading from the repository's sources, which every installed copy must reproduce. */
function expectedReadings(): Reading[] {
  return SAMPLES.map(({ name, bytes }) => {
    const ride = parseRideFile(bytes, { filename: name });
    return { name, ride: JSON.stringify(ride), gpx: writeGpx(ride) };
  });
}

/**
 * The body both Node consumers run, with `ridefile` and `client` bound by `import` or `require`: it
 * reads the samples, refuses bytes that are no ride file by code, and asks the real server who it is.
 */
const NODE_CONSUMER_BODY = `
const { readFileSync } = fs;
async function main() {
  const samples = JSON.parse(process.env.SAMPLES);
  const readings = samples.map(({ name, path }) => {
    const ride = ridefile.parseRideFile(new Uint8Array(readFileSync(path)), { filename: name });
    return { name, ride: JSON.stringify(ride), gpx: ridefile.writeGpx(ride) };
  });
  let refused = null;
  try {
    ridefile.parseRideFile(new TextEncoder().encode('not a ride'));
  } catch (error) {
    refused = { code: error.code, isRideFileError: ridefile.isRideFileError(error), message: error.message };
  }
  const rider = new client.RideportClient({
    baseUrl: process.env.SERVER_URL,
    credentials: { kind: 'auth-token', apiKey: process.env.API_KEY, authToken: process.env.AUTH_TOKEN },
  });
  const user = await rider.v1.currentUser();
  await rider.close();
  const nobody = new client.RideportClient({
    baseUrl: process.env.CLOSED_URL,
    credentials: { kind: 'api-key', apiKey: 'nobody' },
  });
  let unreachable = null;
  try {
    await nobody.v1.currentUser();
  } catch (error) {
    unreachable = { code: error.code, isClientError: client.isClientError(error) };
  }
  await nobody.close();
  process.stdout.write(JSON.stringify({ readings, refused, email: user.email, unreachable, version: client.CLIENT_VERSION }));
}
main().catch((error) => { console.error(error); process.exitCode = 1; });
`;

const ESM_CONSUMER = `import * as fs from 'node:fs';
import * as ridefile from '@rideport/ridefile';
import * as client from '@rideport/client';
${NODE_CONSUMER_BODY}`;

const CJS_CONSUMER = `'use strict';
const fs = require('node:fs');
const ridefile = require('@rideport/ridefile');
const client = require('@rideport/client');
${NODE_CONSUMER_BODY}`;

/**
 * Typed use of both packages. The `@ts-expect-error` lines fail the check if the types resolved to
 * `any` (or not at all), so a passing check proves the declarations were found and read.
 */
const TYPED_CONSUMER = `import {
  parseRideFile,
  isRideFileError,
  RideFileErrorCode,
  TRACK_POINT_KEYS,
  writeGeoJson,
  type RideFile,
  type TrackPoint,
  type TrackPointKey,
} from '@rideport/ridefile';
import { ClientErrorCode, isClientError, RideportClient, type Credentials } from '@rideport/client';

export function firstPoint(bytes: Uint8Array): TrackPoint | undefined {
  const ride: RideFile = parseRideFile(bytes, { filename: 'ride.fit' });
  const point = ride.tracks[0]?.points[0];
  const longitude: number | undefined = point?.x;
  // @ts-expect-error: a track point has no \`lon\`; its longitude is \`x\`
  const wrong: unknown = point?.lon;
  void longitude;
  void wrong;
  return point;
}

export const keys: readonly TrackPointKey[] = TRACK_POINT_KEYS;
// @ts-expect-error: not a track point key
export const notAKey: TrackPointKey = 'lon';

export function geoJsonOf(ride: RideFile): string {
  return writeGeoJson(ride);
}

export function codeOf(error: unknown): string | null {
  if (isRideFileError(error)) return error.code === RideFileErrorCode.EMPTY ? 'empty' : error.code;
  if (isClientError(error)) return error.code === ClientErrorCode.UNAUTHORIZED ? 'sign in' : error.code;
  return null;
}

export async function whoAmI(baseUrl: string, credentials: Credentials): Promise<string> {
  const client = new RideportClient({ baseUrl, credentials });
  try {
    return (await client.v1.currentUser()).email ?? '(no email)';
  } finally {
    await client.close();
  }
}
`;

/** A browser project's typed use of the parser alone: DOM types, no Node types. */
const BROWSER_TYPED_CONSUMER = `import { parseRideFile, writeGpx, type RideFile } from '@rideport/ridefile';

export async function readDropped(file: File): Promise<{ ride: RideFile; gpx: string }> {
  const ride = parseRideFile(new Uint8Array(await file.arrayBuffer()), { filename: file.name });
  return { ride, gpx: writeGpx(ride) };
}
`;

/** The browser bundle's entry: the same reading as the Node consumers, on bytes handed in by the page. */
const BROWSER_ENTRY = `import { parseRideFile, writeGpx, isRideFileError } from '@rideport/ridefile';

globalThis.readRides = (samples) =>
  samples.map(({ name, bytes }) => {
    const ride = parseRideFile(new Uint8Array(bytes), { filename: name });
    return { name, ride: JSON.stringify(ride), gpx: writeGpx(ride) };
  });

globalThis.refuse = () => {
  try {
    parseRideFile(new TextEncoder().encode('not a ride'));
    return null;
  } catch (error) {
    return { code: error.code, isRideFileError: isRideFileError(error) };
  }
};
`;

/**
 * The variables a README example uses without making them (a file's bytes, a parsed ride, the page's
 * elements, a client), declared for it unless the example declares them itself.
 */
const README_FREE_VARIABLES: Record<string, string> = {
  bytes: 'declare const bytes: Uint8Array;',
  ride: "declare const ride: import('@rideport/ridefile').RideFile;",
  input: 'declare const input: HTMLInputElement;',
  link: 'declare const link: HTMLAnchorElement;',
  message: 'declare const message: HTMLElement;',
  client: "declare const client: import('@rideport/client').RideportClient;",
};

/** Each ```ts example of a README, as a module that declares what the example takes as given. */
function readmeExamples(readme: string): string[] {
  const blocks = [...readme.matchAll(/^( *)```ts\n([\s\S]*?)^\1```$/gm)];
  return blocks.map(([, indent = '', indented = '']) => {
    const code = indented.replace(new RegExp(`^${indent}`, 'gm'), '');
    const given = Object.entries(README_FREE_VARIABLES)
      .filter(([name]) => new RegExp(`\\b${name}\\b`).test(code))
      .filter(([name]) => !new RegExp(`(const|let) (\\{[^}]*\\b)?${name}\\b`).test(code))
      .map(([, declaration]) => declaration);
    return [...given, code, 'export {};'].join('\n');
  });
}

function tsconfig(compilerOptions: Record<string, unknown>, files: string[]): string {
  const strict = { strict: true, noEmit: true, skipLibCheck: false, exactOptionalPropertyTypes: true };
  return JSON.stringify({ compilerOptions: { ...strict, ...compilerOptions }, files }, null, 2);
}

async function typecheck(project: string, config: string): Promise<void> {
  try {
    await run(process.execPath, [TSC, '-p', config], { cwd: project });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc -p ${config} failed in the consumer project:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'rideport-published-'));
const packed = new Map<string, PackedPackage>();

beforeAll(async () => {
  // The tarballs hold the build: bring it up to date first (a no-op after `npm test`'s typecheck).
  await run(process.execPath, [TSC, '-b', ...PUBLISHED_PACKAGES], { cwd: REPOSITORY_ROOT });
  for (const folder of PUBLISHED_PACKAGES) {
    const result = await packPackage(folder, join(scratch, 'tarballs'));
    packed.set(folder, result);
  }
}, 120_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function packedOf(folder: string): PackedPackage {
  const result = packed.get(folder);
  if (result === undefined) throw new Error(`${folder} was not packed`);
  return result;
}

describe.each(PUBLISHED_PACKAGES)('the tarball of %s', (folder) => {
  it('holds the README, LICENSE and CHANGELOG, the build, and the sources its maps name, and no test', () => {
    const { files } = packedOf(folder);
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'LICENSE',
        'CHANGELOG.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
      ]),
    );
    expect(files.filter((file) => /\.test\.|test-support|__snapshots__|tsbuildinfo/.test(file))).toEqual([]);
    // No build output without its source: a file removed from src/ must not live on in dist/.
    const stale = files
      .filter((file) => file.startsWith('dist/') && file.endsWith('.js'))
      .map((file) => file.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))
      .filter((source) => !files.includes(source));
    expect(stale, 'build output whose source is gone: run `npx tsc -b --clean && npx tsc -b`').toEqual([]);
    expect(readFileSync(join(REPOSITORY_ROOT, folder, 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(REPOSITORY_ROOT, 'LICENSE'), 'utf8'),
    );
  });

  it('has complete metadata, and exports that name only files in the tarball', () => {
    const { manifest, files } = packedOf(folder);
    const root = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as {
      repository: { url: string };
    };
    expect(manifest).toMatchObject({
      license: 'MIT',
      type: 'module',
      repository: { type: 'git', url: root.repository.url, directory: folder },
      engines: { node: '>=20.19' },
      publishConfig: { access: 'public' },
    });
    expect(typeof manifest['homepage']).toBe('string');
    expect(manifest['keywords']).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(manifest.scripts).toBeUndefined();
    const exportsText = JSON.stringify(manifest.exports);
    expect(exportsText).not.toContain(DEVELOPMENT_CONDITION);
    const targets = [...exportsText.matchAll(/"\.\/([^"]+)"/g)].map((match) => match[1]);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(files).toContain(target);
    // The workspace keeps the condition for development (tsconfig customConditions, tsx children).
    const workspace = readFileSync(join(REPOSITORY_ROOT, folder, 'package.json'), 'utf8');
    expect(workspace).toContain(DEVELOPMENT_CONDITION);
  });

  it('passes publint, strict, with suggestions counted as failures', async () => {
    const { tarball } = packedOf(folder);
    const bytes = readFileSync(tarball);
    const result = await publint({
      pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
      level: 'suggestion',
      strict: true,
    });
    expect(result.messages.map((message) => formatMessage(message, result.pkg, { color: false }))).toEqual(
      [],
    );
  });

  it('passes arethetypeswrong (require of the ESM build is Node 20.19+ require(esm), tested below)', async () => {
    const { tarball } = packedOf(folder);
    // cjs-resolves-to-esm: the packages are ESM only; Node ≥ 20.19 (their engines) and TypeScript ≥ 5.8
    // with `nodenext` load them with require(), which the consumer tests below do.
    const args = [ATTW, tarball, '--format', 'ascii', '--no-color', '--ignore-rules', 'cjs-resolves-to-esm'];
    const outcome = await run(process.execPath, args).then(
      () => 'passed',
      (error: unknown) => {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        return `${stdout ?? ''}${stderr ?? ''}`;
      },
    );
    expect(outcome).toBe('passed');
  });
});

it('@rideport/client says its own version as the User-Agent (CLIENT_VERSION is package.json version)', () => {
  expect(CLIENT_VERSION).toBe(packedOf('packages/client').version);
});

describe('a project that installed the tarballs', () => {
  const project = join(scratch, 'consumer');
  let server: TestServer | undefined;
  let environment: NodeJS.ProcessEnv;

  beforeAll(async () => {
    writeFileSync(
      join(scratch, 'package.json'),
      JSON.stringify({ name: 'scratch', private: true }), // keeps npm from walking further up
    );
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`,
    );
    const typesNode = JSON.parse(
      readFileSync(join(REPOSITORY_ROOT, 'node_modules', '@types', 'node', 'package.json'), 'utf8'),
    ) as { version: string };
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
        ...PUBLISHED_PACKAGES.map((folder) => packedOf(folder).tarball),
        `@types/node@${typesNode.version}`,
      ],
      { cwd: project, env: npmEnvironment() },
    );

    server = await testServer();
    const rider = await createPerson(server, 'Package Consumer');
    const credentials = await credentialsFor(server, rider);
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const address = server.app.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('the server has no address');
    // A port that was just free and is closed again: nothing answers there.
    const closed = await freePort();
    const samples = SAMPLES.map(({ name, bytes }) => {
      const path = join(scratch, name);
      writeFileSync(path, bytes);
      return { name, path };
    });
    environment = {
      ...process.env,
      SAMPLES: JSON.stringify(samples),
      SERVER_URL: `http://127.0.0.1:${address.port}`,
      CLOSED_URL: `http://127.0.0.1:${closed}`,
      API_KEY: credentials.apiKey,
      AUTH_TOKEN: credentials.authToken,
      RIDER_EMAIL: rider.email,
    };

    writeFileSync(join(project, 'consumer.mjs'), ESM_CONSUMER);
    writeFileSync(join(project, 'consumer.cjs'), CJS_CONSUMER);
    writeFileSync(join(project, 'typed.mts'), TYPED_CONSUMER);
    writeFileSync(join(project, 'typed.cts'), TYPED_CONSUMER);
    writeFileSync(join(project, 'typed.ts'), TYPED_CONSUMER);
    writeFileSync(join(project, 'browser-typed.ts'), BROWSER_TYPED_CONSUMER);
    writeFileSync(join(project, 'browser-entry.mjs'), BROWSER_ENTRY);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('installed the packages from the tarballs, not from the workspace', () => {
    for (const folder of PUBLISHED_PACKAGES) {
      const { name, manifest } = packedOf(folder);
      const installed = join(project, 'node_modules', ...name.split('/'));
      expect(existsSync(join(installed, 'README.md'))).toBe(true);
      expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))).toMatchObject({
        name,
        exports: manifest.exports,
      });
    }
  });

  it.each([
    ['Node ESM (import)', 'consumer.mjs'],
    ['require() (Node 20.19+ require of ESM)', 'consumer.cjs'],
  ])(
    'works from %s: the same rides as the sources, errors by code, the client against the server',
    async (_, script) => {
      const { stdout } = await run(process.execPath, [script], { cwd: project, env: environment });
      const result = JSON.parse(stdout) as {
        readings: Reading[];
        refused: { code: string; isRideFileError: boolean; message: string };
        email: string;
        unreachable: { code: string; isClientError: boolean };
        version: string;
      };
      expect(result.readings).toEqual(expectedReadings());
      expect(result.refused).toMatchObject({ code: 'RIDEFILE_UNKNOWN_FORMAT', isRideFileError: true });
      expect(result.refused.message).toMatch(/not a FIT, TCX, GPX, KML or KMZ file/);
      expect(result.email).toBe(environment['RIDER_EMAIL']);
      expect(result.unreachable).toEqual({ code: 'CLIENT_UNREACHABLE', isClientError: true });
      expect(result.version).toBe(CLIENT_VERSION);
    },
  );

  it('type-checks from TypeScript with nodenext, in an ES module and in a CommonJS module', async () => {
    const config = tsconfig(
      {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        lib: ['es2022'],
        types: ['node'],
      },
      ['typed.mts', 'typed.cts'],
    );
    writeFileSync(join(project, 'tsconfig.nodenext.json'), config);
    await typecheck(project, 'tsconfig.nodenext.json');
  });

  it('type-checks from TypeScript with bundler resolution, and in a browser project without Node types', async () => {
    writeFileSync(
      join(project, 'tsconfig.bundler.json'),
      tsconfig(
        {
          module: 'preserve',
          moduleResolution: 'bundler',
          target: 'es2022',
          lib: ['es2022'],
          types: ['node'],
        },
        ['typed.ts'],
      ),
    );
    await typecheck(project, 'tsconfig.bundler.json');
    writeFileSync(
      join(project, 'tsconfig.browser.json'),
      tsconfig(
        {
          module: 'esnext',
          moduleResolution: 'bundler',
          target: 'es2022',
          lib: ['es2022', 'dom', 'dom.iterable'],
          types: [],
        },
        ['browser-typed.ts'],
      ),
    );
    await typecheck(project, 'tsconfig.browser.json');
  });

  it('type-checks every TypeScript example of both READMEs against the installed packages', async () => {
    const files: string[] = [];
    for (const folder of PUBLISHED_PACKAGES) {
      const examples = readmeExamples(readFileSync(join(REPOSITORY_ROOT, folder, 'README.md'), 'utf8'));
      expect(examples.length).toBeGreaterThan(2);
      examples.forEach((example, index) => {
        const file = `readme-${folder.replace(/\W+/g, '-')}-${index}.mts`;
        writeFileSync(join(project, file), example);
        files.push(file);
      });
    }
    const options = { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022' };
    const environment = { lib: ['es2022', 'dom', 'dom.iterable'], types: ['node'] };
    writeFileSync(join(project, 'tsconfig.readme.json'), tsconfig({ ...options, ...environment }, files));
    await typecheck(project, 'tsconfig.readme.json');
  });

  it.skipIf(!chromiumAvailable)(
    'works from an esbuild browser bundle in Chromium, reading what Node reads',
    async () => {
      const bundle = await build({
        absWorkingDir: project,
        entryPoints: ['browser-entry.mjs'],
        bundle: true,
        platform: 'browser',
        format: 'iife',
        target: 'es2022',
        minify: true,
        write: false,
        logLevel: 'silent',
      });
      const code = bundle.outputFiles[0]?.text ?? '';
      expect(code.length).toBeGreaterThan(0);
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.setContent('<!doctype html><title>consumer</title>');
        await page.addScriptTag({ content: code });
        const samples = SAMPLES.map(({ name, bytes }) => ({ name, bytes: [...bytes] }));
        const readings = await page.evaluate(
          (input) =>
            (globalThis as unknown as { readRides: (s: typeof input) => Reading[] }).readRides(input),
          samples,
        );
        const refused = await page.evaluate(() =>
          (globalThis as unknown as { refuse: () => unknown }).refuse(),
        );
        expect(errors).toEqual([]);
        expect(readings).toEqual(expectedReadings());
        expect(refused).toEqual({ code: 'RIDEFILE_UNKNOWN_FORMAT', isRideFileError: true });
      } finally {
        await browser.close();
      }
    },
  );
});

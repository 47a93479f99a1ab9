/**
 * What can be checked of the packaging here (issue 7): electron-builder.yml validates against
 * electron-builder's own schema, the icons exist in every size and format, and a `--dir` build for
 * Linux with a stand-in Electron folder (nothing is downloaded; `npmRebuild` off, since rebuilding
 * better-sqlite3 for Electron needs its headers from the network) produces an app.asar holding the
 * app and its runtime dependencies, and nothing of tests, sources, fixtures or the corpus.
 * Real installers are built by .github/workflows/release.yml on hosted runners.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAY_ICON_NAMES } from './tray-state.js';

const repository = join(import.meta.dirname, '..', '..');
const appFolder = join(repository, 'app');
const require = createRequire(import.meta.url);
// electron-builder's own YAML reader and schema validator (ajv 8 under app-builder-lib, not the
// ajv 6 hoisted to the root), loaded the way electron-builder loads them.
const yaml = require('js-yaml') as { load(text: string): unknown };
const builderRequire = createRequire(require.resolve('app-builder-lib/package.json'));
type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string }[] | null;
};
const Ajv = (
  builderRequire('ajv') as { default: new (options: object) => { compile(schema: object): Validate } }
).default;
const schema = JSON.parse(await readFile(builderRequire.resolve('./scheme.json'), 'utf8')) as object;
const builderConfig = builderRequire('./out/util/config/config') as {
  validateConfiguration(config: unknown, debugLogger: { isEnabled: boolean }): Promise<void>;
};

type Config = Record<string, unknown> & { directories: Record<string, string> };

async function loadConfig(): Promise<Config> {
  return yaml.load(await readFile(join(repository, 'electron-builder.yml'), 'utf8')) as Config;
}

describe('electron-builder.yml', () => {
  // The options electron-builder's schemaValidator.js compiles the schema with.
  const validate = new Ajv({ allErrors: true, verbose: true, coerceTypes: true, strict: false }).compile(
    schema,
  );

  it("validates against electron-builder's schema", async () => {
    const config = await loadConfig();
    const valid = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
    await builderConfig.validateConfiguration(config, { isEnabled: false });
  });

  it('the schema check is real: a misspelt or mistyped option fails', async () => {
    const config = await loadConfig();
    expect(validate({ ...config, asarUnpak: ['x'] })).toBe(false);
    expect(validate({ ...config, linux: { ...(config['linux'] as object), colour: 'red' } })).toBe(false);
    expect(validate({ ...config, asar: 'sometimes' })).toBe(false);
    await expect(
      builderConfig.validateConfiguration({ ...config, productNam: 'x' }, { isEnabled: false }),
    ).rejects.toThrow(/productNam/);
  });

  it('targets AppImage and deb, dmg and nsis, and rebuilds the native module when packaging', async () => {
    const config = await loadConfig();
    expect(config['productName']).toBe('Rideport');
    expect((config['linux'] as { target: string[] }).target).toEqual(['AppImage', 'deb']);
    expect((config['mac'] as { target: string[] }).target).toEqual(['dmg']);
    expect((config['win'] as { target: string[] }).target).toEqual(['nsis']);
    expect(config['npmRebuild']).toBe(true);
    expect(config['asarUnpack']).toEqual(['**/node_modules/better-sqlite3/build/Release/*.node']);
  });
});

function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.toString('ascii', 12, 16)).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('icons (app/scripts/generate-icons.js)', () => {
  it('has the app icon in every size for Linux, and 1024 px for the others', async () => {
    for (const size of [16, 32, 48, 64, 128, 256, 512, 1024]) {
      const png = await readFile(join(appFolder, 'build', 'icons', `${size}x${size}.png`));
      expect(pngSize(png)).toEqual({ width: size, height: size });
    }
    expect(pngSize(await readFile(join(appFolder, 'build', 'icon.png')))).toEqual({
      width: 1024,
      height: 1024,
    });
  });

  it('has an ICNS whose entries are PNGs of the sizes their types say', async () => {
    const icns = await readFile(join(appFolder, 'build', 'icon.icns'));
    expect(icns.toString('ascii', 0, 4)).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const sizeOfType: Record<string, number> = {
      icp4: 16,
      icp5: 32,
      ic11: 32,
      icp6: 64,
      ic12: 64,
      ic07: 128,
      ic08: 256,
      ic13: 256,
      ic09: 512,
      ic14: 512,
      ic10: 1024,
    };
    const seen: string[] = [];
    for (let offset = 8; offset < icns.length;) {
      const type = icns.toString('ascii', offset, offset + 4);
      const length = icns.readUInt32BE(offset + 4);
      const size = sizeOfType[type];
      expect(size, type).toBeDefined();
      expect(pngSize(icns.subarray(offset + 8, offset + length))).toEqual({ width: size, height: size });
      seen.push(type);
      offset += length;
    }
    expect(seen.sort()).toEqual(Object.keys(sizeOfType).sort());
  });

  it('has an ICO whose directory matches its PNG images', async () => {
    const ico = await readFile(join(appFolder, 'build', 'icon.ico'));
    expect(ico.readUInt16LE(0)).toBe(0);
    expect(ico.readUInt16LE(2)).toBe(1);
    const count = ico.readUInt16LE(4);
    const sizes: number[] = [];
    for (let index = 0; index < count; index++) {
      const entry = 6 + index * 16;
      const size = ico[entry] === 0 ? 256 : ico[entry]!;
      const length = ico.readUInt32LE(entry + 8);
      const offset = ico.readUInt32LE(entry + 12);
      expect(pngSize(ico.subarray(offset, offset + length))).toEqual({ width: size, height: size });
      sizes.push(size);
    }
    expect(sizes).toEqual([16, 32, 48, 64, 128, 256]);
  });

  it('has a tray icon for every state, at 16 px and @2x', async () => {
    for (const state of TRAY_ICON_NAMES) {
      const tray = join(appFolder, 'static', 'tray');
      expect(pngSize(await readFile(join(tray, `tray-${state}.png`)))).toEqual({ width: 16, height: 16 });
      expect(pngSize(await readFile(join(tray, `tray-${state}@2x.png`)))).toEqual({ width: 32, height: 32 });
    }
  });
});

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('a --dir build with a stand-in Electron', () => {
  let work: string;
  let files: string[] = [];
  let skipReason: string | null = null;

  beforeAll(async () => {
    // The build packs what `npm run build` made; without it there is nothing to pack.
    for (const built of [
      'app/dist/main.js',
      'app/dist/preload.cjs',
      'packages/server/dist/index.js',
      'packages/sync/dist/index.js',
    ]) {
      if (!(await exists(join(repository, built)))) {
        skipReason = `${built} is missing: run \`npm run build\` (tsc -b) first`;
        return;
      }
    }
    work = await mkdtemp(join(tmpdir(), 'rideport-package-'));
    // What electron-builder copies from electronDist for Linux: the `electron` executable it renames to
    // `rideport`, Electron's LICENSE, and a resources folder for app.asar.
    const electronDist = join(work, 'electron-dist');
    await mkdir(join(electronDist, 'resources'), { recursive: true });
    await writeFile(join(electronDist, 'electron'), '#!/bin/sh\necho "stand-in for Electron 39.5.0"\n');
    await chmod(join(electronDist, 'electron'), 0o755);
    await writeFile(join(electronDist, 'LICENSE'), 'stand-in\n');
    await writeFile(join(electronDist, 'version'), '39.5.0');
    const config = {
      ...(await loadConfig()),
      electronDist,
      npmRebuild: false,
      directories: { ...(await loadConfig()).directories, output: join(work, 'out') },
    };
    const configPath = join(work, 'electron-builder.json');
    await writeFile(configPath, JSON.stringify(config));
    await promisify(execFile)(
      process.execPath,
      [
        require.resolve('electron-builder/cli.js'),
        '--linux',
        'dir',
        '--x64',
        '--config',
        configPath,
        '--publish',
        'never',
      ],
      {
        cwd: repository,
        env: { ...process.env, CSC_IDENTITY_AUTO_DISCOVERY: 'false', ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 240_000,
      },
    );
    const asar = require('@electron/asar') as {
      listPackage(path: string, options: { isPack: boolean }): string[];
    };
    files = asar
      .listPackage(join(work, 'out', 'linux-unpacked', 'resources', 'app.asar'), { isPack: false })
      .map((file) => file.replaceAll('\\', '/'));
  }, 300_000);

  afterAll(async () => {
    if (skipReason === null) await rm(work, { recursive: true, force: true });
  });

  it('names the executable rideport and unpacks the native module', async (context) => {
    if (skipReason !== null) context.skip(skipReason);
    const out = join(work, 'out', 'linux-unpacked');
    expect((await readdir(out)).sort()).toEqual(['LICENSE.electron.txt', 'resources', 'rideport', 'version']);
    expect(
      await exists(
        join(
          out,
          'resources',
          'app.asar.unpacked',
          'node_modules',
          'better-sqlite3',
          'build',
          'Release',
          'better_sqlite3.node',
        ),
      ),
    ).toBe(true);
  });

  it('packs the app, the preload, the settings page, the workspace packages and better-sqlite3', (context) => {
    if (skipReason !== null) context.skip(skipReason);
    expect(files).toEqual(
      expect.arrayContaining([
        '/package.json',
        '/dist/main.js',
        '/dist/preload.cjs',
        '/dist/desktop-app.js',
        '/static/settings.html',
        '/static/settings.js',
        '/static/tray/tray-idle.png',
        '/static/tray/tray-idle@2x.png',
        '/node_modules/@rideport/server/package.json',
        '/node_modules/@rideport/server/dist/index.js',
        '/node_modules/@rideport/sync/dist/index.js',
        '/node_modules/@rideport/client/dist/index.js',
        '/node_modules/@rideport/ridefile/dist/index.js',
        '/node_modules/better-sqlite3/package.json',
        '/node_modules/better-sqlite3/lib/index.js',
        '/node_modules/fastify/package.json',
        '/node_modules/kysely/package.json',
      ]),
    );
    expect(files).not.toContain('/node_modules/@rideport/cli/package.json');
    expect(files.filter((file) => file.startsWith('/node_modules/electron/'))).toEqual([]);
  });

  it('packs no tests, sources, fixtures, corpus or build leftovers', (context) => {
    if (skipReason !== null) context.skip(skipReason);
    const forbidden = files.filter(
      (file) =>
        /\.(ts|cts|mts|map|tsbuildinfo)$/.test(file) ||
        /\.test\.[cm]?js$/.test(file) ||
        // our sources; third-party packages may keep their JavaScript in a src folder
        /^\/(src|node_modules\/@rideport\/[^/]+\/src)(\/|$)/.test(file) ||
        /\/(fixtures|corpus|test-support)(\/|$)/.test(file) ||
        /tsconfig[^/]*\.json$/.test(file) ||
        /better-sqlite3\/(deps|src|build\/Release\/obj)/.test(file),
    );
    expect(forbidden).toEqual([]);
    expect(files.some((file) => file.startsWith('/scripts/') || file.startsWith('/build/'))).toBe(false);
  });

  it('packs no PostgreSQL driver: the app runs on SQLite only (issue 18)', (context) => {
    if (skipReason !== null) context.skip(skipReason);
    expect(
      files.filter((file) => /^\/node_modules\/(pg|pg-[^/]+|pgpass|postgres-[^/]+)\//.test(file)),
    ).toEqual([]);
    expect(files).toContain('/node_modules/@rideport/server/dist/db/postgres.js');
  });
});

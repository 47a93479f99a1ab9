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
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAY_ICON_NAMES } from './tray-state.js';

const repository = join(import.meta.dirname, '..', '..');
const appFolder = join(repository, 'app');
const require = createRequire(import.meta.url);
const yaml = require('js-yaml') as { load(text: string): unknown };

type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string }[] | null;
};
/** The parts of app-builder-lib (electron-builder's engine) these tests use, as it exports them. */
type Arch = number;
interface PlatformPackager {
  readonly appInfo: {
    readonly name: string;
    readonly linuxPackageName: string;
    readonly productName: string;
  };
  expandArtifactNamePattern(
    options: unknown,
    ext: string,
    arch: Arch | null,
    defaultPattern?: string,
  ): string;
}
interface BuilderLib {
  AppInfo: new (info: object, buildVersion: null) => object;
  Arch: Record<string, Arch>;
  LinuxPackager: new (info: object) => PlatformPackager;
  MacPackager: new (info: object) => PlatformPackager;
  WinPackager: new (info: object) => PlatformPackager;
}
interface Builder {
  validate: Validate;
  validateConfiguration: (config: unknown, debugLogger: { isEnabled: boolean }) => Promise<void>;
  lib: BuilderLib;
  deepAssign: (target: object, ...sources: unknown[]) => object;
  /** electron-builder's command line, as a path to run with Node. */
  cli: string;
  asar: { listPackage(path: string, options: { isPack: boolean }): string[] };
}

/**
 * Where electron-builder is loaded from: this workspace's node_modules, where a default install puts it on
 * Node ≥ 22.12, or the folder named by RIDEPORT_ELECTRON_BUILDER, where `.ci/run` installs it on Node 20
 * from `.ci/packaging-tools` (issue 20: there it is outside the workspace, so `npm install` stays free of
 * engine warnings for users). A folder named there must hold it: CI that asks for the packaging tests
 * gets them or a failure, never a skip.
 */
function builderRequireFrom(tools: string | undefined): NodeJS.Require | null {
  const from =
    tools === undefined || tools === '' ? require : createRequire(join(resolve(tools), 'package.json'));
  try {
    return createRequire(from.resolve('app-builder-lib/package.json'));
  } catch (error) {
    if (from === require) return null;
    throw new Error(
      `RIDEPORT_ELECTRON_BUILDER is ${tools}, but electron-builder is not installed there: run \`npm ci --prefix ${tools}\``,
      { cause: error },
    );
  }
}

/**
 * electron-builder's own YAML schema validator (ajv 8 under app-builder-lib, not the ajv 6 hoisted to
 * the root, with the options its schemaValidator.js compiles the schema with), configuration checks,
 * packagers, CLI and asar reader. It is an optional dependency whose tools need Node ≥ 22.12, so a default
 * install on an older Node leaves it out (issue 20; docs/riders/desktop-app.md), and without
 * RIDEPORT_ELECTRON_BUILDER these tests then say that they skipped.
 */
async function loadBuilder(): Promise<Builder | null> {
  const builderRequire = builderRequireFrom(process.env['RIDEPORT_ELECTRON_BUILDER']);
  if (builderRequire === null) {
    console.warn(
      'Skipped: the packaging tests (electron-builder is not installed: it needs Node ≥ 22.12 and `npm ci --include=peer`, or RIDEPORT_ELECTRON_BUILDER naming a folder that holds it).',
    );
    return null;
  }
  const Ajv = (
    builderRequire('ajv') as { default: new (options: object) => { compile(schema: object): Validate } }
  ).default;
  const schema = JSON.parse(await readFile(builderRequire.resolve('./scheme.json'), 'utf8')) as object;
  const config = builderRequire('./out/util/config/config') as Pick<Builder, 'validateConfiguration'>;
  return {
    validate: new Ajv({ allErrors: true, verbose: true, coerceTypes: true, strict: false }).compile(schema),
    validateConfiguration: (configuration, debugLogger) =>
      config.validateConfiguration(configuration, debugLogger),
    // The package's entry first: its platform packagers import each other in that order.
    lib: builderRequire('./out/index') as BuilderLib,
    deepAssign: (builderRequire('builder-util-runtime') as Pick<Builder, 'deepAssign'>).deepAssign,
    cli: builderRequire.resolve('electron-builder/cli.js'),
    asar: builderRequire('@electron/asar') as Builder['asar'],
  };
}

const builder = await loadBuilder();

type Config = Record<string, unknown> & { directories: Record<string, string> };

async function loadConfig(): Promise<Config> {
  return yaml.load(await readFile(join(repository, 'electron-builder.yml'), 'utf8')) as Config;
}

// The bodies of skipped describe blocks still run, so `builder` is read inside the tests.
describe.skipIf(builder === null)("electron-builder.yml, by electron-builder's own checks", () => {
  it("validates against electron-builder's schema", async () => {
    const { validate, validateConfiguration } = builder!;
    const config = await loadConfig();
    const valid = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
    await validateConfiguration(config, { isEnabled: false });
  });

  it('the schema check is real: a misspelt or mistyped option fails', async () => {
    const { validate, validateConfiguration } = builder!;
    const config = await loadConfig();
    expect(validate({ ...config, asarUnpak: ['x'] })).toBe(false);
    expect(validate({ ...config, linux: { ...(config['linux'] as object), colour: 'red' } })).toBe(false);
    expect(validate({ ...config, asar: 'sometimes' })).toBe(false);
    await expect(validateConfiguration({ ...config, productNam: 'x' }, { isEnabled: false })).rejects.toThrow(
      /productNam/,
    );
  });
});

describe('electron-builder for the packaging tests on Node 20 (.ci/run, issue 20)', () => {
  it('.ci/packaging-tools pins, and locks, the electron-builder of the root package.json', async () => {
    const root = JSON.parse(await readFile(join(repository, 'package.json'), 'utf8')) as {
      optionalDependencies: Record<string, string>;
    };
    const tools = join(repository, '.ci', 'packaging-tools');
    const manifest = JSON.parse(await readFile(join(tools, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const lock = JSON.parse(await readFile(join(tools, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const version = root.optionalDependencies['electron-builder'];
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.dependencies).toEqual({ 'electron-builder': version });
    expect(lock.packages['node_modules/electron-builder']?.version).toBe(version);
    expect(lock.packages['node_modules/app-builder-lib']?.version).toBe(version);
  });

  it('.ci/run installs it there and names it to the tests', async () => {
    const run = await readFile(join(repository, '.ci', 'run'), 'utf8');
    expect(run).toMatch(/^npm ci --prefix \.ci\/packaging-tools\b/m);
    expect(run).toMatch(/^export RIDEPORT_ELECTRON_BUILDER="\$PWD\/\.ci\/packaging-tools"$/m);
  });

  it('a named folder without electron-builder fails in words rather than skipping', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'rideport-no-builder-'));
    try {
      expect(() => builderRequireFrom(empty)).toThrow(
        `RIDEPORT_ELECTRON_BUILDER is ${empty}, but electron-builder is not installed there`,
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('loads electron-builder from the named folder when one is named', (context) => {
    const tools = process.env['RIDEPORT_ELECTRON_BUILDER'];
    if (tools === undefined || tools === '') context.skip('RIDEPORT_ELECTRON_BUILDER is not set');
    expect(builder).not.toBeNull();
    expect(builderRequireFrom(tools)!.resolve('./package.json')).toBe(
      join(resolve(tools!), 'node_modules', 'app-builder-lib', 'package.json'),
    );
  });
});

describe('electron-builder.yml', () => {
  it('targets AppImage and deb, dmg for Intel and Apple silicon, and nsis, and rebuilds the native module', async () => {
    const config = await loadConfig();
    expect(config['productName']).toBe('Rideport');
    expect((config['linux'] as { target: string[] }).target).toEqual(['AppImage', 'deb']);
    expect((config['mac'] as { target: unknown[] }).target).toEqual([
      { target: 'dmg', arch: ['x64', 'arm64'] },
    ]);
    expect((config['win'] as { target: string[] }).target).toEqual(['nsis']);
    expect(config['npmRebuild']).toBe(true);
    expect(config['asarUnpack']).toEqual(['**/node_modules/better-sqlite3/build/Release/*.node']);
  });
});

/** Each target of the configuration with the architectures it is built for, as electron-builder reads them. */
function targetsOf(config: Config): { platform: 'linux' | 'mac' | 'win'; target: string; archs: string[] }[] {
  return (['linux', 'mac', 'win'] as const).flatMap((platform) =>
    (config[platform] as { target: (string | { target: string; arch?: string[] })[] }).target.map((entry) =>
      typeof entry === 'string'
        ? // electron-builder's default for a target without arch: the build machine's (x64 on the runners
          // that build Linux and Windows)
          { platform, target: entry, archs: ['x64'] }
        : { platform, target: entry.target, archs: entry.arch ?? ['x64'] },
    ),
  );
}

/**
 * Issue 20: app/package.json is named @rideport/app, and electron-builder expands `${name}` in file
 * names (electron-builder issues #2963, #6610). The names come from electron-builder's own platform
 * packagers (expandArtifactNamePattern, AppInfo, its architecture names), given the metadata it builds
 * from: app/package.json with the configuration's extraMetadata.
 */
describe.skipIf(builder === null)('artifact names, as electron-builder expands them', () => {
  async function packagers(config: Config): Promise<Record<'linux' | 'mac' | 'win', PlatformPackager>> {
    const { lib, deepAssign } = builder!;
    const metadata = deepAssign(
      JSON.parse(await readFile(join(appFolder, 'package.json'), 'utf8')) as object,
      config['extraMetadata'],
    );
    const devMetadata = JSON.parse(await readFile(join(repository, 'package.json'), 'utf8')) as object;
    const info: Record<string, unknown> = {
      config,
      metadata,
      devMetadata,
      framework: { defaultAppIdPrefix: '' },
    };
    info['appInfo'] = new lib.AppInfo(info, null);
    return {
      linux: new lib.LinuxPackager(info),
      mac: new lib.MacPackager(info),
      win: new lib.WinPackager(info),
    };
  }

  async function artifactNames(config: Config): Promise<string[]> {
    const { lib } = builder!;
    const byPlatform = await packagers(config);
    return targetsOf(config).flatMap(({ platform, target, archs }) => {
      const options = config[target === 'AppImage' ? 'appImage' : target] as
        { artifactName?: string } | undefined;
      // Every target names its file itself: electron-builder's defaults differ by target, and some use ${name}.
      expect(options?.artifactName, target).toBeDefined();
      const extensions: Record<string, string> = {
        AppImage: 'AppImage',
        deb: 'deb',
        dmg: 'dmg',
        nsis: 'exe',
      };
      const ext = extensions[target];
      if (ext === undefined) throw new Error(`no file extension known for the target ${target}`);
      return archs.map((arch) =>
        byPlatform[platform].expandArtifactNamePattern(options, ext, lib.Arch[arch]!),
      );
    });
  }

  it("names every target's file Rideport or rideport, with its version and architecture", async () => {
    expect(await artifactNames(await loadConfig())).toEqual([
      'Rideport-0.1.0-x86_64.AppImage',
      'rideport_0.1.0_amd64.deb',
      'Rideport-0.1.0-x64.dmg',
      'Rideport-0.1.0-arm64.dmg',
      'Rideport-Setup-0.1.0.exe',
    ]);
  });

  it('packages as rideport: the deb package, the Windows install key, and ${name}', async () => {
    const { linux } = await packagers(await loadConfig());
    expect(linux.appInfo.name).toBe('rideport');
    expect(linux.appInfo.linuxPackageName).toBe('rideport');
    // Electron's app name, and so the data folder, comes from productName.
    expect(linux.appInfo.productName).toBe('Rideport');
  });

  it('the check is real: without extraMetadata.name, ${name} is the scoped workspace name', async () => {
    const config = await loadConfig();
    const names = await artifactNames({ ...config, extraMetadata: { main: 'dist/main.js' } });
    expect(names).toContain('@rideport/app_0.1.0_amd64.deb');
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

describe.skipIf(builder === null)('a --dir build with a stand-in Electron', () => {
  let work: string;
  let files: string[] = [];
  let skipReason: string | null = null;

  beforeAll(async () => {
    // The build packs what `npm run build:desktop` made; without it there is nothing to pack.
    for (const built of [
      'app/dist/main.js',
      'app/dist/preload.cjs',
      'packages/server/dist/index.js',
      'packages/sync/dist/index.js',
    ]) {
      if (!(await exists(join(repository, built)))) {
        skipReason = `${built} is missing: run \`npm run build:desktop\` first`;
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
      [builder!.cli, '--linux', 'dir', '--x64', '--config', configPath, '--publish', 'never'],
      {
        cwd: repository,
        env: { ...process.env, CSC_IDENTITY_AUTO_DISCOVERY: 'false', ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 240_000,
      },
    );
    files = builder!.asar
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

/**
 * Packs the published packages (@rideport/ridefile, @rideport/client) as npm would, but with the
 * manifest a consumer gets (issue 21): the workspace's package.json keeps the development-only
 * `@rideport/source` condition, which points at `src/index.ts` so that tsc, and children started with
 * `--import tsx --conditions=@rideport/source` (the server's parse workers, test processes), read
 * the sources of a sibling package instead of a possibly stale build. No consumer sets that condition
 * and Node cannot load the `.ts` it names, so the published `exports` leave it out.
 *
 * npm applies no `publishConfig.exports`, and rewriting the workspace's package.json around
 * `npm pack` would race with everything else reading it (tests run in parallel). So the files npm
 * would pack are copied into a staging folder beside a rewritten manifest, and packed there. Each
 * package's own `prepack` refuses a direct `npm pack`/`npm publish`, which would ship the condition.
 *
 *   tsx scripts/pack-package.ts [--out <folder>] [<package folder>...]   (default: both, into dist/packages)
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The packages published to npm, as folders relative to the repository root. */
export const PUBLISHED_PACKAGES = ['packages/ridefile', 'packages/client'] as const;

/** The export condition only this repository sets (tsconfig.base.json `customConditions`). */
export const DEVELOPMENT_CONDITION = '@rideport/source';

/** The manifest fields this script reads or rewrites; the rest passes through untouched. */
export interface PackageManifest {
  name: string;
  version: string;
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
  exports?: unknown;
  imports?: unknown;
  [field: string]: unknown;
}

export interface PackedPackage {
  name: string;
  version: string;
  /** absolute path of the .tgz */
  tarball: string;
  /** paths inside the package, as npm lists them */
  files: string[];
  /** the package.json inside the tarball */
  manifest: PackageManifest;
}

/** `exports`/`imports` without the development condition, at any depth. */
function withoutDevelopmentCondition(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDevelopmentCondition);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== DEVELOPMENT_CONDITION)
      .map(([key, entry]) => [key, withoutDevelopmentCondition(entry)]),
  );
}

/**
 * The package.json a consumer installs: no development condition, and no `scripts` (the only one is
 * the guard against packing by hand, and installs from the registry run none) nor `devDependencies`.
 */
export function publishedManifest(manifest: PackageManifest): PackageManifest {
  const published: PackageManifest = { ...manifest };
  delete published.scripts;
  delete published.devDependencies;
  if (manifest.exports !== undefined) published.exports = withoutDevelopmentCondition(manifest.exports);
  if (manifest.imports !== undefined) published.imports = withoutDevelopmentCondition(manifest.imports);
  return published;
}

/**
 * The environment for an npm started in another folder. npm reads `npm_config_*` variables as its
 * settings, and `npm run` passes the outer command's settings to its children that way (`npm test
 * --offline` reaches an inner `npm install` as `npm_config_offline=true`); the inner npm must see
 * only the user's own.
 */
export function npmEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  );
}

interface DryRunEntry {
  files: { path: string }[];
}

/**
 * Packs one package folder into `destination` and returns the tarball. The package must be built
 * (`tsc -b`): what its `files` name is packed as it is on disk.
 */
export async function packPackage(packageDirectory: string, destination: string): Promise<PackedPackage> {
  const source = resolve(REPOSITORY_ROOT, packageDirectory);
  const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as PackageManifest;
  // npm's own list of what it would pack (`files`, plus README, LICENSE, CHANGELOG and package.json).
  const listed = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: source,
    env: npmEnvironment(),
  });
  const [entry] = JSON.parse(listed.stdout) as DryRunEntry[];
  if (entry === undefined) throw new Error(`npm pack --dry-run listed nothing for ${packageDirectory}`);

  const staging = await mkdtemp(join(tmpdir(), 'rideport-pack-'));
  try {
    for (const { path } of entry.files) {
      if (path === 'package.json') continue;
      await mkdir(dirname(join(staging, path)), { recursive: true });
      await copyFile(join(source, path), join(staging, path));
    }
    const published = publishedManifest(manifest);
    await writeFile(join(staging, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
    await mkdir(destination, { recursive: true });
    const packed = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', resolve(destination)],
      { cwd: staging, env: npmEnvironment() },
    );
    const [result] = JSON.parse(packed.stdout) as (DryRunEntry & { filename: string })[];
    if (result === undefined) throw new Error(`npm pack produced nothing for ${packageDirectory}`);
    return {
      name: manifest.name,
      version: manifest.version,
      tarball: join(resolve(destination), result.filename),
      files: result.files.map((file) => file.path).sort(),
      manifest: published,
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function main(args: string[]): Promise<void> {
  let destination = join(REPOSITORY_ROOT, 'dist', 'packages');
  const folders: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--out') {
      const value = args[++i];
      if (value === undefined) throw new Error('--out needs a folder');
      destination = resolve(value);
    } else folders.push(arg);
  }
  for (const folder of folders.length > 0 ? folders : PUBLISHED_PACKAGES) {
    const packed = await packPackage(folder, destination);
    console.log(`${packed.name}@${packed.version}: ${packed.tarball} (${packed.files.length} files)`);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`pack-package: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}

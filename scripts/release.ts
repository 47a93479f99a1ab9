/**
 * Versioning and publishing of the published packages with Changesets (issue 21). Two steps, each a
 * root script, so that what is published is always what was reviewed:
 *
 *   npm run version-packages   apply the pending changesets: versions, CHANGELOG.md of each package,
 *                              internal dependency ranges (changeset version), then the client's
 *                              CLIENT_VERSION (its User-Agent) and package-lock.json to match.
 *   npm run release [-- --dry-run]
 *                              build afresh, pack each published package without the development
 *                              condition (scripts/pack-package.ts), publish the versions the registry
 *                              does not have yet, and tag them (changeset tag).
 *
 * `changeset publish` is not used: it runs `npm publish` in the package folder, which would ship the
 * workspace manifest with its development-only `@rideport/source` condition.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { packPackage, PUBLISHED_PACKAGES, REPOSITORY_ROOT, type PackageManifest } from './pack-package.js';

const run = promisify(execFile);

const CLIENT_SOURCE = join(REPOSITORY_ROOT, 'packages', 'client', 'src', 'client.ts');
const CLIENT_VERSION_LINE = /^export const CLIENT_VERSION = '[^']*';$/m;

/** client.ts with CLIENT_VERSION set to `version`; throws when the declaration is not found. */
export function withClientVersion(source: string, version: string): string {
  if (!CLIENT_VERSION_LINE.test(source)) {
    throw new Error(`${CLIENT_SOURCE} has no line "export const CLIENT_VERSION = '…';" to update`);
  }
  return source.replace(CLIENT_VERSION_LINE, `export const CLIENT_VERSION = '${version}';`);
}

async function manifestOf(folder: string): Promise<PackageManifest> {
  return JSON.parse(await readFile(join(REPOSITORY_ROOT, folder, 'package.json'), 'utf8')) as PackageManifest;
}

/** The changesets written but not yet applied by `version-packages`. */
async function pendingChangesets(): Promise<string[]> {
  const names = await readdir(join(REPOSITORY_ROOT, '.changeset'));
  return names.filter((name) => name.endsWith('.md') && name !== 'README.md');
}

async function npm(args: string[]): Promise<string> {
  const { stdout } = await run('npm', args, { cwd: REPOSITORY_ROOT, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** Whether the registry has this version of the package (npm view answers E404 when it has not). */
async function published(name: string, version: string): Promise<boolean> {
  try {
    return (await npm(['view', `${name}@${version}`, 'version'])).trim() === version;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    if (stderr?.includes('E404') === true) return false;
    throw error;
  }
}

async function versionPackages(): Promise<void> {
  await run('npx', ['changeset', 'version'], { cwd: REPOSITORY_ROOT });
  const { version } = await manifestOf('packages/client');
  await writeFile(CLIENT_SOURCE, withClientVersion(await readFile(CLIENT_SOURCE, 'utf8'), version));
  await npm(['install', '--package-lock-only', '--no-audit', '--no-fund']);
  for (const folder of PUBLISHED_PACKAGES) {
    const manifest = await manifestOf(folder);
    console.log(`${manifest.name}@${manifest.version}`);
  }
  console.log('Review the versions and each CHANGELOG.md, commit, then run `npm run release`.');
}

async function release(dryRun: boolean): Promise<void> {
  const pending = await pendingChangesets();
  if (pending.length > 0) {
    throw new Error(
      `changesets not yet applied (${pending.join(', ')}): run \`npm run version-packages\` and commit first`,
    );
  }
  // A fresh build: nothing removed from src/ may live on in dist/.
  await run('npx', ['tsc', '-b', '--clean'], { cwd: REPOSITORY_ROOT });
  await run('npx', ['tsc', '-b'], { cwd: REPOSITORY_ROOT });
  const destination = join(REPOSITORY_ROOT, 'dist', 'packages');
  let publishedAny = false;
  for (const folder of PUBLISHED_PACKAGES) {
    const { name, version } = await manifestOf(folder);
    if (await published(name, version)) {
      console.log(`${name}@${version} is on the registry already: skipped`);
      continue;
    }
    const packed = await packPackage(folder, destination);
    await npm(['publish', packed.tarball, '--access', 'public', ...(dryRun ? ['--dry-run'] : [])]);
    console.log(`${name}@${version}: ${dryRun ? 'would publish' : 'published'} ${packed.tarball}`);
    publishedAny = true;
  }
  if (publishedAny && !dryRun) await run('npx', ['changeset', 'tag'], { cwd: REPOSITORY_ROOT });
}

async function main(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  if (command === 'version') return versionPackages();
  if (command === 'publish') return release(rest.includes('--dry-run'));
  throw new Error('usage: tsx scripts/release.ts version | publish [--dry-run]');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}

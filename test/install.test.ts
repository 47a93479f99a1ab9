/**
 * Issue 20: what the README's first command, `npm install`, puts on disk and runs, read from the lock
 * file the way npm 10 (the npm of Node 20 and 22) installs it: npm < 11.16 ignores package.json's
 * allowScripts and runs every install script of what it installs, and warns EBADENGINE for every
 * non-optional package of the tree, installed or left out, whose engines the running Node does not
 * satisfy (an optional one it skips instead). Electron's install script downloads its binary, so
 * Electron must not be installed by default; the repository's .npmrc leaves out peer dependencies, and
 * Electron is the app's.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { maxSatisfying, minVersion, satisfies } from 'semver';
import { describe, expect, it } from 'vitest';

const repository = join(import.meta.dirname, '..');

interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  peer?: boolean;
  optional?: boolean;
  hasInstallScript?: boolean;
  engines?: unknown;
  peerDependencies?: Record<string, string>;
}

interface Manifest {
  engines?: { node?: string };
  allowScripts?: Record<string, boolean>;
  workspaces?: string[];
  peerDependencies?: Record<string, string>;
}

async function json<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(join(repository, path), 'utf8')) as T;
}

const lock = await json<{ packages: Record<string, LockEntry> }>('package-lock.json');
const root = await json<Manifest>('package.json');

/** The lock file's packages under node_modules, by path, with the package name each path holds. */
const installed = Object.entries(lock.packages)
  .filter(([path, entry]) => path.includes('node_modules/') && entry.link !== true)
  .map(([path, entry]) => ({ path, name: path.slice(path.lastIndexOf('node_modules/') + 13), entry }));

/** The oldest Node the repository says it runs on (root package.json engines). */
const oldestNode = minVersion(root.engines?.node ?? '')!.version;

function nodeRange(entry: LockEntry): string | null {
  const engines = entry.engines;
  if (engines === null || typeof engines !== 'object' || Array.isArray(engines)) return null;
  const node = (engines as Record<string, unknown>)['node'];
  return typeof node === 'string' ? node : null;
}

describe('a default npm install (issue 20)', () => {
  it("reads omit=peer from the repository's .npmrc, as npm itself loads its configuration", async () => {
    // npm.cmd on Windows runs only through a shell (Node's fix for CVE-2024-27980).
    const { stdout } = await promisify(execFile)('npm', ['config', 'get', 'omit'], {
      cwd: repository,
      shell: process.platform === 'win32',
    });
    expect(stdout.trim().split(',')).toContain('peer');
  });

  it('leaves Electron out: it is a peer dependency of the app only, of the version packaging builds for', async () => {
    expect(lock.packages['node_modules/electron']).toMatchObject({ peer: true });
    const app = await json<Manifest>('app/package.json');
    const builderConfig = await readFile(join(repository, 'electron-builder.yml'), 'utf8');
    expect(builderConfig).toMatch(
      new RegExp(`^electronVersion: ${app.peerDependencies?.['electron']}$`, 'm'),
    );
    expect(root.allowScripts?.['electron']).toBe(false);
  });

  it('runs the install scripts allowScripts allows and no other, whichever npm runs it', () => {
    const withScripts = installed
      .filter(({ entry }) => entry.hasInstallScript === true && entry.peer !== true)
      .map(({ name }) => name)
      .sort();
    const allowed = Object.entries(root.allowScripts ?? {})
      .filter(([, allow]) => allow)
      .map(([name]) => name)
      .sort();
    expect(withScripts).toEqual(allowed);
    expect(withScripts).not.toContain('electron');
  });

  it(`warns no EBADENGINE on Node ${oldestNode}: what needs a newer Node is optional, and skipped there`, () => {
    const refused = installed
      .filter(({ entry }) => entry.optional !== true)
      .filter(({ entry }) => {
        const range = nodeRange(entry);
        return range !== null && !satisfies(oldestNode, range);
      })
      .map(({ path, entry }) => `${path}: ${nodeRange(entry)}`);
    expect(refused).toEqual([]);
  });

  it('the workspace packages all declare the Node they run on, the oldest the repository supports', async () => {
    for (const workspace of root.workspaces ?? []) {
      const manifest = await json<Manifest>(join(workspace, 'package.json'));
      expect(manifest.engines?.node, workspace).toBe(root.engines?.node);
    }
  });

  it('the README says which Node building the desktop app needs: the newest its optional tools ask for', async () => {
    const needed = installed
      .filter(({ entry }) => entry.optional === true && entry.peer !== true)
      .map(({ entry }) => nodeRange(entry))
      .filter((range): range is string => range !== null)
      .map((range) => minVersion(range)!.version);
    const newest = maxSatisfying(needed, '*')!;
    expect(satisfies(oldestNode, `>=${newest}`)).toBe(false);
    const [major, minor] = newest.split('.');
    const readme = await readFile(join(repository, 'README.md'), 'utf8');
    expect(readme).toContain(`Node ≥ ${major}.${minor}`);
  });
});

/**
 * Issue 35: `npm install` with npm 10 (the npm of Node 20 and 22) rewrote package-lock.json, leaving a
 * contributor on npm 10 with a dirty tree. npm 11 writes a `libc` field (glibc or musl) into the entry
 * of each platform package that names one; npm 10 does not know the field and drops it on every
 * install. A lock without `libc` is left exactly as it is by both. The price: npm 11 can no longer
 * skip the musl builds of a few optional native packages on a glibc Linux (and the other way round)
 * without fetching them; it installs them beside the right ones, unused, as npm 10 always did.
 *
 * The first test reads the lock; the second runs npm 10 and this machine's npm on copies of the
 * manifests and lock (`npm install --package-lock-only`: resolving only, from the registry's
 * metadata) and checks that neither changes a byte.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repository = join(import.meta.dirname, '..');
const lockText = readFileSync(join(repository, 'package-lock.json'), 'utf8');

describe('package-lock.json (issue 35)', () => {
  it('has no field npm 10 drops: libc', () => {
    const lock = JSON.parse(lockText) as { packages: Record<string, Record<string, unknown>> };
    const withLibc = Object.entries(lock.packages)
      .filter(([, entry]) => Object.hasOwn(entry, 'libc'))
      .map(([path]) => path);
    expect(withLibc, 'npm 11 wrote these; remove their "libc" fields (see the top of this file)').toEqual([]);
  });

  it('stays as it is under npm 10 and under this machine’s npm', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'rideport-lock-'));
    try {
      const manifest = JSON.parse(readFileSync(join(repository, 'package.json'), 'utf8')) as {
        workspaces: string[];
      };
      for (const file of [
        'package.json',
        'package-lock.json',
        '.npmrc',
        ...manifest.workspaces.map((w) => `${w}/package.json`),
      ]) {
        if (!existsSync(join(repository, file))) continue;
        mkdirSync(dirname(join(copy, file)), { recursive: true });
        copyFileSync(join(repository, file), join(copy, file));
      }
      const env = {
        ...process.env,
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
      };
      // npm 10 as a contributor on Node 20 or 22 has it, then the npm this machine (and CI) runs.
      for (const [command, args] of [
        ['npx', ['-y', 'npm@10']],
        ['npm', []],
      ] as const) {
        await promisify(execFile)(command, [...args, 'install', '--package-lock-only', '--ignore-scripts'], {
          cwd: copy,
          env,
        });
        const same = readFileSync(join(copy, 'package-lock.json'), 'utf8') === lockText;
        expect(same, `${[command, ...args].join(' ')} install changed the lock`).toBe(true);
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});

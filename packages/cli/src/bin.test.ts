import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './test-support/run.js';

const run = promisify(execFile);

/** The launcher as npm links it (node_modules/.bin/rideport), run from the repository root. */
async function launch(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['packages/cli/bin/rideport.js', ...args], {
      cwd: REPOSITORY_ROOT,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('bin/rideport.js, in a child process', () => {
  beforeAll(async () => {
    // `npm test` builds first; a bare `vitest run` on a fresh checkout may not have.
    if (!existsSync(join(REPOSITORY_ROOT, 'packages/cli/dist/main.js'))) {
      await run('npx', ['tsc', '-b', 'packages/cli'], { cwd: REPOSITORY_ROOT });
    }
  }, 120_000);

  it('inspects the sample ride and exits 0', async () => {
    const result = await launch(['inspect', 'fixtures/gpx/sample-ride.gpx']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^format {8}GPX$/m);
    expect(result.stdout).toContain('track 1 of 1: ride "Evening lap of the Allmend"');
  });

  it('sets the exit status of a failed operation and of bad usage', async () => {
    const missing = await launch(['inspect', 'fixtures/gpx/no-such-file.gpx']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^rideport: inspect fixtures\/gpx\/no-such-file\.gpx: ENOENT: [^\n]+\n$/);
    const usage = await launch(['inspect']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^rideport: usage: [^\n]+\n$/);
  });
});

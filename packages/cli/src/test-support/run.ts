/** Runs `main` in-process with captured output, for the command tests. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliWritable } from '../io.js';
import { main } from '../main.js';

export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** A CliWritable that keeps what is written. */
export class Capture implements CliWritable {
  text = '';

  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }

  once(): this {
    return this;
  }

  /** the output split into lines, without the empty string after the final newline */
  get lines(): string[] {
    return this.text.split('\n').filter((line, i, all) => i < all.length - 1 || line !== '');
  }
}

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
  stderrLines: string[];
}

/**
 * `rideport ...args` run in `cwd` (the repository root by default, so `fixtures/…` paths work), with
 * `env` as its whole environment.
 */
export async function rideport(
  args: string[],
  cwd = REPOSITORY_ROOT,
  env: Record<string, string> = {},
): Promise<RunResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const status = await main(args, { stdout, stderr, cwd, env });
  return { status, stdout: stdout.text, stderr: stderr.text, stderrLines: stderr.lines };
}

/** A fresh temporary directory, and a function that removes it. */
export function temporaryDirectory(): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'rideport-cli-'));
  return {
    path,
    remove: () => {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Builds the packages the launcher runs (`npm test` has; a bare `vitest run` on a fresh checkout may not). */
export async function buildCli(): Promise<void> {
  if (existsSync(join(REPOSITORY_ROOT, 'packages/cli/dist/main.js'))) return;
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  await promisify(execFile)('npx', ['tsc', '-b', 'packages/cli'], { cwd: REPOSITORY_ROOT });
}

/**
 * Start-up lines as one line each, the way tests read them: `up` and `serve` wrap them at 80 columns
 * when not on a terminal (issue 35), each continuation line beginning with two spaces.
 */
export function unwrapped(output: string): string {
  return output.replace(/\n {2}(?=\S)/g, ' ');
}

/* global process, console, URL */
/**
 * Type-checks and builds the desktop app's Electron entry points (app/tsconfig.electron.json) when
 * Electron's package is installed, and says it skipped them when it is not (issue 20; see
 * scripts/desktop-toolchain.js).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { electronInstalled } from './desktop-toolchain.js';

if (electronInstalled()) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const { status } = spawnSync(
    process.execPath,
    [tsc, '-b', fileURLToPath(new URL('../app/tsconfig.electron.json', import.meta.url))],
    { stdio: 'inherit' },
  );
  process.exitCode = status ?? 1;
} else {
  console.warn(
    "Skipped: type-checking the desktop app's Electron entry points (Electron is not installed; " +
      '`npm ci --include=peer` installs it).',
  );
}

/**
 * Which parts of the desktop app's toolchain this checkout has (issue 20). A default `npm install`
 * leaves out Electron (.npmrc: omit=peer, so its install script never downloads the binary) and, on
 * Node below 22.12, electron-builder (an optional dependency whose tools require that Node); then the
 * checks that need them say they skipped. `npm ci --include=peer` on Node ≥ 22.12 installs both.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function installed(name) {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

/** Electron's package: its types, for the app's entry points (app/tsconfig.electron.json). */
export function electronInstalled() {
  return installed('electron');
}

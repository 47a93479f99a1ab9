/**
 * The Electron entry point (app/package.json "main"): the real Electron APIs into DesktopApp
 * (desktop-app.ts), which does everything else. The one place that starts work at import: it is the
 * program.
 */
import { fileURLToPath } from 'node:url';
import { tuneLongRunningProcess } from '@rideport/host/long-running';
import { limitAllocatorArenas, mapLargeBlocksApart } from '@rideport/host/freed-memory';
import { DesktopApp } from './desktop-app.js';
import { realElectron } from './electron-real.js';

// The app runs for weeks: its memory must not climb with the rides it syncs (issue 22). The arenas
// are capped after the imports have loaded (Electron's own threads have their arenas by then), so
// the cap holds for the threads started later: the parse workers, libuv's pool.
limitAllocatorArenas();
mapLargeBlocksApart();
tuneLongRunningProcess();

const desktop = new DesktopApp({
  electron: realElectron(),
  // dist/main.js → the app's root (app/, or resources/app.asar when packaged)
  appRoot: fileURLToPath(new URL('..', import.meta.url)),
  argv: process.argv,
  env: process.env,
  log: {
    info: (message) => {
      console.log(message);
    },
    warn: (message) => {
      console.warn(message);
    },
  },
});

desktop.start().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
  void desktop.quit();
});

/**
 * Where `serve`, `up`, `sync` and `admin` keep their data: the per-user data directory from env-paths
 * unless `--data` says otherwise. The server's database file in it is the server's to name (issue 35:
 * this module is loaded by `rideport sync` too, which runs without the server).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import envPaths from 'env-paths';

export function dataDirectory(option: string | undefined, cwd: string): string {
  if (option !== undefined && option !== '') return resolve(cwd, option);
  return envPaths('rideport', { suffix: '' }).data;
}

/**
 * Where the desktop app keeps the same layout (Electron's userData for the product name "Rideport";
 * app/README.md, "Where data lives"), so that `up` can say how to run on it (issue 20).
 */
export function desktopAppDataDirectory(
  platform: NodeJS.Platform = process.platform,
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = homedir(),
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Rideport');
  if (platform === 'win32') return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), 'Rideport');
  const config = env['XDG_CONFIG_HOME'];
  return join(config !== undefined && config !== '' ? config : join(home, '.config'), 'Rideport');
}

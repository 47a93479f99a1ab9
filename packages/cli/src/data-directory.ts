/**
 * Where `serve`, `up` and `admin` keep their data (docs/contributors/architecture.md: the per-user data directory from
 * env-paths unless `--data` says otherwise), and the database file in it.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { databasePathIn } from '@rideport/server';
import envPaths from 'env-paths';

export function dataDirectory(option: string | undefined, cwd: string): string {
  if (option !== undefined && option !== '') return resolve(cwd, option);
  return envPaths('rideport', { suffix: '' }).data;
}

export function databasePath(option: string | undefined, cwd: string): string {
  return databasePathIn(dataDirectory(option, cwd));
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

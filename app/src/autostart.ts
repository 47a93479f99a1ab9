/**
 * Start at login (issue 7: "macOS/Windows login items, XDG autostart file on Linux pointing at the
 * AppImage"). macOS and Windows: Electron's login items. Linux has no such API: an XDG autostart entry,
 * ~/.config/autostart/rideport.desktop (or $XDG_CONFIG_HOME/autostart), whose Exec is the AppImage
 * (process.env.APPIMAGE, set by the AppImage runtime; the mounted executable changes every run) or,
 * for a .deb install, the executable itself.
 */
import { rm } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { AppLike } from './electron-api.js';
import { writeFileAtomically } from '@rideport/files';

export const AUTOSTART_FILE_NAME = 'rideport.desktop';

/** Quotes a path for a .desktop Exec line (Desktop Entry Specification, "The Exec key"). */
export function quoteExecArgument(path: string): string {
  if (!/[\s"'\\`$<>|&;*?#()~]/.test(path)) return path;
  return `"${path.replace(/(["`$\\])/g, '\\$1')}"`;
}

/** The text of the autostart entry. `--hidden`: at login the app starts in the tray, no window. */
export function autostartDesktopEntry(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Version=1.0',
    'Name=Rideport',
    'Comment=Syncs rides from GPS devices and folders',
    `Exec=${quoteExecArgument(executable)} --hidden`,
    'Icon=rideport',
    'Terminal=false',
    'Categories=Utility;',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export interface AutostartEnvironment {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  homeFolder: string;
  /** the running executable (app.getPath('exe')) */
  executable: string;
}

/** Where the Linux autostart entry lives. */
export function autostartFilePath(environment: AutostartEnvironment): string {
  const configHome = environment.env['XDG_CONFIG_HOME'];
  const base =
    configHome !== undefined && isAbsolute(configHome) ? configHome : join(environment.homeFolder, '.config');
  return join(base, 'autostart', AUTOSTART_FILE_NAME);
}

/** Turns start at login on or off for this platform. */
export async function setStartAtLogin(
  enabled: boolean,
  app: Pick<AppLike, 'setLoginItemSettings'>,
  environment: AutostartEnvironment,
): Promise<void> {
  if (environment.platform === 'darwin') {
    app.setLoginItemSettings({ openAtLogin: enabled, openAsHidden: true });
    return;
  }
  if (environment.platform === 'win32') {
    app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] });
    return;
  }
  const path = autostartFilePath(environment);
  if (!enabled) {
    await rm(path, { force: true });
    return;
  }
  const appImage = environment.env['APPIMAGE'];
  const executable = appImage !== undefined && appImage !== '' ? appImage : environment.executable;
  await writeFileAtomically(path, autostartDesktopEntry(executable), {
    mode: 0o644,
    folderMode: 0o700,
  });
}

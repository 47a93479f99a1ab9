import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  autostartDesktopEntry,
  quoteExecArgument,
  setStartAtLogin,
  type AutostartEnvironment,
} from './autostart.js';
import { FakeElectron } from './test-support/fake-electron.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rideport-home-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function linux(env: Record<string, string | undefined> = {}): AutostartEnvironment {
  return { platform: 'linux', env, homeFolder: home, executable: '/opt/Rideport/rideport' };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe('autostart', () => {
  it('uses login items on macOS and Windows', async () => {
    const mac = new FakeElectron('darwin');
    await setStartAtLogin(true, mac.app, { ...linux(), platform: 'darwin' });
    await setStartAtLogin(false, mac.app, { ...linux(), platform: 'darwin' });
    expect(mac.loginItems).toEqual([
      { openAtLogin: true, openAsHidden: true },
      { openAtLogin: false, openAsHidden: true },
    ]);
    const windows = new FakeElectron('win32');
    await setStartAtLogin(true, windows.app, { ...linux(), platform: 'win32' });
    await setStartAtLogin(false, windows.app, { ...linux(), platform: 'win32' });
    expect(windows.loginItems).toEqual([
      { openAtLogin: true, args: ['--hidden'] },
      { openAtLogin: false, args: ['--hidden'] },
    ]);
    expect(await exists(join(home, '.config'))).toBe(false);
  });

  it('writes an XDG autostart entry pointing at the AppImage on Linux, and removes it', async () => {
    const electron = new FakeElectron('linux');
    const path = join(home, '.config', 'autostart', 'rideport.desktop');
    await setStartAtLogin(
      true,
      electron.app,
      linux({ APPIMAGE: '/home/rider/Apps/Rideport-0.1.0.AppImage' }),
    );
    const text = await readFile(path, 'utf8');
    expect(text).toContain('Exec=/home/rider/Apps/Rideport-0.1.0.AppImage --hidden\n');
    expect(text.startsWith('[Desktop Entry]\nType=Application\n')).toBe(true);
    expect(electron.loginItems).toEqual([]);
    await setStartAtLogin(false, electron.app, linux());
    expect(await exists(path)).toBe(false);
    await setStartAtLogin(false, electron.app, linux());
  });

  it('points at the executable without an AppImage, and honours XDG_CONFIG_HOME', async () => {
    const electron = new FakeElectron('linux');
    const config = join(home, 'cfg');
    await setStartAtLogin(true, electron.app, linux({ XDG_CONFIG_HOME: config }));
    expect(await readFile(join(config, 'autostart', 'rideport.desktop'), 'utf8')).toContain(
      'Exec=/opt/Rideport/rideport --hidden\n',
    );
  });

  it('quotes paths with spaces or special characters', () => {
    expect(quoteExecArgument('/opt/Rideport/rideport')).toBe('/opt/Rideport/rideport');
    expect(quoteExecArgument('/home/a b/Rideport.AppImage')).toBe('"/home/a b/Rideport.AppImage"');
    expect(quoteExecArgument('/x/$HOME"q')).toBe('"/x/\\$HOME\\"q"');
    expect(autostartDesktopEntry('/a b/r')).toContain('Exec="/a b/r" --hidden');
  });
});

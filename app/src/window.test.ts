import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { preloadArguments } from './ipc-channels.js';
import { dashboardWindow, settingsWindow } from './window.js';
import { FakeElectron } from './test-support/fake-electron.js';

const preload = '/opt/Rideport/resources/app.asar/dist/preload.cjs';
const settingsPage = join('/opt', 'Rideport', 'static', 'settings.html');

function dashboard(electron: FakeElectron): ReturnType<typeof dashboardWindow> {
  return dashboardWindow(electron, preload, () => ({
    origin: 'http://127.0.0.1:41234',
    trusted: true,
    entryUrl: () => Promise.resolve('http://127.0.0.1:41234/sign_in/link/one-time?next=%2F'),
  }));
}

describe('windows', () => {
  it('are isolated and sandboxed, with the preload bridge and its channel list', async () => {
    const electron = new FakeElectron();
    await dashboard(electron).show();
    await settingsWindow(electron, preload, settingsPage).show();
    for (const window of electron.windows) {
      expect(window.options.webPreferences).toEqual({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        preload,
        additionalArguments: preloadArguments(),
      });
      expect(window.options.show).toBe(false);
      expect(window.shown).toBe(1);
    }
  });

  it('loads the dashboard through the sign-in link, and reuses the open window', async () => {
    const electron = new FakeElectron();
    const window = dashboard(electron);
    await window.show();
    await window.show();
    expect(electron.windows).toHaveLength(1);
    expect(electron.windows[0]!.loaded).toEqual(['http://127.0.0.1:41234/sign_in/link/one-time?next=%2F']);
    expect(electron.windows[0]!.focused).toBe(2);
    electron.windows[0]!.close();
    await window.show();
    expect(electron.windows).toHaveLength(2);
  });

  it('keeps the dashboard on its origin and sends other links to the browser', async () => {
    const electron = new FakeElectron();
    await dashboard(electron).show();
    const window = electron.windows[0]!;
    expect(window.navigate('http://127.0.0.1:41234/rides/7')).toBe(true);
    expect(window.navigate('http://127.0.0.1:41235/')).toBe(false);
    expect(window.navigate('https://www.openstreetmap.org/copyright')).toBe(false);
    expect(window.navigate('file:///etc/passwd')).toBe(false);
    expect(window.navigate('https://evil.example.com/', 'will-redirect')).toBe(false);
    expect(window.navigate('javascript:alert(1)')).toBe(false);
    expect(window.openHandler?.({ url: 'https://example.com/help' })).toEqual({ action: 'deny' });
    expect(window.openHandler?.({ url: 'http://127.0.0.1:41234/rides' })).toEqual({ action: 'deny' });
    expect(electron.opened).toEqual([
      'http://127.0.0.1:41235/',
      'https://www.openstreetmap.org/copyright',
      'https://evil.example.com/',
      'https://example.com/help',
      'http://127.0.0.1:41234/rides',
    ]);
  });

  it('keeps the settings window on the settings page', async () => {
    const electron = new FakeElectron();
    await settingsWindow(electron, preload, settingsPage).show();
    const window = electron.windows[0]!;
    expect(window.loaded).toEqual([`file:${settingsPage}`]);
    expect(window.navigate(`${pathToFileURL(settingsPage).href}#folders`)).toBe(true);
    expect(window.navigate(pathToFileURL(join('/opt', 'Rideport', 'static', 'other.html')).href)).toBe(false);
    expect(window.navigate('http://127.0.0.1:41234/')).toBe(false);
  });

  it("gives a remote server's dashboard no bridge, but the same isolation", async () => {
    const electron = new FakeElectron();
    await dashboardWindow(electron, preload, () => ({
      origin: 'https://rides.example.com',
      trusted: false,
      entryUrl: () => Promise.resolve('https://rides.example.com/'),
    })).show();
    expect(electron.windows[0]!.options.webPreferences).toEqual({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect(electron.windows[0]!.navigate('https://rides.example.com/rides')).toBe(true);
  });

  it('fails to open the dashboard while no server runs', async () => {
    const electron = new FakeElectron();
    await expect(dashboardWindow(electron, preload, () => null).show()).rejects.toThrow(/not running/);
  });
});

import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { appFiles, DesktopApp } from './desktop-app.js';
import { CHANNEL_NAMES, ipcChannel, type SettingsView } from './ipc-channels.js';
import { FakeElectron, type FakeImage } from './test-support/fake-electron.js';
import { spawnRideport, type RideportChild } from '../../packages/cli/src/test-support/child.js';
import { buildCli } from '../../packages/cli/src/test-support/run.js';
import { snapshotDirectory } from '../../packages/server/src/test-support/directory-snapshot.js';

const appRoot = join(import.meta.dirname, '..');
const settingsUrl = pathToFileURL(appFiles(appRoot).settingsPage).href;
let root: string;
let electron: FakeElectron;
let desktop: DesktopApp;
const logged: string[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rideport-desktop-'));
  electron = new FakeElectron('linux', {
    userData: join(root, 'userData'),
    home: join(root, 'home'),
    exe: '/opt/Rideport/rideport',
  });
});
afterEach(async () => {
  await desktop.quit();
  await rm(root, { recursive: true, force: true });
});

function start(argv: string[] = ['--hidden']): Promise<boolean> {
  desktop = new DesktopApp({
    electron,
    appRoot,
    argv,
    env: { APPIMAGE: '/home/rider/Rideport.AppImage' },
    log: { info: (m) => logged.push(m), warn: (m) => logged.push(m) },
    deviceRoots: [],
  });
  return desktop.start();
}

async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > 20_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('DesktopApp', () => {
  it('starts the embedded server and engine, shows the tray, registers every channel, and autostarts', async () => {
    expect(await start()).toBe(true);
    expect(electron.calls).toEqual(['app.requestSingleInstanceLock']);
    expect(desktop.host?.serverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const tray = electron.trays[0]!;
    expect((tray.image as FakeImage).path).toBe(join(appRoot, 'static', 'tray', 'tray-idle.png'));
    expect(tray.tooltip.split('\n')[0]).toBe('Rideport');
    expect([...electron.handlers.keys()].sort()).toEqual(CHANNEL_NAMES.map(ipcChannel).sort());
    expect(electron.windows).toEqual([]);
    expect(await readFile(join(root, 'home', '.config', 'autostart', 'rideport.desktop'), 'utf8')).toContain(
      'Exec=/home/rider/Rideport.AppImage --hidden',
    );
  });

  it('opens the dashboard through the sign-in link (without --hidden and on a second launch)', async () => {
    await start([]);
    expect(electron.windows).toHaveLength(1);
    const loaded = electron.windows[0]!.loaded[0]!;
    expect(new URL(loaded).origin).toBe(desktop.host!.serverUrl);
    electron.windows[0]!.close();
    electron.emitApp('second-instance');
    await until(() => electron.windows.length === 2);
  });

  it('syncs now on wake from sleep and from the tray, and pauses from the tray', async () => {
    await start();
    const engine = desktop.host!.engine;
    const syncNow = vi.spyOn(engine, 'syncNow');
    for (const listener of electron.powerListeners) listener();
    expect(syncNow).toHaveBeenCalledTimes(1);
    electron.trays[0]!.item('Sync now').click?.();
    expect(syncNow).toHaveBeenCalledTimes(2);
    electron.trays[0]!.item('Pause syncing').click?.();
    await until(() => electron.trays[0]!.tooltip.includes('Paused'));
    expect(engine.status().state.kind).toBe('paused');
    expect((electron.trays[0]!.image as FakeImage).path).toMatch(/tray-paused\.png$/);
  });

  it('adds a folder from the tray, syncs it, and tells the new ride in a notification', async () => {
    await start();
    const rides = join(root, 'rides');
    await mkdir(rides);
    await copyFile(join(appRoot, '..', 'fixtures', 'gpx', 'sample-ride.gpx'), join(rides, 'ride.gpx'));
    electron.nextFolder = rides;
    electron.trays[0]!.item('Add folder…').click?.();
    await until(() => electron.notifications.length > 0);
    expect(electron.notifications[0]).toMatchObject({ title: 'New ride' });
    const saved = JSON.parse(await readFile(join(root, 'userData', 'settings.json'), 'utf8')) as {
      folders: string[];
    };
    expect(saved.folders).toEqual([rides]);
  });

  it('answers the settings page, refuses other senders, and saves settings', async () => {
    await start();
    const view = (await electron.invoke('rideport:getSettings', settingsUrl)) as SettingsView;
    expect(view.settings.server).toEqual({ mode: 'embedded' });
    expect(view.serverUrl).toBe(desktop.host!.serverUrl);
    expect(view.credentials.plainText).toBe(false);
    await expect(electron.invoke('rideport:getSettings', 'https://evil.example.com/')).rejects.toThrow(
      /refused/,
    );
    await expect(electron.invoke('rideport:saveSettings', settingsUrl, { folders: 'x' })).rejects.toThrow(
      /folders must be a list/,
    );
    const saved = (await electron.invoke('rideport:saveSettings', settingsUrl, {
      ...view.settings,
      notifications: false,
      startAtLogin: false,
    })) as SettingsView;
    expect(saved.settings.notifications).toBe(false);
    await expect(readFile(join(root, 'home', '.config', 'autostart', 'rideport.desktop'))).rejects.toThrow();
    // The embedded dashboard may steer the engine, not the settings.
    expect(await electron.invoke('rideport:syncStatus', `${desktop.host!.serverUrl}/`)).toMatchObject({
      state: { kind: 'idle' },
    });
  });

  it('in remote mode without a token: asks to sign in (tray and settings) and opens the settings', async () => {
    await mkdir(join(root, 'userData'), { recursive: true });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      join(root, 'userData', 'settings.json'),
      JSON.stringify({
        server: { mode: 'remote', url: 'https://rides.example.com', apiKey: 'k', email: 'a@example.com' },
      }),
    );
    electron.safeStorage.backend = 'basic_text';
    await start([]);
    expect(desktop.host).toBeNull();
    const tooltip = electron.trays[0]!.tooltip;
    expect(tooltip).toContain('Sign in to rides.example.com in Settings');
    expect(tooltip).toContain('Warning: credentials are stored as plain text');
    expect(electron.windows[0]!.loaded).toEqual([`file:${appFiles(appRoot).settingsPage}`]);
    const view = (await electron.invoke('rideport:getSettings', settingsUrl)) as SettingsView;
    expect(view.credentials).toMatchObject({ plainText: true, signedIn: false });
    expect(view.problems).toEqual(['Sign in to rides.example.com in Settings']);
  });

  it('quits after stopping the engine and the server', async () => {
    await start();
    const server = desktop.host!.server!;
    electron.trays[0]!.item('Quit Rideport').click?.();
    await until(() => electron.quitDone);
    expect(desktop.host).toBeNull();
    expect(electron.trays[0]!.destroyed).toBe(true);
    expect(electron.handlers.size).toBe(0);
    await expect(fetch(server.url)).rejects.toThrow();
  });

  it('a second instance quits at once', async () => {
    electron.singleInstanceLock = false;
    expect(await start()).toBe(false);
    expect(electron.trays).toEqual([]);
    expect(electron.quitCalls).toBe(1);
  });
});

describe('DesktopApp and `rideport up` on one data folder (issue 17: one server per data directory)', () => {
  beforeAll(buildCli, 120_000);
  let up: RideportChild | null = null;
  afterEach(async () => {
    up?.process.kill('SIGKILL');
    await up?.exited;
    up = null;
  });

  it('with `rideport up` serving its folder: says which process holds it, starts nothing, and starts once it is gone', async () => {
    const userData = join(root, 'userData');
    up = spawnRideport(['up', '--no-devices', '--port', '0', '--data', userData]);
    const url = await up.listening();
    const before = Object.keys(snapshotDirectory(userData));
    await start([]);
    expect(desktop.host).toBeNull();
    const problem = `Sync could not start: ${userData} is in use by process ${up.process.pid!} (rideport up, listening on ${url}, since `;
    expect(electron.trays[0]!.tooltip).toContain(problem);
    expect(electron.trays[0]!.tooltip).toContain(
      `To stop that one, press Ctrl-C where it runs, or run \`kill ${up.process.pid!}\`.`,
    );
    const view = (await electron.invoke('rideport:getSettings', settingsUrl)) as SettingsView;
    expect(view.problems).toEqual([expect.stringContaining(problem)]);
    expect(electron.windows[0]!.loaded).toEqual([`file:${appFiles(appRoot).settingsPage}`]);
    // Nothing of the app's engine or server was opened: not one new file (the running `up` keeps
    // writing to its own, so their bytes are not compared).
    expect(Object.keys(snapshotDirectory(userData))).toEqual(before);

    up.process.kill('SIGTERM');
    expect(await up.exited).toBe(0);
    await electron.invoke('rideport:saveSettings', settingsUrl, view.settings);
    expect(desktop.host?.serverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('while the app serves its folder, `rideport up` on it exits 1 naming the app', async () => {
    await start();
    const userData = join(root, 'userData');
    up = spawnRideport(['up', '--no-devices', '--port', '0', '--data', userData]);
    expect(await up.exited).toBe(1);
    expect(up.output()).toMatch(
      new RegExp(
        `^rideport: up: SERVER_DATA_DIRECTORY_IN_USE: ${userData} is in use by process ${process.pid} \\(the Rideport desktop app, listening on ${desktop.host!.serverUrl.replaceAll('.', '\\.')}, since [\\dT:Z-]+\\): only one Rideport server runs on a data directory at a time\\. To stop that one, choose Quit Rideport in its tray menu\\.\\n$`,
      ),
    );
    // The app's server goes on serving.
    expect((await fetch(`${desktop.host!.serverUrl}/api/v1/openapi.json`)).status).toBe(200);
  });
});

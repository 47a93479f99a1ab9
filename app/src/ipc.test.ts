import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHANNEL_NAMES, ipcChannel } from './ipc-channels.js';
import { IpcRefused, registerIpc, senderAllowed, type IpcHandlers, type SenderPolicy } from './ipc.js';
import { FakeElectron } from './test-support/fake-electron.js';

const settingsPagePath = join('/opt', 'Rideport', 'static', 'settings.html');
const settingsUrl = pathToFileURL(settingsPagePath).href;
const policy: SenderPolicy = { settingsPagePath, dashboardOrigin: () => 'http://127.0.0.1:41234' };

function handlers(calls: string[]): IpcHandlers {
  const record =
    <T>(name: string, answer: T) =>
    (request: unknown): Promise<T> => {
      calls.push(`${name}${request === undefined ? '' : ` ${JSON.stringify(request)}`}`);
      return Promise.resolve(answer);
    };
  const view = {
    settings: {} as never,
    problems: [],
    credentials: { plainText: false, reason: null, signedIn: false },
    dataFolder: '/data',
    serverUrl: null,
  };
  return {
    getSettings: record('getSettings', view),
    saveSettings: record('saveSettings', view),
    addFolder: record('addFolder', view),
    removeFolder: record('removeFolder', view),
    signIn: record('signIn', { ok: false as const, message: 'no' }),
    signOut: record('signOut', view),
    openDashboard: record('openDashboard', null),
    syncStatus: record('syncStatus', null),
    syncNow: record('syncNow', null),
    pause: record('pause', null),
    resume: record('resume', null),
    chooseImport: record('chooseImport', true),
  };
}

function setUp(): { electron: FakeElectron; calls: string[]; warnings: string[]; unregister: () => void } {
  const electron = new FakeElectron();
  const calls: string[] = [];
  const warnings: string[] = [];
  const unregister = registerIpc(electron.ipcMain, handlers(calls), policy, {
    warn: (m) => warnings.push(m),
  });
  return { electron, calls, warnings, unregister };
}

describe('registerIpc', () => {
  it('registers exactly the channels of the list, and removes them', () => {
    const { electron, unregister } = setUp();
    expect([...electron.handlers.keys()].sort()).toEqual(CHANNEL_NAMES.map(ipcChannel).sort());
    unregister();
    expect(electron.handlers.size).toBe(0);
  });

  it('answers the settings page on every channel, and the embedded dashboard on app channels', async () => {
    const { electron, calls } = setUp();
    await electron.invoke('rideport:getSettings', settingsUrl);
    await electron.invoke('rideport:syncNow', 'http://127.0.0.1:41234/rides?page=2');
    await electron.invoke('rideport:chooseImport', settingsUrl, {
      sourceId: 'device:x',
      window: { kind: 'days', days: 30 },
    });
    expect(calls).toEqual([
      'getSettings',
      'syncNow',
      'chooseImport {"sourceId":"device:x","window":{"kind":"days","days":30}}',
    ]);
  });

  it('refuses and logs a message from a foreign origin, before parsing it', async () => {
    const { electron, calls, warnings } = setUp();
    for (const [channel, sender] of [
      ['rideport:syncNow', 'https://evil.example.com/'],
      ['rideport:syncNow', 'http://127.0.0.1:9999/'],
      ['rideport:syncNow', 'http://localhost:41234/'],
      ['rideport:getSettings', 'http://127.0.0.1:41234/'],
      ['rideport:signIn', 'http://127.0.0.1:41234/developer'],
      ['rideport:getSettings', 'file:///tmp/other.html'],
      ['rideport:getSettings', 'data:text/html,hi'],
      ['rideport:getSettings', null],
    ] as const) {
      await expect(electron.invoke(channel, sender, { anything: true })).rejects.toBeInstanceOf(IpcRefused);
    }
    expect(calls).toEqual([]);
    expect(warnings).toHaveLength(8);
    expect(warnings[0]).toBe('ipc: refused syncNow from https://evil.example.com/');
  });

  it('refuses dashboard messages when there is no embedded dashboard (remote mode)', async () => {
    const electron = new FakeElectron();
    registerIpc(
      electron.ipcMain,
      handlers([]),
      { settingsPagePath, dashboardOrigin: () => null },
      { warn: () => undefined },
    );
    await expect(electron.invoke('rideport:syncStatus', 'https://rides.example.com/')).rejects.toBeInstanceOf(
      IpcRefused,
    );
  });

  it('checks the request of a trusted sender too', async () => {
    const { electron, calls } = setUp();
    await expect(electron.invoke('rideport:signIn', settingsUrl, { url: 'https://x' })).rejects.toThrow(
      /apiKey/,
    );
    await expect(
      electron.invoke('rideport:chooseImport', settingsUrl, {
        sourceId: 'x',
        window: { kind: 'days', days: -1 },
      }),
    ).rejects.toThrow(/window/);
    await expect(electron.invoke('rideport:syncNow', settingsUrl, 'surprise')).rejects.toThrow(/no request/);
    expect(calls).toEqual([]);
  });
});

describe('senderAllowed', () => {
  it('compares the settings page by path, ignoring query and fragment', () => {
    expect(senderAllowed(`${settingsUrl}#folders`, 'settings', policy)).toBe(true);
    expect(senderAllowed('not a url', 'app', policy)).toBe(false);
  });
});

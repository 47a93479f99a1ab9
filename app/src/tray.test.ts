import type { SyncStatus } from '@rideport/sync';
import { describe, expect, it } from 'vitest';
import { chooseFolder, runTrayAction, TrayController, type TrayActionTargets } from './tray.js';
import { trayModel, type TrayAction } from './tray-state.js';
import { FakeElectron, type FakeImage } from './test-support/fake-electron.js';

function status(state: SyncStatus['state']): SyncStatus {
  return {
    state,
    sources: [],
    removedSources: [],
    counts: { found: 0, waiting: 0, queued: 0, uploading: 0, synced: 0, failed: 0 },
    waitingFiles: [],
    copies: [],
    recent: [],
    lastPassAt: null,
  };
}

describe('TrayController', () => {
  it('applies the model to the tray: image per state, tooltip, and a menu whose clicks become actions', () => {
    const electron = new FakeElectron();
    const clicked: TrayAction[] = [];
    const tray = new TrayController(electron, '/icons', (action) => clicked.push(action));
    tray.show(trayModel({ status: status({ kind: 'idle' }), plainTextCredentials: false, problem: null }));
    const fake = electron.trays[0]!;
    expect((fake.image as FakeImage).path).toBe('/icons/tray-idle.png');
    expect(fake.tooltip).toBe('Rideport\nUp to date (0 rides synced)');
    expect(fake.menu?.template.map((item) => item.label ?? '—')).toEqual([
      'Up to date (0 rides synced)',
      '—',
      'Open dashboard',
      'Sync now',
      'Pause syncing',
      'Add folder…',
      'Settings…',
      '—',
      'Quit Rideport',
    ]);
    expect(fake.item('Up to date (0 rides synced)').enabled).toBe(false);
    fake.item('Sync now').click?.();
    fake.item('Quit Rideport').click?.();
    expect(clicked).toEqual(['sync-now', 'quit']);

    tray.show(trayModel({ status: status({ kind: 'paused' }), plainTextCredentials: false, problem: null }));
    expect(electron.trays).toHaveLength(1);
    expect((fake.image as FakeImage).path).toBe('/icons/tray-paused.png');
    fake.item('Resume syncing').click?.();
    expect(clicked).toEqual(['sync-now', 'quit', 'resume']);
  });

  it('does not rebuild the menu when nothing changed, and destroys the tray', () => {
    const electron = new FakeElectron();
    const tray = new TrayController(electron, '/icons', () => undefined);
    const model = trayModel({ status: status({ kind: 'idle' }), plainTextCredentials: false, problem: null });
    tray.show(model);
    const menu = electron.trays[0]!.menu;
    tray.show(model);
    expect(electron.trays[0]!.menu).toBe(menu);
    tray.destroy();
    expect(electron.trays[0]!.destroyed).toBe(true);
  });
});

describe('runTrayAction', () => {
  function targets(log: string[]): TrayActionTargets {
    return {
      engine: {
        syncNow: () => log.push('engine.syncNow'),
        pause: () => log.push('engine.pause'),
        resume: () => log.push('engine.resume'),
      },
      openDashboard: () => Promise.resolve(void log.push('openDashboard')),
      openSettings: () => Promise.resolve(void log.push('openSettings')),
      addFolder: () => Promise.resolve(void log.push('addFolder')),
      quit: () => log.push('quit'),
    };
  }

  it('calls the engine and the windows', async () => {
    const log: string[] = [];
    for (const action of [
      'sync-now',
      'pause',
      'resume',
      'open-dashboard',
      'settings',
      'add-folder',
      'quit',
    ] as const) {
      await runTrayAction(action, targets(log));
    }
    expect(log).toEqual([
      'engine.syncNow',
      'engine.pause',
      'engine.resume',
      'openDashboard',
      'openSettings',
      'addFolder',
      'quit',
    ]);
  });

  it('does nothing to an engine that is not running', async () => {
    const log: string[] = [];
    await runTrayAction('sync-now', { ...targets(log), engine: null });
    expect(log).toEqual([]);
  });
});

describe('chooseFolder', () => {
  it('gives the chosen folder, or null when cancelled', async () => {
    const electron = new FakeElectron();
    expect(await chooseFolder(electron.dialog)).toBeNull();
    electron.nextFolder = '/home/rider/Rides';
    expect(await chooseFolder(electron.dialog)).toBe('/home/rider/Rides');
  });
});

import type { SourceStatus, SyncState, SyncStatus } from '@rideport/sync';
import { describe, expect, it } from 'vitest';
import { trayModel, type TrayContext, type TrayMenuEntry } from './tray-state.js';

function status(state: SyncState, extra: Partial<SyncStatus> = {}): SyncStatus {
  return {
    state,
    sources: [],
    removedSources: [],
    counts: { found: 12, waiting: 0, queued: 0, uploading: 0, synced: 12, failed: 0 },
    waitingFiles: [],
    copies: [],
    recent: [],
    lastPassAt: '2026-11-23T07:00:00.000Z',
    ...extra,
  };
}

function context(syncStatus: SyncStatus | null, extra: Partial<TrayContext> = {}): TrayContext {
  return { status: syncStatus, plainTextCredentials: false, problem: null, ...extra };
}

function actions(menu: TrayMenuEntry[]): string[] {
  return menu.flatMap((entry) =>
    entry.kind === 'action' ? [`${entry.action}${entry.enabled ? '' : ' (disabled)'}`] : [],
  );
}

const garmin: SourceStatus = {
  id: 'device:garmin',
  kind: 'device',
  label: 'Garmin Edge 540',
  path: '/media/rider/GARMIN',
  present: true,
  awaitingImportChoice: true,
};

describe('trayModel', () => {
  it('idle: up to date, with the whole menu', () => {
    const model = trayModel(context(status({ kind: 'idle' })));
    expect(model.icon).toBe('idle');
    expect(model.tooltip).toBe('Rideport\nUp to date (12 rides synced)');
    expect(actions(model.menu)).toEqual([
      'open-dashboard',
      'sync-now',
      'pause',
      'add-folder',
      'settings',
      'quit',
    ]);
    expect(model.menu[0]).toEqual({ kind: 'label', label: 'Up to date (12 rides synced)' });
  });

  it('syncing n of m', () => {
    const model = trayModel(context(status({ kind: 'syncing', done: 3, total: 10 })));
    expect(model.icon).toBe('syncing');
    expect(model.tooltip).toBe('Rideport\nSyncing 3 of 10');
  });

  it('needs attention: sign-in', () => {
    const model = trayModel(context(status({ kind: 'needs-sign-in', message: 'token refused' })));
    expect(model.icon).toBe('attention');
    expect(model.tooltip).toBe('Rideport\nNeeds sign-in\nNeeds sign-in: token refused');
  });

  it('needs attention: failed rides, and sources awaiting the import choice', () => {
    const failed = status(
      { kind: 'idle' },
      { counts: { found: 3, waiting: 0, queued: 0, uploading: 0, synced: 1, failed: 2 }, sources: [garmin] },
    );
    const model = trayModel(context(failed));
    expect(model.icon).toBe('attention');
    expect(model.tooltip).toBe(
      'Rideport\nNeeds attention\n2 rides failed\nGarmin Edge 540: choose how far back to import',
    );
    expect(model.menu).toContainEqual({ kind: 'label', label: '2 rides failed' });
  });

  it('paused: the menu offers resume instead of pause, and no sync now', () => {
    const model = trayModel(context(status({ kind: 'paused' })));
    expect(model.icon).toBe('paused');
    expect(model.tooltip).toBe('Rideport\nPaused');
    expect(actions(model.menu)).toEqual([
      'open-dashboard',
      'sync-now (disabled)',
      'resume',
      'add-folder',
      'settings',
      'quit',
    ]);
  });

  it('offline', () => {
    const model = trayModel(context(status({ kind: 'offline', message: 'ECONNREFUSED', retryAtMs: 0 })));
    expect(model.icon).toBe('offline');
    expect(model.tooltip).toBe('Rideport\nOffline: ECONNREFUSED');
  });

  it("the server's disk is full: attention, saying why", () => {
    const full = "the server's disk is full; try again later";
    const model = trayModel(context(status({ kind: 'server-full', message: full, retryAtMs: 0 })));
    expect(model.icon).toBe('attention');
    expect(model.tooltip).toContain('Server disk full: rides wait');
    expect(model.tooltip).toContain(`Server disk full: ${full}`);
    const here = "this computer's disk is full: the sync engine cannot write to /data";
    const local = trayModel(context(status({ kind: 'disk-full', message: here, retryAtMs: 0 })));
    expect(local.icon).toBe('attention');
    expect(local.tooltip).toContain(`Disk full: ${here}`);
  });

  it('shows the plain-text warning in the tooltip and the menu, whatever the state', () => {
    const model = trayModel(
      context(status({ kind: 'syncing', done: 0, total: 1 }), { plainTextCredentials: true }),
    );
    expect(model.icon).toBe('syncing');
    expect(model.tooltip).toBe('Rideport\nSyncing 0 of 1\nWarning: credentials are stored as plain text');
    expect(model.menu).toContainEqual({
      kind: 'label',
      label: 'Warning: credentials are stored as plain text',
    });
  });

  it('before the engine runs: starting, or the problem that stops it, with engine actions disabled', () => {
    expect(trayModel(context(null)).tooltip).toBe('Rideport\nStarting…');
    const model = trayModel(context(null, { problem: 'Sign in to rides.example.com in Settings' }));
    expect(model.icon).toBe('attention');
    expect(model.tooltip).toBe('Rideport\nNeeds attention\nSign in to rides.example.com in Settings');
    expect(actions(model.menu)).toEqual([
      'open-dashboard',
      'sync-now (disabled)',
      'pause (disabled)',
      'add-folder (disabled)',
      'settings',
      'quit',
    ]);
  });
});

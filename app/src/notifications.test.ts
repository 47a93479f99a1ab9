import type { RideHistoryEntry, SyncState, SyncStatus } from '@rideport/sync';
import { describe, expect, it } from 'vitest';
import {
  diffStatus,
  messagesFor,
  nativeNotifications,
  StatusNotifier,
  type NotificationMessage,
} from './notifications.js';

function ride(
  sha: string,
  state: RideHistoryEntry['state'],
  message: string | null = null,
): RideHistoryEntry {
  return {
    sha256: sha,
    filename: `${sha}.fit`,
    sourceId: 'folder:x',
    relativePath: `${sha}.fit`,
    state,
    message,
    errorCode: null,
    tripIds: [],
    routeIds: [],
    duplicate: false,
    attempts: 1,
    foundAt: '2026-11-23T07:00:00.000Z',
    updatedAt: '2026-11-23T07:00:00.000Z',
  };
}

function status(
  state: SyncState,
  recent: RideHistoryEntry[],
  synced = recent.filter((r) => r.state === 'synced').length,
): SyncStatus {
  return {
    state,
    sources: [],
    removedSources: [],
    counts: { found: recent.length, waiting: 0, queued: 0, uploading: 0, synced, failed: 0 },
    waitingFiles: [],
    copies: [],
    recent,
    lastPassAt: null,
  };
}

const idle: SyncState = { kind: 'idle' };

describe('diffStatus', () => {
  it('sees nothing new in the first status (the history from before the app started)', () => {
    expect(diffStatus(null, status(idle, [ride('a', 'synced')])).synced).toEqual([]);
  });

  it('finds rides that became synced or failed, and the turn to needs-sign-in', () => {
    const before = status(idle, [ride('a', 'queued'), ride('b', 'uploading'), ride('c', 'synced')]);
    const after = status({ kind: 'needs-sign-in', message: '401' }, [
      ride('a', 'synced'),
      ride('b', 'failed', 'Not a ride file'),
      ride('c', 'synced'),
      ride('d', 'synced'),
    ]);
    const changes = diffStatus(before, after);
    expect(changes.synced.map((entry) => entry.sha256)).toEqual(['a', 'd']);
    expect(changes.failed.map((entry) => entry.sha256)).toEqual(['b']);
    expect(changes.syncedUnlisted).toBe(0);
    expect(changes.signInNeeded).toBe('401');
  });

  it('counts synced rides that fell out of the recent list', () => {
    const changes = diffStatus(status(idle, [], 10), status(idle, [ride('z', 'synced')], 60));
    expect(changes.synced).toHaveLength(1);
    expect(changes.syncedUnlisted).toBe(49);
  });
});

describe('messagesFor', () => {
  it('names a single new ride with the server message, and summarises many', () => {
    expect(
      messagesFor({
        synced: [ride('a', 'synced', 'Created 1 ride')],
        syncedUnlisted: 0,
        failed: [],
        signInNeeded: null,
      }),
    ).toEqual([{ kind: 'new-ride', title: 'New ride', body: 'a.fit is synced: Created 1 ride' }]);
    expect(
      messagesFor({ synced: [ride('a', 'synced')], syncedUnlisted: 41, failed: [], signInNeeded: null }),
    ).toEqual([{ kind: 'new-rides', title: '42 new rides', body: '42 rides are synced' }]);
  });

  it('says a ride the server had already is already there, not new (issue 16)', () => {
    const duplicate = { ...ride('a', 'synced', 'Already on the platform as Morning Ride'), duplicate: true };
    expect(messagesFor({ synced: [duplicate], syncedUnlisted: 0, failed: [], signInNeeded: null })).toEqual([
      {
        kind: 'new-ride',
        title: 'Ride already on the platform',
        body: 'a.fit is synced: Already on the platform as Morning Ride',
      },
    ]);
  });

  it('tells failures with the server message', () => {
    expect(
      messagesFor({
        synced: [],
        syncedUnlisted: 0,
        failed: [ride('b', 'failed', 'Could not read the file: the file is empty')],
        signInNeeded: null,
      }),
    ).toEqual([
      {
        kind: 'failed',
        title: 'A ride could not be synced',
        body: 'b.fit: Could not read the file: the file is empty',
      },
    ]);
  });
});

describe('StatusNotifier', () => {
  function makeNotifier(enabled = true): {
    shown: NotificationMessage[];
    timers: (() => void)[];
    notifier: StatusNotifier;
  } {
    const shown: NotificationMessage[] = [];
    const timers: (() => void)[] = [];
    return {
      shown,
      timers,
      notifier: new StatusNotifier({
        show: (message) => shown.push(message),
        enabled: () => enabled,
        setTimer: (callback) => timers.push(callback),
        clearTimer: () => undefined,
      }),
    };
  }

  it('tells a single new ride once the batch ends', () => {
    const { shown, notifier } = makeNotifier();
    notifier.update(status(idle, []));
    notifier.update(status({ kind: 'syncing', done: 0, total: 1 }, [ride('a', 'uploading')]));
    expect(shown).toEqual([]);
    notifier.update(status(idle, [ride('a', 'synced')]));
    expect(shown.map((message) => message.title)).toEqual(['New ride']);
    notifier.update(status(idle, [ride('a', 'synced')]));
    expect(shown).toHaveLength(1);
  });

  it('batches a bulk import into one summary notification', () => {
    const { shown, notifier } = makeNotifier();
    notifier.update(status(idle, []));
    const done: RideHistoryEntry[] = [];
    for (let index = 0; index < 30; index++) {
      done.unshift(ride(`r${index}`, 'synced'));
      notifier.update(status({ kind: 'syncing', done: index + 1, total: 30 }, [...done]));
    }
    expect(shown).toEqual([]);
    notifier.update(status(idle, [...done]));
    expect(shown).toEqual([{ kind: 'new-rides', title: '30 new rides', body: '30 rides are synced' }]);
  });

  it('tells what was held when a long batch reaches the hold time', () => {
    const { shown, timers, notifier } = makeNotifier();
    notifier.update(status(idle, []));
    notifier.update(
      status({ kind: 'syncing', done: 1, total: 500 }, [ride('a', 'synced'), ride('b', 'failed', 'bad')]),
    );
    expect(timers).toHaveLength(1);
    timers[0]!();
    expect(shown.map((message) => message.kind)).toEqual(['new-ride', 'failed']);
  });

  it('takes a new baseline after reset (a new engine, another ledger)', () => {
    const { shown, notifier } = makeNotifier();
    notifier.update(status(idle, []));
    notifier.reset();
    notifier.update(status(idle, [ride('old', 'synced')], 40));
    expect(shown).toEqual([]);
  });

  it('shows nothing when notifications are off', () => {
    const { shown, notifier } = makeNotifier(false);
    notifier.update(status(idle, []));
    notifier.update(status(idle, [ride('a', 'synced')]));
    expect(shown).toEqual([]);
  });
});

describe('nativeNotifications', () => {
  it('shows a native notification that opens the dashboard when clicked, and nothing where unsupported', async () => {
    const { FakeElectron } = await import('./test-support/fake-electron.js');
    const electron = new FakeElectron();
    let opened = 0;
    const show = nativeNotifications(electron, () => opened++);
    show({ kind: 'new-ride', title: 'New ride', body: 'a.fit is synced' });
    expect(electron.notifications).toMatchObject([{ title: 'New ride', body: 'a.fit is synced' }]);
    electron.notifications[0]!.clickListeners[0]!();
    expect(opened).toBe(1);
    electron.notificationsSupported = false;
    show({ kind: 'new-ride', title: 'New ride', body: 'b.fit is synced' });
    expect(electron.notifications).toHaveLength(1);
  });
});

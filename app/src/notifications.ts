/**
 * Native notifications (issue 7: "native notifications for new rides and failures"). Diffs each sync
 * status against the one before: rides that became synced are new rides, rides that became failed are
 * failures, and the engine turning to "needs sign-in" is a failure too. A bulk import (the first sync
 * of a device with years of rides) must not raise hundreds of notifications, so everything that
 * happens during one batch of uploads is held and told in one notification when the batch ends.
 */
import type { RideHistoryEntry, SyncStatus } from '@rideport/sync';
import type { ElectronApi } from './electron-api.js';

export interface NotificationMessage {
  kind: 'new-ride' | 'new-rides' | 'failed' | 'needs-sign-in';
  title: string;
  body: string;
}

export interface StatusChanges {
  synced: RideHistoryEntry[];
  /** rides synced beyond those in `synced` (the status lists only the most recent ones) */
  syncedUnlisted: number;
  failed: RideHistoryEntry[];
  signInNeeded: string | null;
}

/** What changed from `before` to `after`; before === null is the first status seen: nothing is new. */
export function diffStatus(before: SyncStatus | null, after: SyncStatus): StatusChanges {
  if (before === null) return { synced: [], syncedUnlisted: 0, failed: [], signInNeeded: null };
  const previous = new Map(before.recent.map((entry) => [entry.sha256, entry.state]));
  const became = (state: RideHistoryEntry['state']): RideHistoryEntry[] =>
    after.recent.filter((entry) => entry.state === state && previous.get(entry.sha256) !== state);
  const synced = became('synced');
  const countDelta = after.counts.synced - before.counts.synced;
  return {
    synced,
    syncedUnlisted: Math.max(0, countDelta - synced.length),
    failed: became('failed'),
    signInNeeded:
      after.state.kind === 'needs-sign-in' && before.state.kind !== 'needs-sign-in'
        ? after.state.message
        : null,
  };
}

function rideName(entry: RideHistoryEntry): string {
  return entry.filename;
}

/** The notifications for changes gathered over one batch. */
export function messagesFor(changes: StatusChanges): NotificationMessage[] {
  const messages: NotificationMessage[] = [];
  const syncedCount = changes.synced.length + changes.syncedUnlisted;
  const onlyRide = changes.synced[0];
  if (syncedCount === 1 && onlyRide !== undefined) {
    messages.push({
      kind: 'new-ride',
      // issue 16: the same recording in other bytes is synced as the ride the server had already.
      title: onlyRide.duplicate ? 'Ride already on the platform' : 'New ride',
      body: `${rideName(onlyRide)} is synced${onlyRide.message === null ? '' : `: ${onlyRide.message}`}`,
    });
  } else if (syncedCount > 0) {
    messages.push({
      kind: 'new-rides',
      title: `${syncedCount} new rides`,
      body: `${syncedCount} rides are synced`,
    });
  }
  const onlyFailure = changes.failed[0];
  if (changes.failed.length === 1 && onlyFailure !== undefined) {
    messages.push({
      kind: 'failed',
      title: 'A ride could not be synced',
      body: `${rideName(onlyFailure)}: ${onlyFailure.message ?? 'the server refused it'}`,
    });
  } else if (changes.failed.length > 1) {
    messages.push({
      kind: 'failed',
      title: `${changes.failed.length} rides could not be synced`,
      body: 'Open the dashboard to see why and retry them',
    });
  }
  if (changes.signInNeeded !== null) {
    messages.push({
      kind: 'needs-sign-in',
      title: 'Rideport needs you to sign in',
      body: `Uploads wait until you sign in again (${changes.signInNeeded}); rides are still collected.`,
    });
  }
  return messages;
}

function merge(a: StatusChanges, b: StatusChanges): StatusChanges {
  const synced = [
    ...a.synced,
    ...b.synced.filter((entry) => !a.synced.some((seen) => seen.sha256 === entry.sha256)),
  ];
  const failed = [
    ...a.failed,
    ...b.failed.filter((entry) => !a.failed.some((seen) => seen.sha256 === entry.sha256)),
  ];
  return {
    synced,
    syncedUnlisted: a.syncedUnlisted + b.syncedUnlisted,
    failed,
    signInNeeded: b.signInNeeded ?? a.signInNeeded,
  };
}

export interface NotifierOptions {
  show(message: NotificationMessage): void;
  /** notifications on (settings) */
  enabled(): boolean;
  /** while a batch runs, changes are held at most this long before they are told, ms */
  maxHoldMs?: number;
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/**
 * Feed it every status (engine.onChange); it shows one notification per kind per batch: during
 * "syncing" changes are held, and told when the batch ends (or after `maxHoldMs`, for a long import).
 */
export class StatusNotifier {
  #last: SyncStatus | null = null;
  #pending: StatusChanges = { synced: [], syncedUnlisted: 0, failed: [], signInNeeded: null };
  #timer: unknown = null;
  readonly #options: Required<NotifierOptions>;

  constructor(options: NotifierOptions) {
    this.#options = {
      maxHoldMs: 60_000,
      setTimer: (callback, ms) => setTimeout(callback, ms),
      clearTimer: (timer) => {
        clearTimeout(timer as NodeJS.Timeout);
      },
      ...options,
    };
  }

  update(status: SyncStatus): void {
    this.#pending = merge(this.#pending, diffStatus(this.#last, status));
    this.#last = status;
    if (status.state.kind === 'syncing') {
      this.#timer ??= this.#options.setTimer(() => {
        this.#timer = null;
        this.flush();
      }, this.#options.maxHoldMs);
      return;
    }
    this.flush();
  }

  /** Tells what is held now. */
  flush(): void {
    if (this.#timer !== null) {
      this.#options.clearTimer(this.#timer);
      this.#timer = null;
    }
    const pending = this.#pending;
    this.#pending = { synced: [], syncedUnlisted: 0, failed: [], signInNeeded: null };
    if (!this.#options.enabled()) return;
    for (const message of messagesFor(pending)) this.#options.show(message);
  }

  /**
   * Forgets the last status: the next one is a new baseline. For a new engine (another server has
   * another ledger, whose history is not news).
   */
  reset(): void {
    this.stop();
    this.#last = null;
    this.#pending = { synced: [], syncedUnlisted: 0, failed: [], signInNeeded: null };
  }

  stop(): void {
    if (this.#timer !== null) this.#options.clearTimer(this.#timer);
    this.#timer = null;
  }
}

/** Shows messages as native notifications; clicking one runs `onClick` (the dashboard opens). */
export function nativeNotifications(
  electron: Pick<ElectronApi, 'createNotification'>,
  onClick: () => void,
): (message: NotificationMessage) => void {
  return (message) => {
    const notification = electron.createNotification({ title: message.title, body: message.body });
    if (notification === null) return;
    notification.on('click', onClick);
    notification.show();
  };
}

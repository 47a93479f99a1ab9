/**
 * The sync engine (docs/contributors/architecture.md, "Sync engine"; issue 6): a reconciler, not a watcher. Every trigger (a
 * device appears, a watcher's hint, a timer, wake from sleep, "sync now") leads to one pass: list each
 * source, diff against the ledger, copy each new complete file into the inbox; uploads then run from
 * the inbox, a few at a time, and each outcome is recorded. Passes never overlap: a trigger during a
 * pass asks for one more pass after it.
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { backoffDelayMs } from '@rideport/client';
import { collectSource } from './collector.js';
import { detectDevices, type DetectedDevice, type MountRoot } from './devices.js';
import { isDiskFull } from '@rideport/files';
import { FolderWatch } from './folder-watch.js';
import { Inbox } from './inbox.js';
import { Ledger, type RideRow, type SourceRow } from './ledger.js';
import {
  importAfterMs,
  type ImportWindow,
  type RideHistoryEntry,
  type SourceStatus,
  type SyncState,
  type SyncStatus,
} from './status.js';
import { uploadRide, type RideUploader, type UploadVerdict } from './upload.js';

export interface SyncEngineOptions {
  /** the ledger's SQLite file (':memory:' only for tests that need no restart) */
  ledgerPath: string;
  /** where complete files are copied before they are uploaded */
  inboxFolder: string;
  uploader: RideUploader;
  /** folders to sync, added as sources if they are new */
  folders?: readonly string[];
  /** mount roots to look for GPS devices in (devices.ts defaultMountRoots); none: no device detection */
  deviceRoots?: readonly MountRoot[];
  /** how far back a new source's first sync goes; without it, new sources wait for chooseImport() */
  firstImport?: ImportWindow | undefined;
  /** uploads at once (default 3: the server parses on one worker per core, and one upload can be in transit) */
  uploadConcurrency?: number;
  /** a full pass this often even without any hint (default 60 s; MTP devices raise no change events) */
  fullPassIntervalMs?: number;
  /** how often to look whether sources came or went, cheaply (default 2 s) */
  presenceIntervalMs?: number;
  /** a full pass this often while an MTP device is present (default 10 s): MTP raises no file events */
  mtpPassIntervalMs?: number;
  /** look again at files that were not whole this soon (default 2 s) */
  waitingRecheckMs?: number;
  /** take a file that stays incomplete and unchanged this long anyway (default 2 minutes) */
  incompleteGraceMs?: number;
  /** use file-system events as hints (default true) */
  watch?: boolean;
  /** history entries in the status (default 50) */
  historyLimit?: number;
  nowMs?: () => number;
}

interface ResolvedSource {
  row: SourceRow;
  folders: string[];
}

interface PendingSource {
  id: string;
  kind: 'folder' | 'device';
  path: string;
  label: string;
}

/** the longest wait between tries while the server is offline or its disk is full */
const HELD_BACKOFF_MAX_MS = 300_000;
/** Waiting files the status lists by name; the count covers them all. */
const WAITING_FILES_SHOWN = 50;

export function folderSourceId(path: string): string {
  return `folder:${resolve(path)}`;
}

export class SyncEngine {
  readonly #options: Required<Omit<SyncEngineOptions, 'firstImport' | 'folders' | 'deviceRoots'>> & {
    firstImport: ImportWindow | undefined;
    deviceRoots: readonly MountRoot[];
  };
  readonly #ledger: Ledger;
  readonly #inbox: Inbox;
  readonly #listeners = new Set<(status: SyncStatus) => void>();
  /** sources waiting for "how far back to import", by id */
  readonly #pending = new Map<string, PendingSource>();
  /** the devices found by the last detection, by source id */
  #devices = new Map<string, DetectedDevice>();
  readonly #present = new Map<string, boolean>();
  readonly #inFlight = new Set<string>();
  #uploaders = 0;
  #batch: { done: number } | null = null;
  #paused = false;
  #signIn: { message: string } | null = null;
  /**
   * uploads wait: the server cannot be reached, or its disk is full, or this computer's is (issue 17:
   * the engine cannot write its ledger or inbox)
   */
  #held: {
    cause: 'offline' | 'server-full' | 'disk-full';
    message: string;
    retryAtMs: number;
    attempts: number;
  } | null = null;
  #lastPassAtMs: number | null = null;
  #passing: Promise<void> | null = null;
  #passAgain = false;
  #running = false;
  #stopping = false;
  #abort = new AbortController();
  readonly #timers = new Set<NodeJS.Timeout>();
  #watcher: FolderWatch | null = null;
  #watchedFolders = '';
  #hintTimer: NodeJS.Timeout | null = null;
  #emitQueued = false;
  /**
   * Byte-identical copies of rides found since the start, newest first, at most `historyLimit`
   * (issue 35); what became of their rides is looked up when the status is made.
   */
  #copies: { sourceId: string; relativePath: string; sha256: string; foundAtMs: number }[] = [];

  constructor(options: SyncEngineOptions) {
    this.#options = {
      ledgerPath: options.ledgerPath,
      inboxFolder: options.inboxFolder,
      uploader: options.uploader,
      deviceRoots: options.deviceRoots ?? [],
      firstImport: options.firstImport,
      uploadConcurrency: options.uploadConcurrency ?? 3,
      fullPassIntervalMs: options.fullPassIntervalMs ?? 60_000,
      presenceIntervalMs: options.presenceIntervalMs ?? 2_000,
      mtpPassIntervalMs: options.mtpPassIntervalMs ?? 10_000,
      waitingRecheckMs: options.waitingRecheckMs ?? 2_000,
      incompleteGraceMs: options.incompleteGraceMs ?? 120_000,
      watch: options.watch ?? true,
      historyLimit: options.historyLimit ?? 50,
      nowMs: options.nowMs ?? Date.now,
    };
    this.#ledger = new Ledger(options.ledgerPath);
    this.#inbox = new Inbox(options.inboxFolder);
    // A folder removed on the sync page stays removed though the host names it again (`up --watch`
    // at every login): the page is where it is added back (issue 19).
    for (const folder of options.folders ?? []) {
      if (this.#ledger.removedSource(folderSourceId(folder)) === undefined) this.addFolder(folder);
    }
  }

  /** Runs until stop(): a first pass now, then passes on every trigger. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#every(this.#options.fullPassIntervalMs, () => {
      this.#requestPass();
    });
    let lastTickMs = this.#options.nowMs();
    this.#every(this.#options.presenceIntervalMs, () => {
      const nowMs = this.#options.nowMs();
      // A tick far later than planned: the machine slept. Devices and the network may have changed.
      const slept = nowMs - lastTickMs > this.#options.presenceIntervalMs * 3 + 5_000;
      lastTickMs = nowMs;
      if (slept) this.syncNow();
      else void this.#checkPresence();
    });
    this.#requestPass();
  }

  /**
   * One pass and every upload it leads to, without timers or watchers (`rideport sync --once`).
   * Rides whose upload failed in a retryable way are tried again up to `attempts` times; it returns
   * when nothing more can be done now (all answered, or needs sign-in, or offline, or the server is full).
   */
  async syncOnce(options: { attempts?: number } = {}): Promise<SyncStatus> {
    const attempts = options.attempts ?? 3;
    await this.#runPasses();
    for (;;) {
      await this.#drainUploads();
      if (this.#stopping || this.#signIn !== null || this.#held !== null || this.#paused) break;
      const next = this.#ledger
        .dueRides(Number.MAX_SAFE_INTEGER, 1000)
        .filter((ride) => ride.attempts < attempts);
      if (next.length === 0) break;
      const waitMs = Math.max(
        0,
        Math.min(...next.map((ride) => ride.nextAttemptAtMs)) - this.#options.nowMs(),
      );
      await new Promise((done) => setTimeout(done, waitMs));
      // Only the rides that still have attempts left are made due now.
      for (const ride of next)
        this.#ledger.postpone(ride.sha256, ride.message ?? '', 0, false, this.#options.nowMs());
    }
    return this.status();
  }

  /** Stops timers, watchers and uploads (an interrupted upload is queued again) and closes the ledger. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.clear();
    if (this.#hintTimer !== null) clearTimeout(this.#hintTimer);
    this.#watcher?.close();
    this.#abort.abort();
    await this.#passing;
    while (this.#uploaders > 0) await new Promise((done) => setTimeout(done, 10));
    this.#ledger.close();
  }

  /** "Sync now": a pass, and uploads even if the server was offline or full a moment ago. */
  syncNow(): void {
    if (this.#held !== null) this.#held.retryAtMs = this.#options.nowMs();
    if (this.#held?.cause === 'disk-full') this.#afterDiskFullWait();
    else this.#requestPass();
  }

  /** Pauses uploads; files keep being collected into the inbox, so nothing is lost meanwhile. */
  pause(): void {
    this.#paused = true;
    this.#changed();
  }

  resume(): void {
    this.#paused = false;
    this.#changed();
    this.#kickUploads();
  }

  /** New credentials are in the uploader: uploads that waited for sign-in go on. */
  signedIn(): void {
    this.#signIn = null;
    this.#changed();
    this.#kickUploads();
  }

  /** A failed ride back into the queue, because the user asked; false when it was not failed. */
  retry(sha256: string): boolean {
    const retried = this.#ledger.retry(sha256, this.#options.nowMs());
    if (retried) this.#afterRetry();
    return retried;
  }

  retryFailed(): number {
    const retried = this.#ledger.retryAllFailed(this.#options.nowMs());
    if (retried > 0) this.#afterRetry();
    return retried;
  }

  /**
   * Adds a folder as a source; a new one waits for chooseImport() unless a first import window is set.
   * A removed one comes back (restoreSource).
   */
  addFolder(path: string, window: ImportWindow | undefined = this.#options.firstImport): SourceStatus {
    const absolute = resolve(path);
    const source: PendingSource = {
      id: folderSourceId(absolute),
      kind: 'folder',
      path: absolute,
      label: absolute,
    };
    if (this.#ledger.removedSource(source.id) !== undefined) this.restoreSource(source.id, window);
    else if (this.#ledger.source(source.id) === undefined) this.#adopt(source, window);
    this.#requestPassIfRunning();
    return this.#sourceStatus(source.id)!;
  }

  /**
   * Stops syncing a folder, or forgets a device (issue 19): no more passes over it, its watch is
   * closed, files not whole yet are forgotten and rides still queued from it wait. Everything it
   * synced stays synced, and stays known, so it is not uploaded again if the source comes back. A
   * forgotten device is not taken up again when it is plugged in, until restoreSource(). A pass that
   * is listing the source now finishes it. False when no such source is synced or awaits its import choice.
   */
  removeSource(id: string): boolean {
    const waited = this.#pending.delete(id);
    const removed = this.#ledger.removeSource(id, this.#options.nowMs());
    if (!waited && !removed) return false;
    this.#present.delete(id);
    this.#changed();
    // The next pass watches the folders that are left: the removed one's watch is closed there.
    this.#requestPassIfRunning();
    return true;
  }

  /**
   * Syncs a removed folder or forgotten device again: files it has not seen are taken as `window` says
   * (the first-import answer when undefined: all); those it synced before are not read again.
   */
  restoreSource(id: string, window: ImportWindow | undefined = this.#options.firstImport): boolean {
    const importAfter = window === undefined ? null : importAfterMs(window, this.#options.nowMs());
    if (!this.#ledger.restoreSource(id, importAfter)) return false;
    this.#changed();
    this.#requestPassIfRunning();
    this.#kickUploads();
    return true;
  }

  /** The removed folders and forgotten devices, for a page that offers to add them back. */
  removedSources(): SourceStatus[] {
    return this.#ledger.removedSources().map((row) => ({
      id: row.id,
      kind: row.kind,
      label: row.label,
      path: row.path,
      present: row.kind === 'device' ? this.#devices.has(row.id) : false,
      awaitingImportChoice: false,
    }));
  }

  /** The first-run answer for a source that waits for it: how far back to import. */
  chooseImport(sourceId: string, window: ImportWindow): boolean {
    const pending = this.#pending.get(sourceId);
    if (pending === undefined) return false;
    this.#adopt(pending, window);
    this.#requestPassIfRunning();
    return true;
  }

  /** Where these trips came from: the label of the folder or device each was synced from. */
  tripSources(tripIds: readonly number[]): Map<number, string> {
    return this.#ledger.tripSources(tripIds);
  }

  /** `listener` gets the new status after each change (at most once per turn of the event loop). */
  onChange(listener: (status: SyncStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  status(): SyncStatus {
    const counts = this.#ledger.counts();
    const sources: SourceStatus[] = [];
    for (const row of this.#ledger.sources()) sources.push(this.#sourceStatus(row.id)!);
    for (const pending of this.#pending.values()) sources.push(this.#sourceStatus(pending.id)!);
    return {
      state: this.#state(counts.queued + counts.uploading),
      sources,
      removedSources: this.removedSources(),
      counts: {
        found: counts.queued + counts.uploading + counts.synced + counts.failed,
        waiting: this.#ledger.waitingFiles(),
        ...counts,
      },
      waitingFiles: this.#ledger.waitingFileList(WAITING_FILES_SHOWN).map((file) => ({
        sourceId: file.sourceId,
        relativePath: file.relativePath,
        reason: file.reason ?? 'not complete yet',
        takenBy: new Date(file.unchangedSinceMs + this.#options.incompleteGraceMs).toISOString(),
      })),
      recent: this.#ledger.history(this.#options.historyLimit).map(historyEntry),
      copies: this.#copies.flatMap((copy) => {
        const ride = this.#ledger.ride(copy.sha256);
        if (ride === undefined) return [];
        const { sourceId, relativePath, state, tripIds, routeIds } = ride;
        return [
          {
            sourceId: copy.sourceId,
            relativePath: copy.relativePath,
            sameAs: { sourceId, relativePath, state, tripIds, routeIds },
            foundAt: new Date(copy.foundAtMs).toISOString(),
          },
        ];
      }),
      lastPassAt: this.#lastPassAtMs === null ? null : new Date(this.#lastPassAtMs).toISOString(),
    };
  }

  #state(remaining: number): SyncState {
    if (this.#paused) return { kind: 'paused' };
    if (this.#signIn !== null) return { kind: 'needs-sign-in', message: this.#signIn.message };
    if (this.#held !== null) {
      const { cause, message, retryAtMs } = this.#held;
      return { kind: cause, message, retryAtMs };
    }
    if (this.#batch !== null) {
      return { kind: 'syncing', done: this.#batch.done, total: this.#batch.done + remaining };
    }
    return { kind: 'idle' };
  }

  #sourceStatus(id: string): SourceStatus | undefined {
    const pending = this.#pending.get(id);
    const source = pending ?? this.#ledger.source(id);
    if (source === undefined) return undefined;
    return {
      id,
      kind: source.kind,
      label: source.label,
      path: source.path,
      present: this.#present.get(id) ?? false,
      awaitingImportChoice: pending !== undefined,
    };
  }

  #adopt(source: PendingSource, window: ImportWindow | undefined): void {
    if (window === undefined) {
      this.#pending.set(source.id, source);
    } else {
      const nowMs = this.#options.nowMs();
      this.#ledger.saveSource({ ...source, importAfterMs: importAfterMs(window, nowMs), addedAtMs: nowMs });
      this.#pending.delete(source.id);
    }
    this.#changed();
  }

  #afterRetry(): void {
    this.#changed();
    this.#kickUploads();
  }

  #every(intervalMs: number, tick: () => void): void {
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    this.#timers.add(timer);
  }

  #after(delayMs: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      action();
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  #requestPassIfRunning(): void {
    if (this.#running) this.#requestPass();
  }

  #requestPass(): void {
    if (this.#stopping) return;
    if (this.#passing !== null) {
      this.#passAgain = true;
      return;
    }
    void this.#runPasses();
  }

  async #runPasses(): Promise<void> {
    if (this.#passing !== null) {
      this.#passAgain = true;
      return this.#passing;
    }
    this.#passing = (async () => {
      try {
        do {
          this.#passAgain = false;
          try {
            await this.#pass();
          } catch (error) {
            // The ledger could not be written (a source saved): wait for space, as below.
            if (!isDiskFull(error)) throw error;
            this.#record(this.#diskFull(error));
            this.#changed();
          }
        } while (this.#anotherPassAsked() && !this.#stopping);
      } finally {
        this.#passing = null;
      }
    })();
    return this.#passing;
  }

  /** Whether stop() was called (a method: callers read it again after awaiting). */
  #stopRequested(): boolean {
    return this.#stopping;
  }

  /** Whether a trigger arrived during the pass that just ended (a method: the pass awaited in between). */
  #anotherPassAsked(): boolean {
    return this.#passAgain;
  }

  /** Which sources exist now, with the folders to list for each. Devices are detected afresh. */
  async #resolveSources(): Promise<ResolvedSource[]> {
    const resolved: ResolvedSource[] = [];
    if (this.#options.deviceRoots.length > 0) {
      const detected = await detectDevices([...this.#options.deviceRoots]);
      this.#devices = new Map(detected.map((device) => [device.id, device]));
      for (const device of detected) {
        // A forgotten device is not taken up again when it is plugged in (removeSource).
        if (
          this.#ledger.source(device.id) === undefined &&
          this.#ledger.removedSource(device.id) === undefined &&
          !this.#pending.has(device.id)
        ) {
          const source: PendingSource = {
            id: device.id,
            kind: 'device',
            path: device.mountPath,
            label: device.label,
          };
          this.#adopt(source, this.#options.firstImport);
        }
      }
    }
    for (const row of this.#ledger.sources()) {
      if (row.kind === 'folder') {
        resolved.push({ row, folders: [row.path] });
        continue;
      }
      const device = this.#devices.get(row.id);
      if (device === undefined) {
        this.#setPresent(row.id, false);
        continue;
      }
      // A device may come back under another mount path; its files keep their relative paths.
      const current = { ...row, path: device.mountPath, label: device.label };
      if (current.path !== row.path || current.label !== row.label) this.#ledger.saveSource(current);
      resolved.push({ row: current, folders: device.activityFolders });
    }
    for (const pending of this.#pending.values()) {
      const present =
        pending.kind === 'device' ? this.#devices.has(pending.id) : await isFolder(pending.path);
      this.#setPresent(pending.id, present);
    }
    return resolved;
  }

  async #pass(): Promise<void> {
    const sources = await this.#resolveSources();
    let waiting = 0;
    let written = 0;
    let diskFull: unknown = null;
    for (const source of sources) {
      if (this.#stopping) return;
      // Removed while an earlier source was being listed (removeSource): not listed any more.
      if (this.#ledger.source(source.row.id) === undefined) continue;
      try {
        const result = await collectSource(source.row, source.folders, this.#ledger, this.#inbox, {
          incompleteGraceMs: this.#options.incompleteGraceMs,
          nowMs: this.#options.nowMs,
          onNewRide: () => {
            this.#changed();
            this.#kickUploads();
          },
          onCopy: (file, ride) => {
            this.#copies.unshift({ ...file, sha256: ride.sha256, foundAtMs: this.#options.nowMs() });
            this.#copies.length = Math.min(this.#copies.length, this.#options.historyLimit);
            this.#changed();
          },
        });
        this.#setPresent(source.row.id, result.present);
        waiting += result.waiting;
        written += result.written;
      } catch (error) {
        // No room for the inbox copy or the ledger: the source is there (its files were listed), this
        // computer's disk is full.
        if (isDiskFull(error)) {
          diskFull = error;
          this.#setPresent(source.row.id, true);
        }
        // A device that fails mid-read (I/O error, pulled out) is not present; the next pass retries.
        else this.#setPresent(source.row.id, false);
      }
    }
    if (diskFull !== null) this.#record(this.#diskFull(diskFull));
    else if (written > 0 && this.#held?.cause === 'disk-full') this.#held = null;
    this.#lastPassAtMs = this.#options.nowMs();
    if (waiting > 0 && this.#running)
      this.#after(this.#options.waitingRecheckMs, () => {
        this.#requestPass();
      });
    if (this.#running && this.#options.watch) await this.#watchFolders(sources);
    this.#changed();
    this.#kickUploads();
  }

  /** Cheap look at whether sources came or went; a change leads to a pass. */
  async #checkPresence(): Promise<void> {
    if (this.#passing !== null || this.#stopping) return;
    let changed = false;
    for (const row of this.#ledger.sources()) {
      if (row.kind !== 'folder') continue;
      if ((await isFolder(row.path)) !== (this.#present.get(row.id) ?? false)) changed = true;
    }
    for (const pending of this.#pending.values()) {
      if (
        pending.kind === 'folder' &&
        (await isFolder(pending.path)) !== (this.#present.get(pending.id) ?? false)
      ) {
        this.#setPresent(pending.id, !(this.#present.get(pending.id) ?? false));
      }
    }
    if (this.#options.deviceRoots.length > 0) {
      const detected = await detectDevices([...this.#options.deviceRoots]);
      const now = detected
        .map((device) => device.id)
        .sort()
        .join('\n');
      const before = [...this.#devices.keys()].sort().join('\n');
      if (now !== before) changed = true;
      const mtpPresent = detected.some((device) => device.transport === 'mtp');
      const sinceLastPassMs = this.#options.nowMs() - (this.#lastPassAtMs ?? 0);
      if (mtpPresent && sinceLastPassMs >= this.#options.mtpPassIntervalMs) changed = true;
    }
    if (changed) this.#requestPass();
  }

  async #watchFolders(sources: ResolvedSource[]): Promise<void> {
    // MTP folders (gvfs) raise no events and are slow to watch: they are polled instead.
    const folders = sources
      .filter((source) => this.#present.get(source.row.id) === true)
      .filter((source) => this.#devices.get(source.row.id)?.transport !== 'mtp')
      .flatMap((source) => source.folders);
    const key = [...folders].sort().join('\n');
    if (key === this.#watchedFolders) return;
    this.#watchedFolders = key;
    this.#watcher?.close();
    this.#watcher = null;
    if (folders.length === 0 || this.#stopping) return;
    // Hints only (docs/contributors/architecture.md): events are coalesced into one pass, and folders that cannot be watched
    // change nothing, since the timers pass anyway. One watch per folder, never per file (issue 22).
    const watcher = await FolderWatch.start(folders, () => {
      this.#hint();
    });
    // stop() may have come while the folders were being watched: it closed no watch of these.
    if (this.#stopRequested()) {
      watcher.close();
      return;
    }
    this.#watcher = watcher;
    // A file that arrived between this pass's listing and the watches being set raised no event: one
    // more pass (cheap: unchanged files are not read) closes that gap.
    this.#requestPass();
  }

  #hint(): void {
    if (this.#hintTimer !== null) return;
    this.#hintTimer = setTimeout(() => {
      this.#hintTimer = null;
      this.#requestPass();
    }, 250);
    this.#hintTimer.unref();
  }

  #setPresent(id: string, present: boolean): void {
    if (this.#present.get(id) === present) return;
    this.#present.set(id, present);
    this.#changed();
  }

  #canUpload(): boolean {
    if (this.#stopping || this.#paused || this.#signIn !== null) return false;
    return this.#held === null || this.#held.retryAtMs <= this.#options.nowMs();
  }

  /** Starts uploaders up to the concurrency while rides are due. */
  #kickUploads(): void {
    while (this.#uploaders < this.#options.uploadConcurrency && this.#canUpload()) {
      const ride = this.#nextDueRide();
      if (ride === undefined) break;
      this.#uploaders += 1;
      this.#batch ??= { done: 0 };
      void this.#uploadFrom(ride).finally(() => {
        this.#uploaders -= 1;
        if (this.#uploaders === 0) this.#settle();
      });
    }
  }

  async #drainUploads(): Promise<void> {
    this.#kickUploads();
    while (this.#uploaders > 0) await new Promise((done) => setTimeout(done, 20));
  }

  #nextDueRide(): RideRow | undefined {
    const due = this.#ledger.dueRides(this.#options.nowMs(), this.#inFlight.size + 1);
    return due.find((ride) => !this.#inFlight.has(ride.sha256));
  }

  /** One uploader: takes due rides one after another until none is due or uploads must stop. */
  async #uploadFrom(first: RideRow): Promise<void> {
    let ride: RideRow | undefined = first;
    while (ride !== undefined) {
      this.#inFlight.add(ride.sha256);
      let verdict: UploadVerdict;
      try {
        verdict = await uploadRide(
          ride,
          this.#options.uploader,
          this.#ledger,
          this.#inbox,
          this.#options.nowMs,
          this.#abort.signal,
        );
      } catch (error) {
        verdict = this.#afterLocalError(ride, error);
      } finally {
        this.#inFlight.delete(ride.sha256);
      }
      this.#record(verdict);
      this.#changed();
      ride = this.#canUpload() ? this.#nextDueRide() : undefined;
    }
  }

  /**
   * An upload that ended in a failure of this computer: the inbox could not be read (disk trouble: the
   * ride stays queued, and uploads stop for now), or the ledger could not be written because the disk
   * is full (the ride stays as it was, `uploading` at worst, until there is space again).
   */
  #afterLocalError(ride: RideRow, error: unknown): UploadVerdict {
    if (isDiskFull(error)) return this.#diskFull(error);
    const message = error instanceof Error ? error.message : String(error);
    const nowMs = this.#options.nowMs();
    try {
      this.#ledger.postpone(ride.sha256, message, nowMs + 60_000, true, nowMs);
    } catch (again) {
      if (isDiskFull(again)) return this.#diskFull(again);
      throw again;
    }
    return { kind: 'postponed' };
  }

  /** Uploads (and collecting) wait: this computer's disk is full (issue 17), said in words. */
  #diskFull(error: unknown): UploadVerdict {
    const reason = error instanceof Error ? error.message : String(error);
    const folder = dirname(this.#options.inboxFolder);
    return {
      kind: 'stop',
      cause: 'disk-full',
      message: `this computer's disk is full: the sync engine cannot write to ${folder} (${reason})`,
      retryAfterMs: null,
    };
  }

  /**
   * The wait after a full disk is over: rides an unwritable outcome left `uploading` are queued again
   * (a write: it shows whether there is space), and a pass collects what could not be copied.
   */
  #afterDiskFullWait(): void {
    if (this.#uploaders === 0) {
      try {
        if (this.#ledger.requeueUploading() > 0) this.#held = null;
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        this.#record(this.#diskFull(error));
        this.#changed();
        return;
      }
    }
    this.#requestPass();
    this.#kickUploads();
  }

  #record(verdict: UploadVerdict): void {
    if (verdict.kind === 'synced' || verdict.kind === 'failed') {
      if (this.#batch !== null) this.#batch.done += 1;
      this.#held = null;
      return;
    }
    if (verdict.kind !== 'stop') return;
    if (verdict.cause === 'needs-sign-in') {
      this.#signIn = { message: verdict.message };
      return;
    }
    const attempts = (this.#held?.attempts ?? 0) + 1;
    // Exponential backoff with jitter, 1 s doubling to 5 minutes, so a fleet of desktops does not
    // knock on a server that is coming back (or being given disk space) all at the same instant.
    const delayMs = Math.round(backoffDelayMs(attempts - 1, { baseMs: 1_000, capMs: HELD_BACKOFF_MAX_MS }));
    this.#held = {
      cause: verdict.cause,
      message: verdict.message,
      retryAtMs: this.#options.nowMs() + delayMs,
      attempts,
    };
    const cause = verdict.cause;
    if (this.#running)
      this.#after(delayMs, () => {
        if (cause === 'disk-full') this.#afterDiskFullWait();
        else this.#kickUploads();
      });
  }

  /** No uploader left: the batch is over; wake up again when the next postponed ride is due. */
  #settle(): void {
    this.#batch = null;
    this.#changed();
    if (!this.#running || this.#stopping) return;
    const nextAtMs = this.#ledger.nextAttemptAtMs();
    if (nextAtMs !== null && this.#canUpload()) {
      this.#after(Math.max(50, nextAtMs - this.#options.nowMs()), () => {
        this.#kickUploads();
      });
    }
  }

  /**
   * Tells listeners that something changed, at most once per turn of the event loop, with the status
   * read once for all of them.
   */
  #changed(): void {
    if (this.#emitQueued || this.#listeners.size === 0) return;
    this.#emitQueued = true;
    setImmediate(() => {
      this.#emitQueued = false;
      if (this.#listeners.size === 0 || this.#stopping) return;
      const status = this.status();
      for (const listener of this.#listeners) listener(status);
    });
  }
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

function historyEntry(ride: RideRow): RideHistoryEntry {
  return {
    sha256: ride.sha256,
    filename: ride.filename,
    sourceId: ride.sourceId,
    relativePath: ride.relativePath,
    state: ride.state,
    message: ride.message,
    errorCode: ride.errorCode,
    tripIds: ride.tripIds,
    routeIds: ride.routeIds,
    duplicate: ride.duplicate,
    attempts: ride.attempts,
    foundAt: new Date(ride.foundAtMs).toISOString(),
    updatedAt: new Date(ride.updatedAtMs).toISOString(),
  };
}

/**
 * What the sync engine shows a user (issue 6, "Status model that a UI can show"): the sources and
 * whether they are present, counts, per-file history with the server's message, and the current state.
 * Plain data, so the desktop app, the dashboard (over HTTP) and the command line render the same thing.
 */
import type { RideState } from './ledger.js';

export type SyncState =
  | { kind: 'idle' }
  /** uploading: `done` of `total` rides of the current batch have an answer */
  | { kind: 'syncing'; done: number; total: number }
  /** the server refused the credentials (401): files keep being collected, uploads wait */
  | { kind: 'needs-sign-in'; message: string }
  /** the server cannot be reached: uploads wait until `retryAtMs` (or "sync now") */
  | { kind: 'offline'; message: string; retryAtMs: number }
  /**
   * the server's disk is full (issue 17, a 507): it stores nothing until space is freed there; uploads
   * wait until `retryAtMs` (or "sync now"), and no ride is marked failed for it
   */
  | { kind: 'server-full'; message: string; retryAtMs: number }
  /**
   * this computer's disk is full: the engine cannot write its ledger or inbox (issue 17). Files stay
   * where they are and queued rides stay queued; it tries again at `retryAtMs` (or "sync now")
   */
  | { kind: 'disk-full'; message: string; retryAtMs: number }
  /** the user paused uploads; files keep being collected */
  | { kind: 'paused' };

export interface SourceStatus {
  id: string;
  kind: 'folder' | 'device';
  label: string;
  path: string;
  /** false: the folder or device is not there now ("device not present", never "files deleted") */
  present: boolean;
  /** a newly found source waits for "how far back to import" before anything is taken from it */
  awaitingImportChoice: boolean;
}

export interface SyncCounts {
  /** distinct rides found so far, in any upload state */
  found: number;
  /** files seen but not whole yet (still being written, or cut off) */
  waiting: number;
  queued: number;
  uploading: number;
  synced: number;
  failed: number;
}

export interface RideHistoryEntry {
  sha256: string;
  filename: string;
  sourceId: string;
  relativePath: string;
  state: RideState;
  /**
   * the server's message in words ("Created 1 ride from a file that ends early: …", why it could not
   * read the file), or why it waits
   */
  message: string | null;
  /** a failed ride: the server's stable code for why, for programs (issue 16); else null */
  errorCode: string | null;
  tripIds: number[];
  routeIds: number[];
  /** the server had these trips already (the same recording in other bytes, issue 16) */
  duplicate: boolean;
  attempts: number;
  foundAt: string;
  updatedAt: string;
}

/**
 * A file that is not taken yet because it is not whole (issue 20: "say why and for how long"): still
 * being written, or cut off. It is taken as soon as it is whole, or as it is once it has not changed
 * for the grace period (2 minutes): a file cut off for good.
 */
export interface WaitingFile {
  sourceId: string;
  relativePath: string;
  /** why, in words: "being written", or what the file lacks ("the FIT file ends before its CRC") */
  reason: string;
  /** when it is taken as it is if it does not change before (ISO 8601) */
  takenBy: string;
}

/**
 * A file whose bytes are those of a ride found before (issue 35: a byte-identical copy was skipped
 * without a word): nothing is uploaded for it, and it is said once, as the same ride in another
 * format is (`duplicate` in the history).
 */
export interface CopyEntry {
  sourceId: string;
  relativePath: string;
  /** the file the ride was found as, and what became of it so far */
  sameAs: {
    sourceId: string;
    relativePath: string;
    state: RideState;
    tripIds: number[];
    routeIds: number[];
  };
  foundAt: string;
}

export interface SyncStatus {
  state: SyncState;
  sources: SourceStatus[];
  /**
   * folders removed and devices forgotten on the sync page (issue 19): not synced until added back;
   * what they synced stays synced
   */
  removedSources: SourceStatus[];
  counts: SyncCounts;
  /** the files counted in `counts.waiting` (at most 50, those waiting longest first) */
  waitingFiles: WaitingFile[];
  /** the most recently changed rides, newest first */
  recent: RideHistoryEntry[];
  /** copies of rides found since the engine started, newest first (at most as many as `recent`) */
  copies: CopyEntry[];
  /** when the last pass over the sources ended (ISO 8601), null before the first */
  lastPassAt: string | null;
}

/** How far back the first sync of a new source goes (issue 6: "all, last N days, or nothing before now"). */
export type ImportWindow = { kind: 'all' } | { kind: 'days'; days: number } | { kind: 'from-now' };

/** Parses `all`, `new` (nothing before now) or `<N>d` (the last N days), as the commands take it. */
export function parseImportWindow(text: string): ImportWindow | null {
  if (text === 'all') return { kind: 'all' };
  if (text === 'new') return { kind: 'from-now' };
  const days = /^(\d{1,5})d$/.exec(text);
  if (days !== null && Number(days[1]) > 0) return { kind: 'days', days: Number(days[1]) };
  return null;
}

/** The modification time before which a source's files are skipped; null imports everything. */
export function importAfterMs(window: ImportWindow, nowMs: number): number | null {
  switch (window.kind) {
    case 'all':
      return null;
    case 'from-now':
      return nowMs;
    case 'days':
      return nowMs - window.days * 86_400_000;
  }
}

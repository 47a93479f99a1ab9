/**
 * The port through which a host's sync engine is served (issue 6; issue 35: ports in files of their
 * own). The server knows nothing of the engine but this interface: `server` does not depend on `sync`,
 * and the hosts (`rideport up`, the desktop app, through @rideport/host) wire @rideport/sync in; the
 * compiler checks the engine against these shapes where a host passes it to buildServer.
 */
/**
 * The engine's status as the server shows it (the dashboard's sync page, status.json). @rideport/sync's
 * SyncStatus has this shape (it may carry more); the server cannot import it, so the shape is declared
 * here.
 */
export interface LocalSyncStatus {
  state:
    | { kind: 'idle' }
    | { kind: 'syncing'; done: number; total: number }
    | { kind: 'needs-sign-in'; message: string }
    | { kind: 'offline'; message: string; retryAtMs: number }
    | { kind: 'server-full'; message: string; retryAtMs: number }
    | { kind: 'disk-full'; message: string; retryAtMs: number }
    | { kind: 'paused' };
  sources: {
    id: string;
    kind: 'folder' | 'device';
    label: string;
    path: string;
    present: boolean;
    awaitingImportChoice: boolean;
  }[];
  /**
   * folders removed and devices forgotten (issue 19), the same shape as `sources`; absent from a host
   * that cannot remove sources
   */
  removedSources?: LocalSyncStatus['sources'];
  counts: Record<'found' | 'waiting' | 'queued' | 'uploading' | 'synced' | 'failed', number>;
  recent: {
    sha256: string;
    filename: string;
    sourceId: string;
    relativePath: string;
    state: 'queued' | 'uploading' | 'synced' | 'failed';
    message: string | null;
    tripIds: number[];
    routeIds: number[];
    /** the server had these trips already (issue 16: the same recording in other bytes) */
    duplicate: boolean;
    attempts: number;
    foundAt: string;
    updatedAt: string;
  }[];
  lastPassAt: string | null;
  /**
   * The files counted in `counts.waiting`, why each waits and when it is taken as it is (issue 20);
   * absent from a host that does not list them.
   */
  waitingFiles?: { sourceId: string; relativePath: string; reason: string; takenBy: string }[];
  /**
   * Files whose bytes are a ride found before as another file, not uploaded again (issue 35), newest
   * first; absent from a host that does not list them.
   */
  copies?: {
    sourceId: string;
    relativePath: string;
    sameAs: { sourceId: string; relativePath: string; tripIds: number[]; routeIds: number[] };
    foundAt: string;
  }[];
}

/** What the host's sync engine offers (windows as `all`, `new` or `<N>d`). */
export interface LocalSync {
  /** the user whose rides the engine uploads; null until the host has set up its account */
  readonly userId: number | null;
  status(): LocalSyncStatus;
  syncNow(): void;
  pause(): void;
  resume(): void;
  /** a failed ride (by SHA-256) back into the queue; false when no such failed ride */
  retry(sha256: string): boolean;
  retryFailed(): number;
  /** the first-run answer for a source awaiting it; false when no source awaits it; throws on a bad window */
  chooseImport(sourceId: string, window: string): boolean;
  /** adds a folder source, or a removed one back; throws on a bad window */
  addFolder(path: string, window: string | undefined): void;
  /** stops syncing a folder or forgets a device (issue 19); false when no such source is synced */
  removeSource(sourceId: string): boolean;
  /** syncs a removed folder or forgotten device again; false when it was not removed; throws on a bad window */
  restoreSource(sourceId: string, window: string | undefined): boolean;
  /** the label of the folder or device each of these trips was synced from (trips not synced: left out) */
  tripSources(tripIds: readonly number[]): Map<number, string>;
}

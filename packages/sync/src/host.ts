/**
 * What every host of the engine (`rideport up`, `rideport sync`, the desktop app) needs around it: where
 * its ledger and inbox live, and the engine seen through the server's LocalSync interface (served at
 * /api/v1/local/sync and on the dashboard's sync page). The object is built to that interface's shape
 * without importing the server (docs/contributors/architecture.md: `sync` → `client`, `ridefile`, `files`).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { SyncEngine } from './engine.js';
import { parseImportWindow, type ImportWindow, type SyncStatus } from './status.js';

export interface SyncFolders {
  ledgerPath: string;
  inboxFolder: string;
}

/**
 * The ledger and inbox for syncing to `server`: one pair per server, so rides synced to one server are
 * not taken for synced to another. Hosts of an embedded server pass 'local': its port may change
 * between runs.
 */
export function syncFolders(dataDirectory: string, server: string): SyncFolders {
  let key = 'local';
  if (server !== 'local') {
    const url = new URL(server);
    const hash = createHash('sha256').update(url.origin).digest('hex').slice(0, 12);
    key = `${url.host.replace(/[^\w.-]/g, '_')}-${hash}`;
  }
  const folder = join(dataDirectory, 'sync', key);
  return { ledgerPath: join(folder, 'ledger.sqlite'), inboxFolder: join(folder, 'inbox') };
}

/** The engine with plain arguments (import windows as `all`, `new` or `<N>d`), for HTTP and IPC. */
export interface EngineControls {
  readonly userId: number | null;
  status(): SyncStatus;
  syncNow(): void;
  pause(): void;
  resume(): void;
  retry(sha256: string): boolean;
  retryFailed(): number;
  chooseImport(sourceId: string, window: string): boolean;
  addFolder(path: string, window: string | undefined): void;
  removeSource(sourceId: string): boolean;
  restoreSource(sourceId: string, window: string | undefined): boolean;
  tripSources(tripIds: readonly number[]): Map<number, string>;
}

/** `engine` uploading as the user `userId()` returns (null until the host has its account). */
export function engineControls(engine: SyncEngine, userId: () => number | null): EngineControls {
  const window = (text: string): ImportWindow => {
    const parsed = parseImportWindow(text);
    if (parsed === null) throw new RangeError(`bad import window '${text}': all, new or <N>d`);
    return parsed;
  };
  return {
    get userId() {
      return userId();
    },
    status: () => engine.status(),
    syncNow: () => {
      engine.syncNow();
    },
    pause: () => {
      engine.pause();
    },
    resume: () => {
      engine.resume();
    },
    retry: (sha256) => engine.retry(sha256),
    retryFailed: () => engine.retryFailed(),
    chooseImport: (sourceId, text) => engine.chooseImport(sourceId, window(text)),
    addFolder: (path, text) => {
      engine.addFolder(path, text === undefined ? undefined : window(text));
    },
    removeSource: (sourceId) => engine.removeSource(sourceId),
    restoreSource: (sourceId, text) =>
      engine.restoreSource(sourceId, text === undefined ? undefined : window(text)),
    tripSources: (tripIds) => engine.tripSources(tripIds),
  };
}

/**
 * Hosts that can get new credentials without asking anyone renew a refused token themselves: the
 * owners of the server's database (`rideport up`, the desktop app) issue a new one, `rideport sync`
 * with email and password signs in again. When the engine needs sign-in, `renew` puts new credentials
 * into the uploader and the engine goes on; at most one attempt per `intervalMs`, so a server that
 * refuses every attempt is not hammered. Returns the function that stops watching.
 */
export function renewCredentialsWhenRefused(
  engine: SyncEngine,
  renew: () => Promise<void>,
  intervalMs = 10_000,
): () => void {
  let lastAttemptMs = Number.NEGATIVE_INFINITY;
  return engine.onChange((status) => {
    if (status.state.kind !== 'needs-sign-in') return;
    if (Date.now() - lastAttemptMs < intervalMs) return;
    lastAttemptMs = Date.now();
    renew().then(
      () => {
        engine.signedIn();
      },
      () => undefined,
    );
  });
}

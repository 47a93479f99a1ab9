/**
 * The sync engine of `rideport up`, over HTTP for the dashboard and the desktop app (issue 6: "the
 * sync status available over HTTP for the dashboard"). Not part of the platform specification: the
 * routes exist only when the host passes `localSync` to buildServer, and only the account the engine
 * uploads as may see or steer it. The server knows nothing of the engine but this interface (design.md:
 * `server` depends on `ridefile` only; `cli` and `app` wire the engine in).
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../../context.js';
import { badRequest, forbidden, notFound, unprocessable } from '../../errors.js';
import { isTooLong, TEXT_MAX_CHARS, tooLongWords } from '../../store/index.js';
import { ERRORS_SCHEMA } from './records.js';
import { callerOf, v1Route } from './route.js';

/**
 * The engine's status as the server shows it (the dashboard's sync page, status.json). @rideport/sync's
 * SyncStatus has this shape (it may carry more); the server cannot import it (design.md: server →
 * ridefile only), so the shape is declared here and the compiler checks the engine against it where a
 * host passes the engine in.
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

const STATUS_RESPONSE = {
  200: { type: 'object', additionalProperties: true },
  401: ERRORS_SCHEMA,
  403: ERRORS_SCHEMA,
};
const WINDOW = { type: 'string', pattern: '^(all|new|[0-9]{1,5}d)$' };

export function localSyncRoutes(app: FastifyInstance, { context }: PluginOptions, sync: LocalSync): void {
  const steer = (
    url: `${string}.json`,
    summary: string,
    body: object | undefined,
    act: (input: Record<string, string>) => void,
  ): void => {
    v1Route(app, context, {
      method: 'POST',
      url,
      auth: 'user',
      schema: { summary, ...(body === undefined ? {} : { body }), response: STATUS_RESPONSE },
      handler: (request) => {
        ownerOnly(sync, callerOf(request).user.id);
        act((request.body ?? {}) as Record<string, string>);
        return Promise.resolve({ sync: sync.status() });
      },
    });
  };

  v1Route(app, context, {
    method: 'GET',
    url: '/local/sync/status.json',
    auth: 'user',
    schema: {
      summary: 'The local sync engine: state, sources, counts, recent rides',
      response: STATUS_RESPONSE,
    },
    handler: (request) => {
      ownerOnly(sync, callerOf(request).user.id);
      return Promise.resolve({ sync: sync.status() });
    },
  });
  steer('/local/sync/now.json', 'Sync now', undefined, () => {
    sync.syncNow();
  });
  steer('/local/sync/pause.json', 'Pause uploads (files keep being collected)', undefined, () => {
    sync.pause();
  });
  steer('/local/sync/resume.json', 'Resume uploads', undefined, () => {
    sync.resume();
  });
  steer(
    '/local/sync/retry.json',
    'Retry one failed ride (by sha256), or every failed ride',
    {
      type: 'object',
      properties: { sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
      additionalProperties: false,
    },
    (input) => {
      if (input['sha256'] === undefined) sync.retryFailed();
      else if (!sync.retry(input['sha256'])) throw notFound('no failed ride has that sha256');
    },
  );
  steer(
    '/local/sync/import.json',
    'How far back the first sync of a new source goes',
    {
      type: 'object',
      required: ['source_id', 'window'],
      properties: { source_id: { type: 'string', minLength: 1 }, window: WINDOW },
      additionalProperties: false,
    },
    (input) => {
      if (!sync.chooseImport(input['source_id']!, input['window']!)) {
        throw notFound('no source awaits an import choice with that id');
      }
    },
  );
  steer(
    '/local/sync/folders.json',
    'Add a folder to sync',
    {
      type: 'object',
      required: ['path'],
      properties: { path: { type: 'string', minLength: 1 }, window: WINDOW },
      additionalProperties: false,
    },
    (input) => {
      if (isTooLong(input['path']!, TEXT_MAX_CHARS.folderPath)) {
        throw unprocessable([tooLongWords('path', TEXT_MAX_CHARS.folderPath)]);
      }
      if (!input['path']!.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(input['path']!)) {
        throw badRequest('path must be absolute');
      }
      sync.addFolder(input['path']!, input['window']);
    },
  );
}

function ownerOnly(sync: LocalSync, userId: number): void {
  if (sync.userId !== userId)
    throw forbidden('only the account this desktop syncs as may see its sync engine');
}

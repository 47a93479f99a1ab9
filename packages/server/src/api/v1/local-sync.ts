/**
 * The sync engine of `rideport up`, over HTTP for the dashboard and the desktop app (issue 6: "the
 * sync status available over HTTP for the dashboard"). Not part of the platform specification: the
 * routes exist only when the host passes `localSync` to buildServer, and only the account the engine
 * uploads as may see or steer it. The server knows nothing of the engine but this interface (docs/contributors/architecture.md:
 * `server` does not depend on `sync`; `cli` and `app` wire the engine in).
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../../context.js';
import { badRequest, forbidden, notFound, textTooLong, unprocessable } from '../../errors.js';
import { isTooLong, TEXT_MAX_CHARS } from '../../store/index.js';
import { ERRORS_SCHEMA } from './records.js';
import { callerOf, v1Route } from './route.js';
import type { LocalSync } from '../../ports/local-sync.js';

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
        throw unprocessable([textTooLong('path', TEXT_MAX_CHARS.folderPath)]);
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

/**
 * `GET /queued_tasks/status.json` (or `.js`) `?ids=1,2,3[&include_objects=true]` (docs/contributors/decisions.md §5,
 * "Queued task status"): the caller's own tasks among the ids, in the order asked; others' tasks,
 * unknown and purged ids are left out. `associated_objects` is filled only with include_objects=true,
 * each route or trip as the legacy interface shows it (legacy/records.ts: the v1 record, with its
 * legacy URL).
 */
import type { FastifyInstance } from 'fastify';
import { isoTime } from '../iso-time.js';
import type { PluginOptions, ServerContext } from '../context.js';
import { badRequest } from '../errors.js';
import {
  legacyAssetUrl,
  legacyUrlPrefix,
  parsedRecord,
  QUEUED_TASK_SCHEMA,
  type QueuedTaskRecord,
} from './records.js';
import { legacyRoute, type LegacyAnswer, type LegacyCall } from './route.js';
import { recordWithUrl, type TaskStatusRow } from '../store/index.js';
import { ID_RANGE, readWholeNumber } from '../whole-numbers.js';

/** ids in one request */
export const MAX_TASK_IDS = 200;

export function queuedTaskRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  legacyRoute(app, context, {
    method: 'GET',
    path: '/queued_tasks/status',
    auth: 'user',
    summary: 'Status of queued upload tasks',
    answer: {
      type: 'object',
      required: ['queued_tasks'],
      properties: { queued_tasks: { type: 'array', items: QUEUED_TASK_SCHEMA } },
    },
    handler: (_request, call) => taskStatuses(call, context),
  });
  return Promise.resolve();
}

async function taskStatuses(call: LegacyCall, context: ServerContext): Promise<LegacyAnswer> {
  const ids = taskIds(call.params.raw('ids'));
  const includeObjects = ['true', '1'].includes(call.params.text('include_objects')?.toLowerCase() ?? '');
  const rows = await context.store.tasks.statuses(call.user!.user.id, ids);
  const byId = new Map(rows.map((row) => [row.id, record(row)]));
  if (includeObjects && rows.length > 0) {
    const prefix = legacyUrlPrefix(context.options.baseUrl);
    for (const object of await context.store.tasks.objectRecords(rows.map((row) => row.id))) {
      // A record stored in an older format is rendered again by the assets repository.
      const json =
        object.recordJson ?? (await context.store.assets.findRecordWithPoints(object.type, object.id))?.json;
      if (json === undefined) continue;
      const asset = parsedRecord(recordWithUrl(json, legacyAssetUrl(prefix, object.type)));
      // The stored record, rendered by store/asset-records.ts in the shape of its schema.
      const associated = { type: object.type, [object.type]: asset };
      byId.get(object.taskId)?.associated_objects.push(associated as AssociatedObject);
    }
  }
  const tasks = ids.flatMap((id) => byId.get(id) ?? []);
  return { body: { queued_tasks: tasks } };
}

/** `ids`: "1,2,3", or repeated; each a whole number in ID_RANGE, at most MAX_TASK_IDS of them, else 400. */
function taskIds(value: unknown): number[] {
  const texts = (Array.isArray(value) ? value : [value])
    .filter((item) => item !== undefined && item !== null)
    .flatMap((item) => String(item).split(','))
    .map((text) => text.trim())
    .filter((text) => text !== '');
  if (texts.length === 0) throw badRequest('ids is required: the task ids, separated by commas');
  const read = texts.map((text) => readWholeNumber(text, ID_RANGE));
  if (read.includes(undefined)) {
    throw badRequest(
      `ids must be task ids separated by commas, each a whole number from ${ID_RANGE.min} to ${ID_RANGE.max}`,
    );
  }
  const ids = [...new Set(read.filter((id) => id !== undefined))];
  if (ids.length > MAX_TASK_IDS) throw badRequest(`ids may name at most ${MAX_TASK_IDS} tasks`);
  return ids;
}

type AssociatedObject = QueuedTaskRecord['associated_objects'][number];

function record(row: TaskStatusRow): QueuedTaskRecord {
  return {
    id: row.id,
    status: row.status,
    message: row.message,
    error_code: row.error_code,
    response_code: row.response_code,
    progress: row.progress,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    user_id: row.user_id,
    external_id: row.external_id,
    associated_objects: [],
  };
}

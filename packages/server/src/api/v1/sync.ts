/**
 * `GET /api/v1/sync.json?since=<ISO 8601>&assets=routes,trips` (docs/contributors/decisions.md §2): what changed in the
 * caller's library since a time, deletions included, so a client can recover webhooks it missed
 * (docs/contributors/decisions.md §6). One item per asset, its last change, oldest first; `since=1970-01-01` gives the whole
 * library. `assets` defaults to the kinds the API client's webhook wants. `next_sync_url` repeats the
 * query with `since` set to `service_datetime`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PluginOptions } from '../../context.js';
import type { AssetType } from '../../db/schema.js';
import { badRequest, invalidField, type Problem } from '../../errors.js';
import { isoTime } from '../../iso-time.js';
import { ERRORS_SCHEMA } from './records.js';
import { assetUrl, v1UrlPrefix } from '../../v1-urls.js';
import { callerOf, v1Route } from './route.js';

const SYNC_QUERY_SCHEMA = {
  type: 'object',
  required: ['since'],
  properties: {
    since: {
      type: 'string',
      description: 'ISO 8601 date or date-time (no offset means UTC); 1970-01-01 for the whole library',
    },
    assets: {
      type: 'string',
      description: "comma-separated: routes, trips (default: the API client's webhook asset kinds)",
    },
  },
} as const;

const SYNC_SCHEMA = {
  type: 'object',
  title: 'SyncResult',
  description: 'The changes since the time asked, and where to ask next time.',
  required: ['items', 'meta'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        title: 'SyncItem',
        description: 'One change: the asset, what happened to it, and when.',
        required: ['item_type', 'item_id', 'item_user_id', 'item_url', 'action', 'datetime', 'collection'],
        properties: {
          item_type: { type: 'string', enum: ['route', 'trip'] },
          item_id: { type: 'integer' },
          item_user_id: { type: 'integer' },
          item_url: { type: 'string', format: 'uri' },
          action: { type: 'string', enum: ['created', 'updated', 'deleted'] },
          datetime: { type: 'string', format: 'date-time' },
          collection: { type: 'null' },
        },
      },
    },
    meta: {
      type: 'object',
      required: ['service_datetime', 'next_sync_url'],
      properties: {
        service_datetime: { type: 'string', format: 'date-time' },
        next_sync_url: {
          type: 'string',
          format: 'uri',
          description: 'the same query with `since` set to `service_datetime`',
        },
      },
    },
  },
} as const;

interface SyncQuery {
  since: string;
  assets?: string;
}

/** `routes`/`trips` as the query names them; the singular forms are accepted too. */
const ASSET_NAMES: Readonly<Record<string, AssetType>> = {
  routes: 'route',
  route: 'route',
  trips: 'trip',
  trip: 'trip',
};

export function syncRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  const prefix = v1UrlPrefix(context.options.baseUrl);

  v1Route(app, context, {
    method: 'GET',
    url: '/sync.json',
    auth: 'user',
    schema: {
      summary: "What changed in the caller's library since a time",
      tags: ['sync'],
      querystring: SYNC_QUERY_SCHEMA,
      response: { 200: SYNC_SCHEMA, 400: ERRORS_SCHEMA, 401: ERRORS_SCHEMA },
    },
    handler: async (request) => {
      const { user, client } = callerOf(request);
      const query = request.query as SyncQuery;
      const problems: Problem[] = [];
      const sinceMs = parseIsoTime(query.since);
      if (sinceMs === null)
        problems.push(invalidField('since must be an ISO 8601 date or time, e.g. 2026-03-01T12:00:00Z'));
      const kinds =
        query.assets === undefined ? defaultKinds(client.webhookAssets) : parseAssets(query.assets);
      if (kinds === null)
        problems.push(invalidField('assets must be a comma-separated list of routes, trips'));
      if (sinceMs === null || kinds === null) throw badRequest(problems);
      // Read before the query: a change stamped after this instant is in the next window (the window is
      // inclusive and next_sync_url starts at this time cut to whole seconds, so nothing falls between),
      // and one stamped before it but committed later cannot be (issue 18: on PostgreSQL this instant
      // waits for transactions still open; store/changes.ts).
      const serviceDatetime = isoTime(await context.store.changes.settledBefore());
      const changed = await context.store.changes.since(user.id, sinceMs, kinds);
      return {
        items: changed.map((asset) => ({
          item_type: asset.itemType,
          item_id: asset.itemId,
          item_user_id: asset.itemUserId,
          item_url: assetUrl(prefix, asset.itemType, asset.itemId),
          action: asset.action,
          datetime: isoTime(asset.at),
          collection: null,
        })),
        meta: {
          service_datetime: serviceDatetime,
          next_sync_url: nextSyncUrl(request, prefix, serviceDatetime),
        },
      };
    },
  });
  return Promise.resolve();
}

/** The client's webhook asset kinds; both when it has chosen none (it still asked to sync something). */
function defaultKinds(kinds: readonly AssetType[]): AssetType[] {
  return kinds.length > 0 ? [...kinds] : ['route', 'trip'];
}

function parseAssets(text: string): AssetType[] | null {
  const kinds = new Set<AssetType>();
  for (const name of text.split(',')) {
    const trimmed = name.trim().toLowerCase();
    if (trimmed === '') continue;
    const kind = ASSET_NAMES[trimmed];
    if (kind === undefined) return null;
    kinds.add(kind);
  }
  return kinds.size === 0 ? null : [...kinds];
}

/** This request again, on the public base URL, with `since` replaced; other parameters kept as sent. */
function nextSyncUrl(request: FastifyRequest, prefix: string, since: string): string {
  const [path = '', search = ''] = request.url.split('?', 2);
  const params = new URLSearchParams(search);
  params.set('since', since);
  // The path as routed, relative to /api/v1 (the route answers with and without .json).
  const endpoint = path.slice(path.indexOf('/sync'));
  return `${prefix}${endpoint}?${params.toString()}`;
}

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Unix milliseconds of an ISO 8601 date (midnight UTC) or date-time (UTC when it names no offset), or
 * null. A "+01:00" offset whose "+" arrived as a space (an unencoded query string) is read as "+".
 */
export function parseIsoTime(text: string): number | null {
  const match = ISO_TIME.exec(
    text.trim().replace(/(T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}(?::?\d{2})?)$/i, '$1+$2'),
  );
  if (match === null) return null;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', offset = 'Z'] = match;
  const date = Date.UTC(Number(year), Number(month) - 1, Number(day));
  const calendar = new Date(date);
  if (calendar.getUTCDate() !== Number(day) || calendar.getUTCMonth() !== Number(month) - 1) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  const milliseconds = fraction === '' ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  let offsetMinutes = 0;
  if (offset.toUpperCase() !== 'Z') {
    const digits = offset.slice(1).replace(':', '');
    offsetMinutes =
      (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * (offset[0] === '-' ? -1 : 1);
  }
  return (
    date + ((Number(hour) * 60 + Number(minute) - offsetMinutes) * 60 + Number(second)) * 1000 + milliseconds
  );
}

/**
 * The endpoints routes and trips share (docs/contributors/decisions.md §2): the owner's library as a paginated index,
 * the single record with its `track_points`, and delete. routes.ts and trips.ts register them.
 *
 * Who sees what (docs/contributors/decisions.md §1): the index lists the caller's own assets; another user's asset is
 * shown when it is public and is a 403 otherwise (private, friends_only); only the owner deletes; an
 * unknown id is a 404.
 *
 * The bodies are put together as text from what the data-access layer keeps rendered: the records'
 * JSON and the points' JSON (store/asset-records.ts, store/track-points.ts). A page of 200 records or a
 * trip of 10,000 points is then copied, not rebuilt, on every request (issue 4's bench/api targets).
 * The response schemas below describe the result for the OpenAPI document; Fastify does not serialise
 * a body that is already text or bytes.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ServerContext } from '../../context.js';
import type { AssetType } from '../../db/schema.js';
import { forbidden, notFound } from '../../errors.js';
import { sendOriginal } from '../../original-download.js';
import { jsonBody, recordWithPointsJson } from '../../store/record-body.js';
import { VersionedCache } from '../../versioned-cache.js';
import { pageOf, PAGINATION_QUERY_SCHEMA, paginationMeta, type PaginationQuery } from './pagination.js';
import {
  assetRecordJson,
  assetRecordUrl,
  errorResponses,
  ID_PARAMS_SCHEMA,
  NO_CONTENT_SCHEMA,
  listResponseSchema,
  ROUTE_SCHEMA,
  ROUTE_WITH_POINTS_SCHEMA,
  TRIP_SCHEMA,
  TRIP_WITH_POINTS_SCHEMA,
} from './records.js';
import { v1UrlPrefix } from '../../v1-urls.js';
import { callerOf, v1Route } from './route.js';

const KINDS = {
  route: { plural: 'routes', schema: ROUTE_SCHEMA, schemaWithPoints: ROUTE_WITH_POINTS_SCHEMA },
  trip: { plural: 'trips', schema: TRIP_SCHEMA, schemaWithPoints: TRIP_WITH_POINTS_SCHEMA },
} as const;

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/**
 * Rendered index pages kept per asset type, by bytes (issue 22: every cache bounded by its size, not by
 * what the database holds): 8 MB, 16 MB for routes and trips together. That is about forty pages of
 * 200 records, or hundreds of the default 20; the pages read again and again stay. A page of an older
 * version is never served again, yet it stays until newer pages push it out, so the cache fills to this
 * bound as a library is read and changes: a part of the server's memory that rises after start and
 * then stays level (docs/operators/memory.md).
 */
const PAGE_CACHE_BYTES = 8 * 1024 * 1024;

interface IdParams {
  id: number;
}

export function registerAssetEndpoints(app: FastifyInstance, context: ServerContext, type: AssetType): void {
  const { plural, schema, schemaWithPoints } = KINDS[type];
  const { store } = context;
  const prefix = v1UrlPrefix(context.options.baseUrl);
  const listUrl = `${prefix}/${plural}.json`;
  const recordUrl = assetRecordUrl(prefix, type);
  // Pages as sent, versioned by the owner's newest change of this asset type (store/changes.ts): every
  // write that could change a page (its records, their order, the count) logs a change.
  const pages = new VersionedCache<Buffer>(PAGE_CACHE_BYTES, (body) => body.length);

  v1Route(app, context, {
    method: 'GET',
    url: `/${plural}.json`,
    auth: 'user',
    schema: {
      summary: `The caller's ${plural}, newest change first`,
      tags: [plural],
      querystring: PAGINATION_QUERY_SCHEMA,
      response: {
        200: listResponseSchema(plural, schema),
        ...errorResponses(400, 401),
      },
    },
    handler: async (request, reply: FastifyReply) => {
      const { user } = callerOf(request);
      const query = request.query as PaginationQuery;
      reply.type(JSON_CONTENT_TYPE);
      // The version first, then the page (see versioned-cache.ts).
      const version = await store.changes.latestChangeId(user.id, type);
      const key = `${user.id}:${query.page}:${query.page_size}`;
      const cached = pages.get(key, version);
      if (cached !== undefined) return reply.send(cached);
      const { total, items } = await store.assets.listRecordsJson(type, user.id, pageOf(query), recordUrl);
      const meta = JSON.stringify({ pagination: paginationMeta(query, total, listUrl) });
      const body = Buffer.from(`{"${plural}":[${items}],"meta":${meta}}`);
      pages.set(key, version, body);
      return reply.send(body);
    },
  });

  v1Route(app, context, {
    method: 'GET',
    url: `/${plural}/:id.json`,
    auth: 'user',
    schema: {
      summary: `One ${type} with its track points`,
      tags: [plural],
      params: ID_PARAMS_SCHEMA,
      response: {
        200: { type: 'object', required: [type], properties: { [type]: schemaWithPoints } },
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply: FastifyReply) => {
      const { user } = callerOf(request);
      const { id } = request.params as IdParams;
      const found = await store.assets.findRecordWithPoints(type, id);
      if (found === undefined) throw notFound(`${type} ${id} not found`);
      if (found.userId !== user.id && found.visibility !== 'public') {
        throw forbidden(`${type} ${id} belongs to another user and is not public`);
      }
      const record = assetRecordJson(prefix, type, found.json);
      return reply.type(JSON_CONTENT_TYPE).send(jsonBody(recordWithPointsJson(type, record, found.points)));
    },
  });

  // Issue 20, "Original files": the file as uploaded. Only its owner: the file may say more than the
  // record shows (a device's serial number, points the owner has since cut), so a public ride's
  // original is still a 403 for others.
  v1Route(app, context, {
    method: 'GET',
    url: `/${plural}/:id/original`,
    file: true,
    auth: 'user',
    schema: {
      summary: `The file one of the caller's ${plural} was read from, as uploaded`,
      tags: [plural],
      params: ID_PARAMS_SCHEMA,
      response: {
        200: {
          description:
            'the file as uploaded, with its name in Content-Disposition and its format as the content type',
          type: 'string',
          format: 'binary',
        },
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply: FastifyReply) => {
      const { user } = callerOf(request);
      const { id } = request.params as IdParams;
      const row = await store.assets.find(type, id);
      if (row === undefined) throw notFound(`${type} ${id} not found`);
      if (row.user_id !== user.id)
        throw forbidden(`only its owner can download the original of ${type} ${id}`);
      const file = await store.originalFiles.ofAsset(type, id);
      if (file === undefined) {
        throw notFound(`${type} ${id} has no original file: it was not made from an uploaded file`);
      }
      return sendOriginal(reply, file, `${type}-${id}`);
    },
  });

  v1Route(app, context, {
    method: 'DELETE',
    url: `/${plural}/:id.json`,
    auth: 'user',
    schema: {
      summary: `Delete one of the caller's ${plural}`,
      tags: [plural],
      params: ID_PARAMS_SCHEMA,
      response: {
        204: NO_CONTENT_SCHEMA,
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply: FastifyReply) => {
      const { user } = callerOf(request);
      const { id } = request.params as IdParams;
      const row = await store.assets.find(type, id);
      if (row === undefined) throw notFound(`${type} ${id} not found`);
      if (row.user_id !== user.id) throw forbidden(`only its owner can delete ${type} ${id}`);
      await store.assets.delete(type, id, user.id);
      return reply.code(204).send();
    },
  });
}

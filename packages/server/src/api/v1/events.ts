/**
 * Events (docs/contributors/decisions.md §2): `GET /api/v1/events.json` (the caller's events, paginated), `POST
 * /api/v1/events.json`, `GET`/`PATCH`/`DELETE /api/v1/events/{id}.json`. `name` and `start_date` are
 * required: a 422 lists every missing or invalid field at once (docs/integrators/api.md, Errors). Visibility as
 * for routes and trips: another user's public event is shown, any other is a 403; only the organiser
 * changes or deletes an event.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PluginOptions } from '../../context.js';
import type { EventRow } from '../../db/schema.js';
import { badRequest, forbidden, notFound, unprocessable } from '../../errors.js';
import type { ServerContext } from '../../context.js';
import { validationProblems } from './errors.js';
import { EVENT_BODY_SCHEMA, isObject, readEventInput } from './event-input.js';
import { pageOf, PAGINATION_QUERY_SCHEMA, paginationMeta, type PaginationQuery } from './pagination.js';
import {
  errorResponses,
  ERRORS_SCHEMA,
  EVENT_SCHEMA,
  eventRecord,
  ID_PARAMS_SCHEMA,
  NO_CONTENT_SCHEMA,
  listResponseSchema,
} from './records.js';
import { v1UrlPrefix } from '../../v1-urls.js';
import { callerOf, v1Route } from './route.js';
import type { EventFields } from '../../store/index.js';

interface IdParams {
  id: number;
}

const ONE_EVENT_SCHEMA = {
  type: 'object',
  required: ['event'],
  properties: { event: EVENT_SCHEMA },
} as const;
const TAGS = ['events'];

/**
 * Body errors are this endpoint's to report (422, all at once, see event-input.ts); a bad path
 * parameter stays a 400 like everywhere else in v1.
 */
function rejectInvalidParams(request: FastifyRequest): void {
  const error = request.validationError;
  if (error !== undefined && error.validationContext !== 'body') throw badRequest(validationProblems(error));
}

/** Clients send the fields inside `event` or at the top level; validation and coercion see one shape. */
function wrapEventBody(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const body = request.body;
  if (isObject(body) && !('event' in body)) request.body = { event: body };
  done();
}

/**
 * The body as an object: none at all counts as an empty one (so a bare POST hears which fields are
 * required); JSON that is not an object is a malformed request.
 */
function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body ?? {};
  if (!isObject(body)) throw badRequest('the body must be a JSON object');
  return body;
}

export function eventsRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  const { store } = context;
  const listUrl = `${v1UrlPrefix(context.options.baseUrl)}/events.json`;

  v1Route(app, context, {
    method: 'GET',
    url: '/events.json',
    auth: 'user',
    schema: {
      summary: "The caller's events, newest change first",
      tags: TAGS,
      querystring: PAGINATION_QUERY_SCHEMA,
      response: {
        200: listResponseSchema('events', EVENT_SCHEMA),
        ...errorResponses(400, 401),
      },
    },
    handler: async (request) => {
      const { user } = callerOf(request);
      const query = request.query as PaginationQuery;
      const { rows, total } = await store.events.listByOwner(user.id, pageOf(query));
      return { events: rows.map(eventRecord), meta: { pagination: paginationMeta(query, total, listUrl) } };
    },
  });

  v1Route(app, context, {
    method: 'POST',
    url: '/events.json',
    auth: 'user',
    attachValidation: true,
    preValidation: wrapEventBody,
    schema: {
      summary: 'Create an event',
      tags: TAGS,
      body: EVENT_BODY_SCHEMA,
      response: { 201: ONE_EVENT_SCHEMA, 400: ERRORS_SCHEMA, 401: ERRORS_SCHEMA, 422: ERRORS_SCHEMA },
    },
    handler: async (request, reply: FastifyReply) => {
      rejectInvalidParams(request);
      const { user } = callerOf(request);
      const input = readEventInput(bodyOf(request));
      if (!input.ok) throw unprocessable(input.problems);
      // readEventInput guarantees name, start_date and visibility when creating.
      const fields = {
        description: null,
        location: null,
        url: null,
        end_date: null,
        ...input.fields,
      } as EventFields;
      const row = await store.events.create(user.id, fields);
      return reply.code(201).send({ event: eventRecord(row) });
    },
  });

  v1Route(app, context, {
    method: 'GET',
    url: '/events/:id.json',
    auth: 'user',
    schema: {
      summary: 'One event',
      tags: TAGS,
      params: ID_PARAMS_SCHEMA,
      response: {
        200: ONE_EVENT_SCHEMA,
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request) => {
      const { user } = callerOf(request);
      const row = await findEvent(context, (request.params as IdParams).id);
      if (row.user_id !== user.id && row.visibility !== 'public') {
        throw forbidden(`event ${row.id} belongs to another user and is not public`);
      }
      return { event: eventRecord(row) };
    },
  });

  // PATCH per docs/contributors/decisions.md §2; PUT as well, since Rails-style clients send either for an update.
  for (const method of ['PATCH', 'PUT'] as const) {
    v1Route(app, context, {
      method,
      url: '/events/:id.json',
      auth: 'user',
      attachValidation: true,
      preValidation: wrapEventBody,
      schema: {
        summary:
          method === 'PATCH' ? 'Change an event (only the fields given)' : 'Change an event (as PATCH)',
        tags: TAGS,
        params: ID_PARAMS_SCHEMA,
        body: EVENT_BODY_SCHEMA,
        response: {
          200: ONE_EVENT_SCHEMA,
          ...errorResponses(400, 401, 403, 404, 422),
        },
      },
      handler: async (request) => {
        rejectInvalidParams(request);
        const { user } = callerOf(request);
        const row = await findEvent(context, (request.params as IdParams).id);
        if (row.user_id !== user.id) throw forbidden(`only its organiser can change event ${row.id}`);
        const input = readEventInput(bodyOf(request), row);
        if (!input.ok) throw unprocessable(input.problems);
        const updated = await store.events.update(row.id, input.fields);
        if (updated === undefined) throw notFound(`event ${row.id} not found`);
        return { event: eventRecord(updated) };
      },
    });
  }

  v1Route(app, context, {
    method: 'DELETE',
    url: '/events/:id.json',
    auth: 'user',
    schema: {
      summary: 'Delete one of the caller’s events',
      tags: TAGS,
      params: ID_PARAMS_SCHEMA,
      response: {
        204: NO_CONTENT_SCHEMA,
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply: FastifyReply) => {
      const { user } = callerOf(request);
      const row = await findEvent(context, (request.params as IdParams).id);
      if (row.user_id !== user.id) throw forbidden(`only its organiser can delete event ${row.id}`);
      await store.events.delete(row.id);
      return reply.code(204).send();
    },
  });

  return Promise.resolve();
}

async function findEvent(context: ServerContext, id: number): Promise<EventRow> {
  const row = await context.store.events.findById(id);
  if (row === undefined) throw notFound(`event ${id} not found`);
  return row;
}

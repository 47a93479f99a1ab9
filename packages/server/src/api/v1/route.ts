/**
 * Registering v1 routes: every path that answers JSON answers with and without its `.json` extension
 * (docs/integrators/api.md, Conventions: JSON is selected by the content type or the extension); one that
 * answers a file (an original upload, issue 20) has no extension and answers only there, so no `.json`
 * path ever sends anything but JSON. Every route says which credentials it needs, checked before the
 * handler runs.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { callingClient, v1Caller, type Caller } from '../../auth/credentials.js';
import type { ServerContext } from '../../context.js';
import { V1_CLIENT_SECURITY, V1_USER_SECURITY } from '../../openapi.js';
import { badRequest, invalidField } from '../../errors.js';
import type { ApiClient } from '../../store/index.js';
import { readWholeNumber, wholeNumberProblem, type WholeNumberRange } from '../../whole-numbers.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the authenticated user and client, on routes with `auth: 'user'` */
    caller: Caller | null;
    /** the calling API client, on routes with `auth: 'client'` or `'user'` */
    apiClient: ApiClient | null;
  }
}

export type V1Auth = 'user' | 'client';

export interface V1RouteOptions extends Omit<RouteOptions, 'url' | 'onRequest'> {
  /**
   * the path relative to /api/v1: with its `.json` extension, or, for a route that answers a file
   * (`file`), without any
   */
  url: string;
  auth: V1Auth;
  /** answers a file, not JSON: served at `url` only */
  file?: boolean;
}

/** Adds the request fields the v1 routes fill. Call once on the v1 scope. */
export function decorateV1Requests(app: FastifyInstance): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('apiClient', null);
}

export function v1Route(
  app: FastifyInstance,
  context: ServerContext,
  { auth, url, file = false, ...route }: V1RouteOptions,
): void {
  if (url.endsWith('.json') === file) {
    throw new TypeError(`v1 route ${url}: a path ends in .json exactly when it answers JSON (file: ${file})`);
  }
  // Credentials are checked as the request arrives, before its body is read or validated: a caller
  // without them learns 401 (docs/contributors/decisions.md §1), not what would have been wrong with the request.
  const onRequest = async (request: FastifyRequest): Promise<void> => {
    if (auth === 'user') {
      request.caller = await v1Caller(request, context.store);
      request.apiClient = request.caller.client;
    } else {
      request.apiClient = await callingClient(request, context.store);
    }
  };
  const preValidation = wholeNumberPathIds(route.schema?.params);
  // Issue 20: the OpenAPI document says which credentials each operation accepts.
  const security = auth === 'user' ? V1_USER_SECURITY : V1_CLIENT_SECURITY;
  const tags = ['v1'];
  app.route({ ...route, url, onRequest, ...preValidation, schema: { tags, security, ...route.schema } });
  if (file) return;
  // The same route without the extension; hidden from the OpenAPI document, which lists the .json form.
  app.route({
    ...route,
    url: url.slice(0, -'.json'.length),
    onRequest,
    ...preValidation,
    schema: { tags, security, ...route.schema, hide: true },
  });
}

/**
 * Ids in the path as decimal digits only (issue 17, whole-numbers.ts): Ajv's coercion would read
 * `0x1` as 1 (its string is loosely equal to the number), so the ids the params schema types as
 * whole numbers are read from the path as sent, before Ajv sees them, and any other spelling is a 400
 * naming the id.
 */
function wholeNumberPathIds(params: unknown): Pick<RouteOptions, 'preValidation'> {
  type Property = { type?: unknown; minimum?: unknown; maximum?: unknown };
  const properties = (params as { properties?: Record<string, Property> } | undefined)?.properties ?? {};
  const ranges = Object.entries(properties).flatMap(([name, schema]): [string, WholeNumberRange][] =>
    schema.type === 'integer' && typeof schema.minimum === 'number' && typeof schema.maximum === 'number'
      ? [[name, { min: schema.minimum, max: schema.maximum }]]
      : [],
  );
  if (ranges.length === 0) return {};
  return {
    preValidation: (request: FastifyRequest) => {
      const sent = request.params as Record<string, unknown>;
      for (const [name, range] of ranges) {
        if (readWholeNumber(sent[name], range) === undefined) {
          return Promise.reject(badRequest([invalidField(wholeNumberProblem(name, range))]));
        }
      }
      return Promise.resolve();
    },
  };
}

/** The caller of a route registered with `auth: 'user'`. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw new Error('callerOf used on a route without auth: user');
  return request.caller;
}

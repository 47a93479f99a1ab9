/**
 * Registering v1 routes: every path answers with and without its `.json` extension (platform-api.md,
 * Conventions: JSON is selected by the content type or the extension), and every route says which
 * credentials it needs, checked before the handler runs.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { callingClient, v1Caller, type Caller } from '../../auth/credentials.js';
import type { ServerContext } from '../../context.js';
import type { ApiClient } from '../../store/index.js';

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
  /** the path with its `.json` extension, relative to /api/v1 */
  url: `${string}.json`;
  auth: V1Auth;
}

/** Adds the request fields the v1 routes fill. Call once on the v1 scope. */
export function decorateV1Requests(app: FastifyInstance): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('apiClient', null);
}

export function v1Route(
  app: FastifyInstance,
  context: ServerContext,
  { auth, url, ...route }: V1RouteOptions,
): void {
  // Credentials are checked as the request arrives, before its body is read or validated: a caller
  // without them learns 401 (decisions.md §1), not what would have been wrong with the request.
  const onRequest = async (request: FastifyRequest): Promise<void> => {
    if (auth === 'user') {
      request.caller = await v1Caller(request, context.store);
      request.apiClient = request.caller.client;
    } else {
      request.apiClient = await callingClient(request, context.store);
    }
  };
  app.route({ ...route, url, onRequest });
  // The same route without the extension; hidden from the OpenAPI document, which lists the .json form.
  app.route({
    ...route,
    url: url.slice(0, -'.json'.length),
    onRequest,
    schema: { ...route.schema, hide: true },
  });
}

/** The caller of a route registered with `auth: 'user'`. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw new Error('callerOf used on a route without auth: user');
  return request.caller;
}

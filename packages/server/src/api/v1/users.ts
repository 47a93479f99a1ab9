/** `GET /api/v1/users/current.json`: the authenticated user under the root key `user`. */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../../context.js';
import { ERRORS_SCHEMA, USER_SCHEMA, userRecord } from './records.js';
import { callerOf, v1Route } from './route.js';

export function usersRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  v1Route(app, context, {
    method: 'GET',
    url: '/users/current.json',
    auth: 'user',
    schema: {
      summary: 'The authenticated user',
      response: {
        200: { type: 'object', required: ['user'], properties: { user: USER_SCHEMA } },
        401: ERRORS_SCHEMA,
      },
    },
    handler: (request) => {
      const { user } = callerOf(request);
      return Promise.resolve({ user: userRecord(user, user.id) });
    },
  });
  return Promise.resolve();
}

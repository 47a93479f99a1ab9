/**
 * `buildServer(options)` (issue 4): the Fastify app of the Route and Ride Platform API, not yet
 * listening. Opens (and migrates) the database, and closes it when the app closes.
 */
import cookie from '@fastify/cookie';
import formBody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { v1Api } from './api/v1/index.js';
import { registerRateLimiting } from './auth/rate-limit.js';
import type { ServerContext } from './context.js';
import { openDatabase } from './db/open.js';
import { loadMasterKey } from './master-key.js';
import { oauthApi } from './oauth/index.js';
import { resolveOptions, type ServerOptions } from './options.js';
import { csrfHmacKey, registerCsrf, webPages } from './pages/index.js';
import { Store } from './store/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the data-access layer and options the app was built with (for the admin commands and tests) */
    rideport: ServerContext;
  }
}

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const resolved = resolveOptions(options);
  const database = await openDatabase(resolved.databasePath);
  const masterKey = options.masterKey ?? loadMasterKey(resolved.databasePath);
  const context: ServerContext = { store: new Store(database.db, resolved, masterKey), options: resolved };

  const app = Fastify({
    logger: options.logger ?? false,
    // Ajv: coerce query strings to the schema's types, but never strip or invent body fields silently.
    ajv: {
      customOptions: { coerceTypes: true, removeAdditional: false, useDefaults: true, allErrors: true },
    },
    return503OnClosing: true,
  });
  app.decorate('rideport', context);
  app.addHook('onClose', () => database.close());
  // decisions.md §2: every response says when it was made, in the server's clock.
  app.addHook('onSend', (_request, reply, payload, done) => {
    void reply.header(
      'x-service-datetime',
      new Date(resolved.clock()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    );
    done(null, payload);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Route and Ride Platform API (Rideport)',
        version: '1',
        description: 'The v1 interface of the Route and Ride Platform API, as served by Rideport.',
      },
      servers: [{ url: resolved.baseUrl.origin }],
    },
  });
  await app.register(formBody);
  // Sessions and CSRF for the pages and the consent form; rate limits before the routes they limit.
  await app.register(cookie);
  await registerCsrf(app, { secureCookies: resolved.secureCookies, hmacKey: csrfHmacKey(masterKey) });
  await registerRateLimiting(app, context);
  await app.register(v1Api, { prefix: '/api/v1', context });
  await app.register(oauthApi, { context });
  await app.register(webPages, { context });
  return app;
}

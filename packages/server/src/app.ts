/**
 * `buildServer(options)` (issue 4): the Fastify app of the Route and Ride Platform API, not yet
 * listening. Opens (and migrates) the database, and closes it when the app closes.
 */
import cookie from '@fastify/cookie';
import formBody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { v1Api } from './api/v1/index.js';
import { legacyApi } from './legacy/index.js';
import { registerRateLimiting } from './auth/rate-limit.js';
import type { PagePlugin, ServerContext } from './context.js';
import { limitConnections } from './connection-limits.js';
import { isoTime } from './iso-time.js';
import { oauthApi } from './oauth/index.js';
import { openApiOptions } from './openapi.js';
import { resolveOptions, type ServerOptions } from './options.js';
import { csrfHmacKey, registerCsrf, webPages } from './pages/index.js';
import { issueSignInLink } from './pages/sign-in-link.js';
import { openStore } from './platform.js';
import { refuseUnboundedNumbers } from './whole-numbers.js';
import { registerUploadQueue } from './queue/index.js';
import { WebhookDispatcher } from './webhooks/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the data-access layer and options the app was built with (for the admin commands and tests) */
    rideport: ServerContext;
  }
}

/** The server's options, and the host's plugins of pages (issue 35: the dashboard is one). */
export interface BuildServerOptions extends ServerOptions {
  /** registered beside the server's own pages, in their scope (CSRF, HTML errors); default none */
  pages?: readonly PagePlugin[];
}

export async function buildServer(options: BuildServerOptions): Promise<FastifyInstance> {
  const resolved = resolveOptions(options);
  const { store, masterKey, database } = await openStore(resolved, options.masterKey, {
    backgroundCheckpoints: true,
  });
  const context: ServerContext = {
    store,
    options: resolved,
    signInLink: (userId, next) => issueSignInLink(store, resolved.baseUrl, userId, next),
  };

  const { connections } = resolved;
  const app = Fastify({
    logger: options.logger ?? false,
    // Issue 17: how long a header, a request, a keep-alive and a silent connection may take
    // (options.ts, ConnectionLimits). Node checks the header and request times every
    // connectionsCheckingInterval (30 s by default, which would triple a 10 s header timeout).
    http: {
      headersTimeout: connections.headerTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, connections.headerTimeoutMs),
    },
    requestTimeout: connections.requestTimeoutMs,
    keepAliveTimeout: connections.keepAliveTimeoutMs,
    connectionTimeout: connections.idleTimeoutMs,
    // Ajv: coerce query strings to the schema's types, but never strip or invent body fields silently.
    // Issue 17: Ajv coerces "Infinity" and "1e309" to Infinity, and with strictNumbers on it then skips
    // minimum and maximum (they only look at finite numbers), so Infinity passed as a page size. With
    // it off the bounds apply to every number, and refuseUnboundedNumbers (below) makes sure every
    // number a request carries has both. `verbose` gives each error its schema, for the error's words.
    ajv: {
      customOptions: {
        coerceTypes: true,
        removeAdditional: false,
        useDefaults: true,
        allErrors: true,
        strictNumbers: false,
        verbose: true,
      },
    },
    return503OnClosing: true,
  });
  app.decorate('rideport', context);
  limitConnections(app.server, connections, app.log);
  app.addHook('onRoute', refuseUnboundedNumbers);
  if (options.onRoute !== undefined) app.addHook('onRoute', options.onRoute);
  app.addHook('onClose', async () => {
    await context.store.close();
    await database.close();
  });
  // After the database's hook: onClose hooks run in reverse, so the queue stops while the database is open.
  registerUploadQueue(app, context);
  // Webhooks (docs/contributors/decisions.md §6): delivered while the server is ready; stopped in preClose, which runs
  // before the onClose hooks, so the dispatcher is done with the database before it closes.
  const webhooks = new WebhookDispatcher(context, app.log);
  app.addHook('onReady', () => webhooks.start());
  app.addHook('preClose', () => webhooks.stop());
  // docs/contributors/decisions.md §2: every response says when it was made, in the server's clock.
  const serviceDateTime = secondsStamp(resolved.clock);
  app.addHook('onSend', (_request, reply, payload, done) => {
    void reply.header('x-service-datetime', serviceDateTime());
    done(null, payload);
  });

  // Issue 20: the document describes every API route; openapi.ts holds its shared parts.
  await app.register(swagger, openApiOptions(resolved.baseUrl.origin));
  await app.register(formBody);
  // Sessions and CSRF for the pages and the consent form; rate limits before the routes they limit.
  await app.register(cookie);
  await registerCsrf(app, { secureCookies: resolved.secureCookies, hmacKey: csrfHmacKey(masterKey) });
  await registerRateLimiting(app, context);
  await app.register(v1Api, { prefix: '/api/v1', context });
  await app.register(oauthApi, { context });
  await app.register(webPages, { context, pages: options.pages ?? [] });
  await app.register(legacyApi, { context });
  // Outside /api/v1 (which answers its own 404s): a legacy client gets {"error"}, anything else text.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    const message = `no such endpoint: ${request.method} ${path}`;
    return path.endsWith('.json') || path.endsWith('.js')
      ? reply.code(404).send({ error: message })
      : reply.code(404).type('text/plain; charset=utf-8').send(`${message}\n`);
  });
  return app;
}

/**
 * The clock's time in ISO 8601 UTC to the second, formatted once per second rather than for every
 * response (issue 4's bench/api: the hook runs on every request).
 */
function secondsStamp(clock: () => number): () => string {
  let second = Number.NaN;
  let stamp = '';
  return () => {
    const now = Math.floor(clock() / 1000);
    if (now !== second) {
      second = now;
      stamp = isoTime(now * 1000);
    }
    return stamp;
  };
}

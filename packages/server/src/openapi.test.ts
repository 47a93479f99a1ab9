/**
 * The OpenAPI document at /api/v1/openapi.json (issue 20, "OpenAPI"): a valid OpenAPI 3.1 document
 * (checked by @seriousme/openapi-schema-validator), listing every route the server registers except
 * the web pages, each operation with the credentials it accepts, and those credentials as the code
 * checks them: an operation that needs any refuses a request without them.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import type { HTTPMethods, InjectOptions, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_ERROR_CODES } from './errors.js';
import type { LocalSync } from './ports/local-sync.js';
import { createPerson, credentialsFor, testServer, type TestServer } from './test-support/server.js';

/**
 * Web pages, not API (issue 20): the dashboard and its sync page, sign-in and its links, developer and
 * organization settings, static assets and icons. They answer HTML for people and are left out of the
 * document; anything else the server registers must be in it.
 */
const NON_API_PREFIXES = [
  '/dashboard',
  '/sign_in',
  '/sign_out',
  '/sign-in/',
  '/developer',
  '/organizations/',
  '/assets/',
  '/favicon.',
] as const;
/** The home page, at exactly this path. */
const HOME_PAGE = '/';

function isPage(url: string): boolean {
  return url === HOME_PAGE || NON_API_PREFIXES.some((prefix) => url.startsWith(prefix));
}

/** The methods `inject` sends (light-my-request's list, narrower than Fastify's). */
type InjectMethod = NonNullable<InjectOptions['method']>;

interface Operation {
  security?: Record<string, string[]>[];
  summary?: string;
  tags?: string[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }>;
  };
}

/**
 * Only route registration matters here: the local sync routes exist only on a server with a sync
 * engine, and none of these is called (a call would fail the test).
 */
function unusedLocalSync(): LocalSync {
  const never = (): never => {
    throw new Error('the OpenAPI test calls no local sync route');
  };
  return {
    userId: null,
    status: never,
    syncNow: never,
    pause: never,
    resume: never,
    retry: never,
    retryFailed: never,
    chooseImport: never,
    addFolder: never,
    removeSource: never,
    restoreSource: never,
    tripSources: never,
  };
}

interface Registered {
  method: string;
  url: string;
}

let server: TestServer;
let registered: Registered[];
let document: Document;

beforeAll(async () => {
  const routes: Registered[] = [];
  const onRoute = (route: RouteOptions): void => {
    const methods: HTTPMethods[] = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method, url: route.url });
  };
  server = await testServer({ onRoute, localSync: unusedLocalSync() });
  registered = routes;
  const response = await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(response.statusCode).toBe(200);
  document = response.json<Document>();
});

afterAll(async () => {
  await server.close();
});

/** `/users/:id.json` as the document writes it: `/users/{id}.json`. */
function documentPath(url: string): string {
  return url.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

/**
 * The routes the document must list: not pages, not the HEAD Fastify adds to every GET (answered
 * as the GET), and not a v1 path without `.json` that repeats its `.json` form (route.ts).
 */
function apiRoutes(): Registered[] {
  const keys = new Set(registered.map(({ method, url }) => `${method} ${url}`));
  return registered.filter(
    ({ method, url }) =>
      method !== 'HEAD' && !isPage(url) && !(url.startsWith('/api/v1/') && keys.has(`${method} ${url}.json`)),
  );
}

function operations(): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(
      document as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('lists every API route Fastify registers, with its method, and no page', () => {
    const api = apiRoutes();
    // v1, legacy (both forms), OAuth: a sample of each, so an empty registration cannot pass.
    const urls = new Set(api.map(({ url }) => url));
    for (const url of [
      '/api/v1/trips.json',
      '/trips.js',
      '/trips.json',
      '/oauth/token.json',
      '/oauth/authorize',
    ]) {
      expect(urls).toContain(url);
    }
    const missing = api
      .filter(({ method, url }) => document.paths[documentPath(url)]?.[method.toLowerCase()] === undefined)
      .map(({ method, url }) => `${method} ${url}`);
    expect(missing).toEqual([]);
    const pages = Object.keys(document.paths).filter(isPage);
    expect(pages).toEqual([]);
  });

  it('lists nothing the server does not serve', () => {
    const served = new Set(apiRoutes().map(({ method, url }) => `${method} ${documentPath(url)}`));
    const extra = operations()
      .map(({ method, path }) => `${method} ${path}`)
      .filter((key) => !served.has(key));
    expect(extra).toEqual([]);
  });

  it('describes every v1 error answer with `error_codes` beside `errors`, their enum the catalogue (issue 35)', () => {
    const v1Errors = operations().flatMap(({ method, path, operation }) =>
      path.startsWith('/api/v1/')
        ? Object.entries(operation.responses ?? {})
            .filter(([status]) => Number(status) >= 400)
            .map(([status, response]) => ({
              where: `${method} ${path} ${status}`,
              schema: response.content?.['application/json']?.schema,
            }))
        : [],
    );
    expect(v1Errors.length).toBeGreaterThan(20);
    for (const { where, schema } of v1Errors) {
      expect(schema, where).toEqual({
        type: 'object',
        required: ['errors', 'error_codes'],
        properties: {
          errors: { type: 'array', items: { type: 'string' }, description: expect.any(String) as string },
          error_codes: {
            type: 'array',
            items: { type: 'string', enum: [...HTTP_ERROR_CODES] },
            description: expect.any(String) as string,
          },
        },
      });
    }
  });

  it('lists each legacy endpoint as JSON and as JSONP', () => {
    const legacy = operations().filter(({ operation }) => operation.tags?.includes('legacy') === true);
    expect(legacy.length).toBeGreaterThan(0);
    const keys = new Set(legacy.map(({ method, path }) => `${method} ${path}`));
    for (const { method, path } of legacy) {
      const twin = path.endsWith('.json')
        ? `${path.slice(0, -'.json'.length)}.js`
        : `${path.slice(0, -'.js'.length)}.json`;
      expect(keys, `${method} ${path}`).toContain(`${method} ${twin}`);
    }
  });

  it('says for every operation which credentials it accepts, each a declared scheme', () => {
    const schemes = document.components.securitySchemes;
    expect(schemes).toMatchObject({
      basic: { type: 'http', scheme: 'basic' },
      bearer: { type: 'http', scheme: 'bearer' },
      serviceApiKey: { type: 'apiKey', in: 'header', name: 'x-service-api-key' },
      serviceAuthToken: { type: 'apiKey', in: 'header', name: 'x-service-auth-token' },
      legacyApiKey: { type: 'apiKey', in: 'query', name: 'apikey' },
      legacyAuthToken: { type: 'apiKey', in: 'query', name: 'auth_token' },
    });
    for (const { method, path, operation } of operations()) {
      const where = `${method} ${path}`;
      expect(operation.security, where).toBeDefined();
      expect(operation.security!.length, where).toBeGreaterThan(0);
      expect(operation.summary, where).toBeTruthy();
      for (const requirement of operation.security!) {
        for (const name of Object.keys(requirement)) expect(Object.hasOwn(schemes, name), where).toBe(true);
      }
      const names = new Set(operation.security!.flatMap((requirement) => Object.keys(requirement)));
      if (path.startsWith('/api/v1/') && path !== '/api/v1/openapi.json') {
        expect(names, where).toContain('basic');
        expect(names, where).toContain('serviceApiKey');
      }
      if (operation.tags?.includes('legacy') === true) expect(names, where).toContain('legacyApiKey');
    }
    // A v1 route that acts for a user takes an OAuth access token; the one that makes auth tokens does not.
    const bearer = (path: string, method: string): boolean =>
      document.paths[path]![method]!.security!.some((requirement) => Object.hasOwn(requirement, 'bearer'));
    expect(bearer('/api/v1/trips.json', 'get')).toBe(true);
    expect(bearer('/api/v1/auth_tokens.json', 'post')).toBe(false);
  });

  // Issue 35: the upload's form fields, and the rule that the credentials come before the file.
  it.each(['/trips.json', '/trips.js'])('describes the fields of the upload form at POST %s', (path) => {
    const operation = document.paths[path]!['post'] as Operation & {
      description?: string;
      requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
    };
    const form = operation.requestBody?.content['multipart/form-data']?.schema.properties;
    expect(Object.keys(form ?? {}).sort()).toEqual(
      [
        'apikey',
        'auth_token',
        'data_file',
        'email',
        'external_id',
        'file',
        'password',
        'trip[description]',
        'trip[name]',
        'trip[visibility]',
      ].sort(),
    );
    expect(operation.description).toContain('must come before the file part');
  });

  it('is kept by the code: an operation that needs credentials refuses a request without them', async () => {
    const rider = await createPerson(server);
    const { apiKey } = await credentialsFor(server, rider);
    let checked = 0;
    for (const { method, path, operation } of operations()) {
      const url = path.replace(/\{\w+\}/g, '1');
      const where = `${method} ${path}`;
      const open = operation.security!.some((requirement) => Object.keys(requirement).length === 0);
      if (open) continue;
      const bare = await server.app.inject({ method: method as InjectMethod, url });
      expect(bare.statusCode, where).toBe(401);
      // Where a user is needed in every form, the API key alone is refused too.
      const keyAlone = operation.security!.some((requirement) => Object.keys(requirement).length === 1);
      if (!keyAlone) {
        const withKey = path.startsWith('/api/v1/')
          ? await server.app.inject({
              method: method as InjectMethod,
              url,
              headers: { 'x-service-api-key': apiKey },
            })
          : await server.app.inject({ method: method as InjectMethod, url, query: { apikey: apiKey } });
        expect(withKey.statusCode, where).toBe(401);
      }
      checked += 1;
    }
    expect(checked).toBeGreaterThan(40);
  });
});

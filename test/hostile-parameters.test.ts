/**
 * Issue 17, "Limits that an attacker can exhaust": every numeric parameter of every route is a finite
 * whole number in its documented range, else a 400 that names the parameter; no value a client can
 * send makes a route answer 500. The real server (file database, the real sync engine behind
 * LocalSync, as `rideport up` wires it) on a real socket; the routes are the ones Fastify registered
 * (printRoutes), so a route added later is probed too. Each route is called as the owner of the data
 * and as another user, with odd values in the query, in the path ids, and in form and JSON bodies.
 * Issue 35: every v1 error answer among them carries `error_codes`, one catalogue code per problem.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRideFile } from '@rideport/ridefile';
import { buildServer, SERVER_ERROR_CODES } from '@rideport/server';
import { SyncEngine } from '@rideport/sync';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './support/corpus.js';
import { listenWithEngine } from './support/engine-server.js';

/** Query and form values that are not a whole number in any documented range, or only barely. */
const ODD_TEXTS = [
  'Infinity',
  '-Infinity',
  '1e309',
  '-1e309',
  'NaN',
  '99999999999999999999999',
  '9007199254740993',
  '-1',
  '-0',
  '0',
  '1.5',
  '1e3',
  '0x10',
  '',
  ' ',
  'abc',
  '１',
] as const;
/** JSON body values; 1e309 and 1e400 are written as such in the JSON text and parse as Infinity. */
const ODD_JSON = [
  '1e309',
  '-1e309',
  '1e400',
  '-1',
  '1.5',
  '9.9e22',
  '"Infinity"',
  '"NaN"',
  '[1,2]',
  '{}',
  'null',
  'true',
  '""',
];
/** Path ids beside the real ones. */
const ODD_IDS = [
  '0',
  '-1',
  '1.5',
  '1e309',
  'Infinity',
  'NaN',
  '99999999999999999999999',
  '9007199254740993',
  '0x1',
  '%20',
];

/**
 * Parameter names a route may read: the numeric ones every family uses, and the other names routes
 * take (a name a route does not read must be ignored, also with an odd value).
 */
const NUMERIC_NAMES = ['page', 'page_size', 'limit', 'offset', 'version', 'ids', 'id', 'include_objects'];
const OTHER_NAMES = [
  'since',
  'assets',
  'callback',
  'trip[visibility]',
  'visibility',
  'track_points',
  'window',
  'days',
  'sha256',
  'source',
  'start_date',
];

interface RegisteredRoute {
  method: string;
  /** with `:name` path parameters */
  path: string;
}

/** Every method and path in Fastify's route tree (printRoutes without the common-prefix folding). */
function registeredRoutes(tree: string): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  const prefixes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?) \(([A-Z, ]+)\)$/u.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of match[3]!.split(', ')) routes.push({ method, path });
  }
  return routes;
}

interface Caller {
  name: 'owner' | 'other';
  headers: Record<string, string>;
  csrf: string;
}

let scratch: string;
let url: string;
let app: Awaited<ReturnType<typeof buildServer>>;
let engine: SyncEngine;
let agent: Agent;
let routes: RegisteredRoute[];
const callers: Caller[] = [];
/** the owner's real ids: the first pattern that matches the path up to the parameter gives its id */
const realIds: [RegExp, number][] = [];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'rideport-hostile-parameters-'));
  cleanups.push(() => {
    rmSync(scratch, { recursive: true, force: true });
    return Promise.resolve();
  });
  const watched = join(scratch, 'rides');
  mkdirSync(watched);
  engine = new SyncEngine({
    ledgerPath: join(scratch, 'ledger.sqlite'),
    inboxFolder: join(scratch, 'inbox'),
    uploader: {
      uploadRide: () => Promise.reject(new Error('this test uploads nothing through the engine')),
    },
    folders: [watched],
    deviceRoots: [],
    firstImport: { kind: 'all' },
  });
  let syncUser: number | null = null;
  ({ app, url } = await listenWithEngine(scratch, engine, () => syncUser, { queue: { workers: 1 } }));
  cleanups.push(() => app.close());
  agent = new Agent({ connections: 8, pipelining: 1 });
  cleanups.push(() => agent.close());
  routes = registeredRoutes(app.printRoutes({ commonPrefix: false }));

  const { store } = app.rideport;
  const owner = await store.users.createPerson({
    email: 'owner@example.com',
    password: 'owner password',
    name: 'Owner',
  });
  const other = await store.users.createPerson({
    email: 'other@example.com',
    password: 'other password',
    name: 'Other',
  });
  syncUser = owner.id;
  const club = await store.users.createOrganization('Owner club', owner.id);
  const bytes = readFileSync(join(REPOSITORY_ROOT, 'fixtures/gpx/tracks-and-routes.gpx'));
  let tripId = 0;
  let routeId = 0;
  for (const track of parseRideFile(bytes, { filename: 'tracks-and-routes.gpx' }).tracks) {
    const created = await store.assets.createFromTrack(owner.id, track, {});
    if (created.type === 'trip') tripId = created.row.id;
    else routeId = created.row.id;
  }
  const event = await store.events.create(owner.id, {
    name: 'Club ride',
    description: null,
    location: null,
    url: null,
    start_date: '2026-04-01',
    end_date: null,
    visibility: 'public',
  });
  for (const user of [owner, other]) {
    const client = await store.apiClients.create(user.id, {
      name: `${user.name} client`,
      redirectUris: ['https://app.example.com/callback'],
    });
    if (user === owner) realIds.push([/^\/developer\/api_clients\/:id$/, client.id]);
    const { token } = await store.authTokens.issue(user.id, client.id);
    const cookies = await signedInCookies(await app.rideport.signInLink(user.id, '/developer'));
    const page = await request(`${url}/developer`, { headers: { cookie: cookies.join('; ') } });
    const body = await page.body.text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
    const sent = new Map(
      [...cookies, ...cookieValues(page.headers['set-cookie'])].map((cookie) => [
        cookie.split('=', 1)[0]!,
        cookie,
      ]),
    );
    if (csrf === undefined) throw new Error(`no CSRF field on /developer: ${body.slice(0, 500)}`);
    callers.push({
      name: user === owner ? 'owner' : 'other',
      csrf,
      headers: {
        cookie: [...sent.values()].join('; '),
        'x-service-api-key': client.apiKey,
        'x-service-auth-token': token,
        authorization: `Basic ${Buffer.from(`${client.apiKey}:${token}`).toString('base64')}`,
      },
    });
  }
  const clubClient = await store.apiClients.create(club.id, { name: 'Club client', redirectUris: [] });
  realIds.push(
    [/\/:clientId$/, clubClient.id],
    [/\/(trips|rides)\/:id$/, tripId],
    [/\/routes\/:id$/, routeId],
    [/\/routes\/:routeId$/, routeId],
    [/\/events\/:id$/, event.id],
    [/\/(clubs|organizations)\/:id$/, club.id],
    [/\/users\/:id$/, owner.id],
  );
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function cookieValues(header: string | string[] | undefined): string[] {
  const all = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return all.map((cookie) => cookie.split(';', 1)[0]!);
}

/** Follows a one-time sign-in link; returns the session cookie it sets. */
async function signedInCookies(link: string): Promise<string[]> {
  const response = await request(link);
  await response.body.dump();
  const cookies = cookieValues(response.headers['set-cookie']);
  if (cookies.length === 0) throw new Error(`the sign-in link set no cookie (${response.statusCode})`);
  return cookies;
}

type Where = 'query' | 'form' | 'json';

interface Probe {
  route: RegisteredRoute;
  caller: Caller;
  /** the value of every `:name` of the path: 'real' for the owner's record of that kind */
  pathValue: string;
  where: Where;
  /** name → value (query/form: text, repeated when an array; json: JSON text) */
  values: [string, string | string[]][];
}

interface Answer {
  status: number;
  body: string;
  described: string;
}

function concretePath(route: RegisteredRoute, pathValue: string): string {
  return route.path.replace(/:[A-Za-z]+/g, (name) => {
    if (pathValue !== 'real') return encodeURIComponent(pathValue).replaceAll('%25', '%');
    const upToName = route.path.slice(0, route.path.indexOf(name) + name.length);
    const real = realIds.find(([pattern]) => pattern.test(upToName));
    if (real === undefined) throw new Error(`no real id for ${name} of ${route.path}`);
    return String(real[1]);
  });
}

function encodedPairs(values: [string, string | string[]][]): string {
  const pairs = new URLSearchParams();
  for (const [name, value] of values) {
    for (const item of Array.isArray(value) ? value : [value]) pairs.append(name, item);
  }
  return pairs.toString();
}

async function send(probe: Probe): Promise<Answer> {
  const { route, caller, where, values } = probe;
  let path = concretePath(route, probe.pathValue);
  if (path === '*') path = '/no/such/page';
  const headers: Record<string, string> = { ...caller.headers };
  // The OAuth token endpoint reads Basic as the client's credentials: it gets the client's own fields.
  if (path.startsWith('/oauth/')) delete headers.authorization;
  let body: string | undefined;
  if (where === 'query') {
    const query = encodedPairs(values);
    if (query !== '') path += `?${query}`;
  } else if (where === 'form') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = encodedPairs([['_csrf', caller.csrf], ...values]);
  } else {
    headers['content-type'] = 'application/json';
    body = `{${values.map(([name, value]) => `${JSON.stringify(name)}:${String(value)}`).join(',')}}`;
  }
  const described = `${caller.name}: ${route.method} ${path}${body === undefined ? '' : ` ${where} ${body}`}`;
  const response = await request(`${url}${path}`, {
    method: route.method as 'GET',
    headers,
    ...(body === undefined ? {} : { body }),
    dispatcher: agent,
  });
  return { status: response.statusCode, body: await response.body.text(), described };
}

/** Runs the probes a few at a time; returns every answer. */
async function sendAll(probes: Probe[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < probes.length) {
      const probe = probes[next++]!;
      answers.push(await send(probe));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return answers;
}

function serverErrors(answers: Answer[]): string[] {
  return answers
    .filter((answer) => answer.status >= 500)
    .map((answer) => `${answer.status} ${answer.described} → ${answer.body.slice(0, 200)}`);
}

const CATALOGUE: ReadonlySet<string> = new Set(SERVER_ERROR_CODES);

/**
 * The v1 error answers whose body is not `{"errors": [...], "error_codes": [...]}` with as many codes
 * as problems, each a code of the server's catalogue (issue 35).
 */
function uncodedV1Errors(answers: Answer[]): string[] {
  return answers.flatMap((answer) => {
    const [, method, path = ''] = answer.described.split(' ');
    // HEAD answers have no body to look at.
    if (answer.status < 400 || method === 'HEAD' || !path.startsWith('/api/v1/')) return [];
    let body: { errors?: unknown; error_codes?: unknown } = {};
    try {
      body = JSON.parse(answer.body) as typeof body;
    } catch {
      // Not JSON: reported below.
    }
    const { errors, error_codes: codes } = body;
    const coded =
      Array.isArray(errors) &&
      errors.length > 0 &&
      Array.isArray(codes) &&
      codes.length === errors.length &&
      codes.every((code) => typeof code === 'string' && CATALOGUE.has(code));
    return coded ? [] : [`${answer.status} ${answer.described} → ${answer.body.slice(0, 200)}`];
  });
}

const takesBody = (route: RegisteredRoute): boolean => ['POST', 'PUT', 'PATCH'].includes(route.method);

describe('odd numbers on every route Fastify registers', () => {
  it('finds the routes of every family', () => {
    const paths = new Set(routes.map((route) => `${route.method} ${route.path}`));
    for (const expected of [
      'GET /api/v1/trips.json',
      'GET /api/v1/routes/:id.json',
      'PATCH /api/v1/events/:id',
      'GET /users/:id/trips.json',
      'GET /queued_tasks/status.js',
      'POST /trips.json',
      'GET /dashboard/rides/:id',
      'POST /organizations/:id/api_clients/:clientId/auth_tokens',
      'POST /oauth/token.json',
      'POST /api/v1/local/sync/import.json',
    ]) {
      expect(paths).toContain(expected);
    }
  });

  it('page and page_size of Infinity, 1e309 or out of range on the v1 lists are a 400 naming the parameter', async () => {
    const owner = callers[0]!;
    for (const list of ['trips', 'routes', 'events']) {
      for (const [name, value] of [
        ['page_size', 'Infinity'],
        ['page_size', '1e309'],
        ['page', 'Infinity'],
        ['page', '1e309'],
        ['page', '99999999999999999999999'],
        ['page', '1&page=2'],
      ] as const) {
        const response = await request(`${url}/api/v1/${list}.json?${name}=${value}`, {
          headers: owner.headers,
          dispatcher: agent,
        });
        const body = (await response.body.json()) as { errors: string[] };
        expect(response.statusCode, `${list} ${name}=${value}`).toBe(400);
        expect(body.errors.join(' '), `${list} ${name}=${value}`).toMatch(
          new RegExp(`^${name} must be a whole number from \\d+ to \\d+`),
        );
      }
    }
  });

  it('no odd query value, as the owner or as another user, answers 500; a 400 names the parameter', async () => {
    const probes: Probe[] = [];
    for (const route of routes) {
      for (const caller of callers) {
        probes.push({ route, caller, pathValue: 'real', where: 'query', values: [] });
        for (const name of NUMERIC_NAMES) {
          for (const value of [
            ...ODD_TEXTS.filter(
              (text) => caller.name === 'owner' || ['Infinity', '1e309', '-1', ''].includes(text),
            ),
            ['1', 'Infinity'],
          ]) {
            probes.push({ route, caller, pathValue: 'real', where: 'query', values: [[name, value]] });
          }
        }
      }
    }
    const answers = await sendAll(probes);
    expect(serverErrors(answers)).toEqual([]);
    expect(uncodedV1Errors(answers)).toEqual([]);
    // A route that answers the plain request with something else than 400, and 400 to an odd value,
    // says which parameter was wrong.
    const baseline = new Map<string, number>();
    for (const [index, probe] of probes.entries()) {
      if (probe.values.length === 0)
        baseline.set(
          `${probe.caller.name} ${probe.route.method} ${probe.route.path}`,
          answers[index]!.status,
        );
    }
    const unnamed = probes.flatMap((probe, index) => {
      const answer = answers[index]!;
      const plain = baseline.get(`${probe.caller.name} ${probe.route.method} ${probe.route.path}`);
      const [name] = probe.values[0] ?? [];
      const named = probe.route.method === 'HEAD' || answer.body.includes(name ?? '');
      return name !== undefined && answer.status === 400 && plain !== 400 && !named
        ? [`${answer.described} → ${answer.body.slice(0, 200)}`]
        : [];
    });
    expect(unnamed).toEqual([]);
  }, 300_000);

  it('no odd path id answers 500; a 400 names the id', async () => {
    const probes: Probe[] = [];
    for (const route of routes.filter((candidate) => candidate.path.includes(':'))) {
      for (const caller of callers) {
        for (const pathValue of ODD_IDS) {
          probes.push({ route, caller, pathValue, where: takesBody(route) ? 'form' : 'query', values: [] });
        }
      }
    }
    const answers = await sendAll(probes);
    expect(serverErrors(answers)).toEqual([]);
    expect(uncodedV1Errors(answers)).toEqual([]);
    const unnamed = answers
      .filter(
        (answer, index) =>
          answer.status === 400 && probes[index]!.route.method !== 'HEAD' && !/\bid\b/.test(answer.body),
      )
      .map((answer) => `${answer.described} → ${answer.body.slice(0, 200)}`);
    expect(unnamed).toEqual([]);
  }, 300_000);

  it('no mix of odd values in the query, a form or a JSON body answers 500; v1 errors are coded (fast-check)', async () => {
    const names = [...NUMERIC_NAMES, ...OTHER_NAMES];
    const textValue = fc.oneof(
      fc.constantFrom(...ODD_TEXTS),
      fc.array(fc.constantFrom(...ODD_TEXTS), { minLength: 2, maxLength: 3 }),
      fc.integer().map(String),
      fc.double().map(String),
    );
    const jsonValue = fc.oneof(
      fc.constantFrom(...ODD_JSON),
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    );
    const probe = fc
      .record({
        route: fc.constantFrom(...routes),
        caller: fc.constantFrom(...callers),
        pathValue: fc.constantFrom('real', ...ODD_IDS),
        where: fc.constantFrom<Where>('query', 'form', 'json'),
        names: fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 4 }),
        texts: fc.array(textValue, { minLength: 4, maxLength: 4 }),
        jsons: fc.array(jsonValue, { minLength: 4, maxLength: 4 }),
      })
      .map(({ route, caller, pathValue, where, names: chosen, texts, jsons }): Probe => {
        const place: Where = takesBody(route) ? where : 'query';
        return {
          route,
          caller,
          pathValue,
          where: place,
          values: chosen.map((name, index) => [name, place === 'json' ? jsons[index]! : texts[index]!]),
        };
      });
    await fc.assert(
      fc.asyncProperty(probe, async (candidate) => {
        const [answer] = await sendAll([candidate]);
        expect(serverErrors([answer!])).toEqual([]);
        expect(uncodedV1Errors([answer!])).toEqual([]);
      }),
      { numRuns: 1500, interruptAfterTimeLimit: 90_000 },
    );
  }, 120_000);
});

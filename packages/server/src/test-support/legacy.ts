/**
 * Legacy interface calls for tests (docs/contributors/decisions.md §5): two people and one API client both use, each
 * with an auth token through it, and a request helper that reads JSON and JSONP answers alike.
 */
import type { TestServer } from './server.js';
import { createPerson, type Person } from './server.js';
import type { ApiClient } from '../store/index.js';

export interface LegacyPerson extends Person {
  authToken: string;
}

export interface LegacySetup {
  client: ApiClient;
  apiKey: string;
  alice: LegacyPerson;
  bob: LegacyPerson;
}

/** Alice and Bob, one API client (Alice's), and an auth token each through it. */
export async function legacySetup(server: TestServer): Promise<LegacySetup> {
  const alice = await createPerson(server, 'Alice Rider');
  const bob = await createPerson(server, 'Bob Rider');
  const client = await server.store.apiClients.create(alice.id, { name: 'Legacy test client' });
  const token = async (person: Person) => (await server.store.authTokens.issue(person.id, client.id)).token;
  return {
    client,
    apiKey: client.apiKey,
    alice: { ...alice, authToken: await token(alice) },
    bob: { ...bob, authToken: await token(bob) },
  };
}

export type Query = Record<string, string | number | undefined>;

export interface LegacyRequest {
  method?: 'GET' | 'POST';
  /** the path with its extension, e.g. `/users/3.json` */
  url: string;
  query?: Query;
  /** a JSON body */
  json?: unknown;
  /** a form body (application/x-www-form-urlencoded) */
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface LegacyResponse {
  status: number;
  /** the body as sent */
  body: string;
  contentType: string;
  headers: Record<string, string | string[] | number | undefined>;
  /** the JSON of the answer: the body, or the argument of the JSONP call */
  json: unknown;
  /** the JSONP callback name; null for a JSON answer */
  callback: string | null;
}

const JSONP = /^\/\*\*\/([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(([\s\S]*)\);$/;

export async function legacy(server: TestServer, request: LegacyRequest): Promise<LegacyResponse> {
  const query = Object.fromEntries(
    Object.entries(request.query ?? {}).flatMap(([key, value]) =>
      value === undefined ? [] : [[key, String(value)]],
    ),
  );
  let payload: string | undefined;
  const headers: Record<string, string> = { ...request.headers };
  if (request.json !== undefined) {
    payload = JSON.stringify(request.json);
    headers['content-type'] = 'application/json';
  } else if (request.form !== undefined) {
    payload = new URLSearchParams(request.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const response = await server.app.inject({
    method: request.method ?? 'GET',
    url: request.url,
    query,
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
  const contentType = String(response.headers['content-type'] ?? '');
  const body = response.body;
  const match = contentType.startsWith('application/javascript') ? JSONP.exec(body) : null;
  return {
    status: response.statusCode,
    body,
    contentType,
    headers: response.headers,
    json: JSON.parse(match === null ? body : match[2]!) as unknown,
    callback: match === null ? null : match[1]!,
  };
}

/** The answer's JSON as `T`: the test names the shape it expects, as with Fastify's response.json<T>(). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller states the shape
export function jsonOf<T>(response: LegacyResponse): T {
  return response.json as T;
}

/** A single-record answer's record without its `track_points`: the shape of a list item. */
export function withoutPoints(record: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...record };
  delete copy['track_points'];
  return copy;
}

/** The `error` message of an error answer. */
export function errorOf(response: LegacyResponse): string {
  const { error } = response.json as { error?: unknown };
  if (typeof error !== 'string') throw new Error(`not an error answer: ${response.body.slice(0, 200)}`);
  return error;
}

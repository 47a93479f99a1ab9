/**
 * The v1 interface under `{base_url}/api/v1` (docs/integrators/api.md, v1 endpoints; docs/contributors/decisions.md §2 for the
 * endpoints beyond the specification's table that the server implements and clients call).
 */
import { ClientError, ClientErrorCode } from './errors.js';
import { v1AuthHeaders, type Credentials } from './credentials.js';
import { readJsonObject, rootOf, type CallOptions, type Http } from './http.js';
import type {
  AuthTokenRecord,
  ClubRecord,
  EventFields,
  EventRecord,
  Page,
  PaginationMeta,
  RouteRecord,
  SyncResult,
  TripRecord,
  UserRecord,
  WithTrackPoints,
} from './records.js';

const PREFIX = '/api/v1';

/** Which page of a v1 list to read. */
export interface ListOptions extends CallOptions {
  /** 1-based */
  page?: number;
  /** 20..200 (docs/contributors/decisions.md §2); the server's default is 20 */
  pageSize?: number;
}

/** How `all()` reads a v1 list: the page size of its requests. */
export interface AllOptions extends CallOptions {
  pageSize?: number;
}

/** A paginated resource's list and its iterator over every page. */
export interface Listing<T> {
  /** One page of the list, with `meta.pagination`. */
  list(options?: ListOptions): Promise<Page<T>>;
  /** every record, page after page, following `meta.pagination.next_page_url` */
  all(options?: AllOptions): AsyncIterableIterator<T>;
}

/** A route or trip list (`v1.routes`, `v1.trips`): pages, every record, one with its points, delete. */
export interface AssetEndpoints<T> extends Listing<T> {
  /** One record with its track points. */
  get(id: number, options?: CallOptions): Promise<WithTrackPoints<T>>;
  /** Deletes the record (the caller's own). */
  delete(id: number, options?: CallOptions): Promise<void>;
}

/** The events (`v1.events`): pages, every event, one, create, update, delete. */
export interface EventEndpoints extends Listing<EventRecord> {
  /** One event. */
  get(id: number, options?: CallOptions): Promise<EventRecord>;
  /** Creates an event and answers it as stored. */
  create(fields: EventFields, options?: CallOptions): Promise<EventRecord>;
  /** only the fields given change */
  update(id: number, fields: EventFields, options?: CallOptions): Promise<EventRecord>;
  /** Deletes the event. */
  delete(id: number, options?: CallOptions): Promise<void>;
}

/**
 * Clubs (`v1.clubs`; issue 20): the caller's clubs by name (GET /api/v1/clubs.json: `list`, `all`), a
 * club, the routes its members share with it, and sharing one. The specification has clubs on the
 * legacy interface only; the server serves the same on v1.
 */
export interface ClubEndpoints extends Listing<ClubRecord> {
  /** GET /api/v1/clubs/{id}.json: the club's name, description and member count. */
  get(id: number, options?: CallOptions): Promise<ClubRecord>;
  /**
   * GET /api/v1/clubs/{id}/routes.json: the routes shared with the club, most recently shared first;
   * members see every one, others only the public ones.
   */
  routes(id: number): Listing<RouteRecord>;
  /**
   * POST /api/v1/clubs/{id}/routes.json: shares one of the caller's routes with a club they belong to.
   * `sharedNow` is false when it was shared already.
   */
  shareRoute(id: number, routeId: number, options?: CallOptions): Promise<SharedRoute>;
  /** DELETE /api/v1/clubs/{id}/routes/{routeId}.json: the member who shared it, or a club administrator. */
  removeRoute(id: number, routeId: number, options?: CallOptions): Promise<void>;
}

/** What sharing a route with a club answers. */
export interface SharedRoute {
  route: RouteRecord;
  /** true when this call shared it (201), false when it was shared already (200) */
  sharedNow: boolean;
}

/** What `v1.sync` asks for: changes since a time, of which kinds. */
export interface SyncOptions extends CallOptions {
  /** changes at or after this time; `new Date(0)` (or "1970-01-01") for the whole library */
  since: Date | string;
  /** default: the API client's webhook asset kinds (docs/contributors/decisions.md §2) */
  assets?: ('routes' | 'trips')[];
}

/**
 * The v1 interface (`client.v1`): auth tokens, the current user, routes and trips with their track
 * points, events, clubs, and the changes since a time (`sync`).
 */
export class V1Api {
  readonly #http: Http;
  readonly #credentials: () => Credentials;
  readonly routes: AssetEndpoints<RouteRecord>;
  readonly trips: AssetEndpoints<TripRecord>;
  readonly events: EventEndpoints;
  readonly clubs: ClubEndpoints;

  /** @internal Made by `RideportClient`, which owns its transport and credentials. */
  constructor(http: Http, credentials: () => Credentials) {
    this.#http = http;
    this.#credentials = credentials;
    this.routes = this.#assets<RouteRecord>('routes', 'route');
    this.trips = this.#assets<TripRecord>('trips', 'trip');
    this.events = {
      ...this.#listing<EventRecord>('events'),
      get: async (id, options) =>
        rootOf<EventRecord>(await this.#get(`/events/${positive(id)}.json`, options), 'event', 'event'),
      create: async (fields, options) =>
        rootOf<EventRecord>(
          await this.#http.json({
            ...this.#call('POST', '/events.json', options),
            body: { json: { event: fields } },
          }),
          'event',
          'POST events',
        ),
      update: async (id, fields, options) =>
        rootOf<EventRecord>(
          await this.#http.json({
            ...this.#call('PATCH', `/events/${positive(id)}.json`, options),
            body: { json: { event: fields } },
          }),
          'event',
          'PATCH event',
        ),
      delete: (id, options) => this.#delete(`/events/${positive(id)}.json`, options),
    };
    this.clubs = {
      ...this.#listing<ClubRecord>('clubs', '/clubs.json'),
      get: async (id, options) =>
        rootOf<ClubRecord>(await this.#get(`/clubs/${positive(id)}.json`, options), 'club', 'club'),
      routes: (id) => this.#listing<RouteRecord>('routes', `/clubs/${positive(id)}/routes.json`),
      shareRoute: async (id, routeId, options) => {
        const call = {
          ...this.#call('POST', `/clubs/${positive(id)}/routes.json`, options),
          body: { json: { route_id: positive(routeId) } },
        };
        const response = await this.#http.send(call);
        const json = readJsonObject(response, 'POST club routes');
        return {
          route: rootOf<RouteRecord>(json, 'route', 'POST club routes'),
          sharedNow: response.status === 201,
        };
      },
      removeRoute: (id, routeId, options) =>
        this.#delete(`/clubs/${positive(id)}/routes/${positive(routeId)}.json`, options),
    };
  }

  /**
   * POST /api/v1/auth_tokens.json (docs/integrators/api.md, Basic authentication step 1): the API key alone in
   * `x-service-api-key`, whatever else the client holds (a Bearer header would make the server look for
   * an OAuth token instead). The client's credentials do not change: the caller decides what to keep.
   */
  async createAuthToken(
    email: string,
    password: string,
    options: CallOptions = {},
  ): Promise<AuthTokenRecord> {
    const json = await this.#http.json({
      ...options,
      method: 'POST',
      path: `${PREFIX}/auth_tokens.json`,
      headers: { 'x-service-api-key': this.#credentials().apiKey },
      body: { json: { user: { email, password } } },
    });
    return rootOf<AuthTokenRecord>(json, 'auth_token', 'POST auth_tokens');
  }

  /** GET /api/v1/users/current.json */
  async currentUser(options: CallOptions = {}): Promise<UserRecord> {
    return rootOf<UserRecord>(await this.#get('/users/current.json', options), 'user', 'current user');
  }

  /** GET /api/v1/sync.json (docs/contributors/decisions.md §2): what changed since a time, deletions included. */
  async sync(options: SyncOptions): Promise<SyncResult> {
    const since = options.since instanceof Date ? options.since.toISOString() : options.since;
    const json = await this.#http.json({
      ...this.#call('GET', '/sync.json', options),
      query: { since, assets: options.assets?.join(',') },
    });
    return { items: rootOf(json, 'items', 'sync', true), meta: rootOf(json, 'meta', 'sync') };
  }

  #assets<T>(plural: 'routes' | 'trips', singular: 'route' | 'trip'): AssetEndpoints<T> {
    return {
      ...this.#listing<T>(plural),
      get: async (id, options) =>
        rootOf<WithTrackPoints<T>>(
          await this.#get(`/${plural}/${positive(id)}.json`, options),
          singular,
          singular,
        ),
      delete: (id, options) => this.#delete(`/${plural}/${positive(id)}.json`, options),
    };
  }

  /** `plural`: the list's root key; `path`: where it is, `/<plural>.json` unless said. */
  #listing<T>(plural: string, path = `/${plural}.json`): Listing<T> {
    const list = async (options: ListOptions = {}): Promise<Page<T>> =>
      this.#page<T>(
        {
          ...this.#call('GET', path, options),
          query: { page: options.page, page_size: options.pageSize },
        },
        plural,
      );
    const page = (call: Parameters<Http['json']>[0]): Promise<Page<T>> => this.#page<T>(call, plural);
    const call = (path: string, options: CallOptions): Parameters<Http['json']>[0] =>
      this.#call('GET', path, options);
    async function* all(options: AllOptions = {}): AsyncGenerator<T, void, undefined> {
      const seen = new Set<string>();
      let current = await page({
        ...call(path, options),
        query: { page_size: options.pageSize },
      });
      for (;;) {
        yield* current.items;
        const next = current.pagination.next_page_url;
        if (next === null) return;
        // A server that points back at a page already read would loop forever.
        if (seen.has(next)) {
          throw new ClientError(
            ClientErrorCode.BAD_RESPONSE,
            `${plural}: next_page_url repeats a page (${next})`,
          );
        }
        seen.add(next);
        current = await page(call(next, options));
      }
    }
    return { list, all };
  }

  async #page<T>(call: Parameters<Http['json']>[0], plural: string): Promise<Page<T>> {
    const json = await this.#http.json(call);
    const items = rootOf<T[]>(json, plural, plural, true);
    const meta = rootOf<{ pagination?: unknown }>(json, 'meta', plural);
    const pagination = meta.pagination as PaginationMeta | null | undefined;
    if (
      typeof pagination !== 'object' ||
      pagination === null ||
      (pagination.next_page_url !== null && typeof pagination.next_page_url !== 'string')
    ) {
      throw new ClientError(ClientErrorCode.BAD_RESPONSE, `${plural}: the answer has no meta.pagination`);
    }
    return { items, pagination };
  }

  #call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, options: CallOptions = {}) {
    return {
      ...options,
      method,
      path: /^https?:\/\//i.test(path) ? path : `${PREFIX}${path}`,
      headers: v1AuthHeaders(this.#credentials()),
    };
  }

  #get(path: string, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.#http.json(this.#call('GET', path, options));
  }

  async #delete(path: string, options: CallOptions = {}): Promise<void> {
    // 204 with an empty body (docs/contributors/decisions.md §2): nothing to read.
    await this.#http.send(this.#call('DELETE', path, options));
  }
}

/** An id for a path: a positive integer, or the request is not sent at all. */
export function positive(id: number): number {
  if (!Number.isSafeInteger(id) || id < 1) throw new TypeError(`an id must be a positive integer, got ${id}`);
  return id;
}

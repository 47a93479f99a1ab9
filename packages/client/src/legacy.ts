/**
 * The legacy interface at the site root (docs/integrators/api.md, legacy endpoints; docs/contributors/decisions.md §5). Every
 * request carries `apikey`, the auth token as `auth_token`, and `version=2`, so lists always come in the
 * version-2 shape `{"results", "results_count"}` whatever version the API key was issued with.
 */
import { ClientError, ClientErrorCode } from './errors.js';
import { legacyAuthParams, type Credentials } from './credentials.js';
import { rootOf, type CallOptions, type Http, type Query } from './http.js';
import { LEGACY_VISIBILITY, rideUploadBody, type RideUpload } from './multipart.js';
import type {
  ClubRecord,
  LegacyList,
  LegacyUser,
  QueuedTask,
  RouteRecord,
  TrackPoint,
  TripRecord,
  UserRecord,
  Visibility,
  WithTrackPoints,
} from './records.js';
import { positive } from './v1.js';

/** The legacy version whose shapes this client reads (docs/contributors/decisions.md §5). */
export const LEGACY_VERSION = 2;

/** Which part of a legacy list to read. */
export interface LegacyListOptions extends CallOptions {
  /** default 0 */
  offset?: number;
  /** 1..200, default 20 */
  limit?: number;
}

/** The optional fields of a ride made from points (docs/contributors/decisions.md §5). */
export interface PointsMetadata {
  name?: string;
  description?: string;
  visibility?: Visibility;
}

/** What `taskStatus` includes. */
export interface TaskStatusOptions extends CallOptions {
  /** fill `associated_objects` with the created (or, for a duplicate, existing) trips and routes */
  includeObjects?: boolean;
}

/**
 * The legacy interface (`client.legacy`), version 2: sign-in with email and password, users, clubs,
 * routes and trips, and ride uploads as files or points with their queued tasks.
 */
export class LegacyApi {
  readonly #http: Http;
  readonly #credentials: () => Credentials;
  readonly #setCredentials: (credentials: Credentials) => void;

  /** @internal Made by `RideportClient`, which owns its transport and credentials. */
  constructor(
    http: Http,
    credentials: () => Credentials,
    setCredentials: (credentials: Credentials) => void,
  ) {
    this.#http = http;
    this.#credentials = credentials;
    this.#setCredentials = setCredentials;
  }

  /**
   * The legacy login (docs/integrators/api.md, "Legacy authentication"): GET /users/current.json with `email`
   * and `password`; the server answers the user with a new auth token, which becomes this client's
   * credentials (with the same API key) for every later request.
   */
  async login(email: string, password: string, options: CallOptions = {}): Promise<LegacyUser> {
    const apiKey = this.#credentials().apiKey;
    const json = await this.#http.json({
      ...options,
      method: 'GET',
      path: '/users/current.json',
      // Only the key: an old auth_token sent beside the password would be checked first.
      query: { apikey: apiKey, version: LEGACY_VERSION, email, password },
    });
    const user = rootOf<LegacyUser>(json, 'user', 'login');
    if (typeof user.auth_token !== 'string' || user.auth_token === '') {
      throw new ClientError(ClientErrorCode.BAD_RESPONSE, 'login: the user object has no auth_token');
    }
    this.#setCredentials({ kind: 'auth-token', apiKey, authToken: user.auth_token });
    return user;
  }

  /** GET /users/current.json with the auth token: the same user object, token included. */
  async currentUser(options: CallOptions = {}): Promise<LegacyUser> {
    return rootOf<LegacyUser>(await this.#get('/users/current.json', {}, options), 'user', 'current user');
  }

  /** GET /users/{id}.json: any user's public profile. */
  async user(id: number, options: CallOptions = {}): Promise<UserRecord> {
    return rootOf<UserRecord>(await this.#get(`/users/${positive(id)}.json`, {}, options), 'user', 'user');
  }

  /** GET /users/{id}/routes.json: the user's routes the caller may see, `limit` at a time from `offset`. */
  userRoutes(id: number, options: LegacyListOptions = {}): Promise<LegacyList<RouteRecord>> {
    return this.#list(`/users/${positive(id)}/routes.json`, options);
  }

  /** GET /users/{id}/trips.json: the user's trips the caller may see, `limit` at a time from `offset`. */
  userTrips(id: number, options: LegacyListOptions = {}): Promise<LegacyList<TripRecord>> {
    return this.#list(`/users/${positive(id)}/trips.json`, options);
  }

  /** Every club the user belongs to (the server takes no offset or limit here). */
  userClubs(id: number, options: CallOptions = {}): Promise<LegacyList<ClubRecord>> {
    return this.#list(`/users/${positive(id)}/clubs.json`, options);
  }

  /** GET /clubs/{id}.json: a club's name, description and member count. */
  async club(id: number, options: CallOptions = {}): Promise<ClubRecord> {
    return rootOf<ClubRecord>(await this.#get(`/clubs/${positive(id)}.json`, {}, options), 'club', 'club');
  }

  /** GET /clubs/{id}/routes.json: the club's routes, `limit` at a time from `offset`. */
  clubRoutes(id: number, options: LegacyListOptions = {}): Promise<LegacyList<RouteRecord>> {
    return this.#list(`/clubs/${positive(id)}/routes.json`, options);
  }

  /** GET /routes/{id}.json: a route with its track points. */
  async route(id: number, options: CallOptions = {}): Promise<WithTrackPoints<RouteRecord>> {
    return rootOf(await this.#get(`/routes/${positive(id)}.json`, {}, options), 'route', 'route');
  }

  /** GET /trips/{id}.json: a trip with its track points. */
  async trip(id: number, options: CallOptions = {}): Promise<WithTrackPoints<TripRecord>> {
    return rootOf(await this.#get(`/trips/${positive(id)}.json`, {}, options), 'trip', 'trip');
  }

  /**
   * POST /trips.json with the file (docs/contributors/decisions.md §5): answered at once with the queued task's id. A
   * ZIP of ride files (issue 20) is a task per ride: `taskIds` holds them all (`taskId` is the first)
   * and `skipped` the archive's entries that became no task, with the reason in words (the first 100,
   * names cut; `skippedCount` counts them all, issue 36); for any other file `taskIds` is `[taskId]`,
   * `skipped` empty and `skippedCount` 0.
   * Not idempotent and not retried here: uploadRide knows how to recover a lost answer.
   */
  async uploadFile(upload: RideUpload, options: CallOptions = {}): Promise<UploadedFile> {
    const { body, contentType } = await rideUploadBody(upload);
    const json = await this.#http.json({
      ...this.#call('POST', '/trips.json', {}, options),
      body: { bytes: body, contentType },
    });
    const taskId = json['task_id'];
    const taskIds = json['task_ids'] ?? [taskId];
    const skipped = json['skipped'] ?? [];
    // A server before issue 36 lists every skipped entry and sends no count.
    const skippedCount: unknown = json['skipped_count'] ?? (Array.isArray(skipped) ? skipped.length : 0);
    if (
      json['success'] !== 1 ||
      !isTaskId(taskId) ||
      !Array.isArray(taskIds) ||
      !taskIds.every(isTaskId) ||
      taskIds[0] !== taskId ||
      !Array.isArray(skipped) ||
      !skipped.every(isSkippedEntry) ||
      typeof skippedCount !== 'number' ||
      !Number.isSafeInteger(skippedCount) ||
      skippedCount < skipped.length
    ) {
      throw new ClientError(
        ClientErrorCode.BAD_RESPONSE,
        `upload: the answer is not {"success": 1, "task_id": N}: ${JSON.stringify(json).slice(0, 200)}`,
      );
    }
    return { taskId, taskIds, skipped, skippedCount };
  }

  /**
   * POST /trips.json with `track_points` as JSON (docs/contributors/decisions.md §5): processed at once, answered with the
   * trip. The server checks the points and names every bad one in a 422 (REJECTED).
   */
  async uploadPoints(
    points: readonly TrackPoint[],
    metadata: PointsMetadata = {},
    options: CallOptions = {},
  ): Promise<TripRecord> {
    const trip: Record<string, string | number> = {};
    if (metadata.name !== undefined) trip['name'] = metadata.name;
    if (metadata.description !== undefined) trip['description'] = metadata.description;
    if (metadata.visibility !== undefined) trip['visibility'] = LEGACY_VISIBILITY[metadata.visibility];
    const json = await this.#http.json({
      ...this.#call('POST', '/trips.json', {}, options),
      body: { json: { track_points: points, trip } },
    });
    return rootOf<TripRecord>(json, 'trip', 'points upload');
  }

  /** GET /queued_tasks/status.json: the caller's own tasks among `ids`; unknown and purged ids are left out. */
  async taskStatus(ids: readonly number[], options: TaskStatusOptions = {}): Promise<QueuedTask[]> {
    const json = await this.#get(
      '/queued_tasks/status.json',
      {
        ids: ids.map(positive).join(','),
        ...(options.includeObjects === true ? { include_objects: 'true' } : {}),
      },
      options,
    );
    return rootOf<QueuedTask[]>(json, 'queued_tasks', 'task status', true);
  }

  async #list<T>(path: string, options: LegacyListOptions): Promise<LegacyList<T>> {
    const json = await this.#get(path, { offset: options.offset, limit: options.limit }, options);
    const results = rootOf<T[]>(json, 'results', path, true);
    const count = json['results_count'];
    if (typeof count !== 'number') {
      throw new ClientError(ClientErrorCode.BAD_RESPONSE, `${path}: the answer has no results_count`);
    }
    return { results, results_count: count };
  }

  #call(method: 'GET' | 'POST', path: string, query: Query, options: CallOptions) {
    return {
      ...options,
      method,
      path,
      query: { ...legacyAuthParams(this.#credentials()), version: LEGACY_VERSION, ...query },
    };
  }

  #get(path: string, query: Query, options: CallOptions): Promise<Record<string, unknown>> {
    return this.#http.json(this.#call('GET', path, query, options));
  }
}

/** What POST /trips.json with a file answers (legacy.uploadFile). */
export interface UploadedFile {
  /** the task of the file, or of a ZIP's first ride */
  taskId: number;
  /** every task the upload made, in the archive's order: one per ride of a ZIP (issue 20) */
  taskIds: number[];
  /** the entries of a ZIP that became no task, and why in words (not a ride file, encrypted, …) */
  skipped: Array<{ name: string; reason: string }>;
  /** how many entries became no task, `skipped` listing the first of them (issue 36) */
  skippedCount: number;
}

function isTaskId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function isSkippedEntry(value: unknown): value is { name: string; reason: string } {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry['name'] === 'string' && typeof entry['reason'] === 'string';
}

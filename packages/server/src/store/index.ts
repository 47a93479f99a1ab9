/**
 * The data-access layer (docs/contributors/architecture.md, "Storage"; issue 4: "Nothing else in the server writes SQL"): one
 * repository per kind of record, all over the same Kysely instance and clock. Every multi-step change
 * runs in one transaction inside its repository.
 */
import type { Kysely } from 'kysely';
import type { Engine, ExclusiveRole, ExclusiveRoleName } from '../db/engine.js';
import type { OpenDatabase } from '../db/open.js';
import type { Database } from '../db/schema.js';
import { ApiClients } from './api-clients.js';
import { Assets } from './assets.js';
import { AuthTokens } from './auth-tokens.js';
import { Callers } from './callers.js';
import { Clubs } from './clubs.js';
import { AssetChanges } from './changes.js';
import { Events } from './events.js';
import { OAuth } from './oauth.js';
import { OriginalFiles } from './original-files.js';
import { PowerCurves } from './power-curves.js';
import { RateWindows } from './rate-windows.js';
import { UserPreferences } from './preferences.js';
import { Sessions } from './sessions.js';
import { SignInLinks } from './sign-in-links.js';
import { Tasks } from './tasks.js';
import { TrainingLog } from './training-log.js';
import { TripRecordings } from './trip-recordings.js';
import { LargeValues } from './large-values.js';
import { Users } from './users.js';
import { Webhooks } from './webhooks.js';
import { PointsRenderer } from './points-renderer.js';

/**
 * What the store takes of the server's options, and nothing more (issue 35: the store is given only its
 * own options, so it depends on no layer above it).
 */
export interface StoreOptions {
  /** Unix milliseconds now */
  clock: () => number;
  /** auth tokens expire this long after their last use, ms */
  authTokenLifetimeMs: number;
  /** web sign-in sessions expire this long after their last use, ms */
  sessionLifetimeMs: number;
  /** failed upload tasks are kept this long after they ended, ms */
  failedTaskRetentionMs: number;
}

/** The store's options out of the server's resolved ones. */
export function storeOptionsOf(options: {
  clock: () => number;
  authTokenLifetimeMs: number;
  sessionLifetimeMs: number;
  queue: { failedRetentionMs: number };
}): StoreOptions {
  return {
    clock: options.clock,
    authTokenLifetimeMs: options.authTokenLifetimeMs,
    sessionLifetimeMs: options.sessionLifetimeMs,
    failedTaskRetentionMs: options.queue.failedRetentionMs,
  };
}

export class Store {
  readonly #db: Kysely<Database>;
  readonly #engine: Engine;
  /** the points' JSON at their first reading, large tracks in a thread (issue 36) */
  readonly #renderer = new PointsRenderer();
  readonly users: Users;
  /** units, time zone and training thresholds (issue 19) */
  readonly preferences: UserPreferences;
  readonly apiClients: ApiClients;
  readonly authTokens: AuthTokens;
  /** credential → user and client, in one query (every authenticated request) */
  readonly callers: Callers;
  readonly oauth: OAuth;
  readonly sessions: Sessions;
  /** one-time sign-in links for the desktop app and `rideport up` (issue 7) */
  readonly signInLinks: SignInLinks;
  /** routes and trips (issue 4, v1 resources) */
  readonly assets: Assets;
  /** the files routes and trips were read from, as uploaded (issue 20) */
  readonly originalFiles: OriginalFiles;
  /** byte values written and read part by part: large uploads and original files (issue 36) */
  readonly largeValues: LargeValues;
  /** trips by their time range and recording: the same recording, overlapping rides (issue 16) */
  readonly tripRecordings: TripRecordings;
  /** each ride's power curve, computed once, for the overview (issue 19) */
  readonly powerCurves: PowerCurves;
  /** rides since a time, for the overview's weekly and monthly totals (issue 19) */
  readonly trainingLog: TrainingLog;
  /** the change log of routes and trips: sync.json, and the webhooks of issue 5 */
  readonly changes: AssetChanges;
  readonly events: Events;
  /** clubs (organizations) and the routes their members share with them (docs/contributors/decisions.md §5) */
  readonly clubs: Clubs;
  /** the upload queue's tasks, their bytes and objects (docs/contributors/decisions.md §5; src/queue) */
  readonly tasks: Tasks;
  /** the webhook outbox and delivery log (docs/contributors/decisions.md §6; src/webhooks) */
  readonly webhooks: Webhooks;
  /** the windows of the sign-in rate limits, shared by every server on the database (auth/rate-limit.ts) */
  readonly rateWindows: RateWindows;

  constructor(
    { db, engine, generation }: Pick<OpenDatabase, 'db' | 'engine' | 'generation'>,
    options: StoreOptions,
    masterKey: Buffer,
  ) {
    this.#db = db;
    this.#engine = engine;
    const context = { db, engine, generation, clock: options.clock };
    this.users = new Users(context);
    this.apiClients = new ApiClients(context, masterKey);
    this.authTokens = new AuthTokens(context, options.authTokenLifetimeMs);
    this.callers = new Callers(context, options.authTokenLifetimeMs);
    this.oauth = new OAuth(context);
    this.sessions = new Sessions(context, options.sessionLifetimeMs);
    this.signInLinks = new SignInLinks(context);
    this.assets = new Assets(context, this.#renderer);
    this.preferences = new UserPreferences(context, this.assets);
    this.largeValues = new LargeValues(context);
    this.originalFiles = new OriginalFiles(context, this.largeValues);
    this.powerCurves = new PowerCurves(context, this.assets);
    this.trainingLog = new TrainingLog(context);
    this.tripRecordings = new TripRecordings(context);
    this.changes = new AssetChanges(context);
    this.events = new Events(context);
    this.clubs = new Clubs(context);
    this.tasks = new Tasks(context, options.failedTaskRetentionMs, this.largeValues);
    this.webhooks = new Webhooks(context);
    this.rateWindows = new RateWindows(context);
  }

  /** Ends the store's thread, if it has one; before the database closes. */
  async close(): Promise<void> {
    await this.#renderer.close();
  }

  /** A role only one server on the database plays at a time (db/engine.ts). */
  exclusiveRole(name: ExclusiveRoleName): ExclusiveRole {
    return this.#engine.exclusiveRole(name);
  }

  /**
   * Runs `work` in one transaction, for a change that spans repositories (the upload queue of issue 5
   * stores a file's routes and trips and marks its task at once): pass `trx` to the repository methods
   * that take a transaction, such as Assets.createFromTrack. Commits when `work` resolves, rolls back
   * when it throws.
   */
  transaction<R>(work: (trx: Kysely<Database>) => Promise<R>): Promise<R> {
    return this.#db.transaction().execute(work);
  }
}

export type { ApiClient, ApiClientSettings } from './api-clients.js';
export type {
  AssetMetadata,
  AssetPage,
  AssetRecordWithPoints,
  AssetRow,
  CreatedAsset,
  Page,
  RecordUrl,
  StoredPoints,
} from './assets.js';
export { recordWithUrl } from './assets.js';
export type { RouteRecordFields, TripRecordFields } from './asset-records.js';
export type { AssetChangeRow, NewAssetChange, SyncedAsset } from './changes.js';
export type { EventFields } from './events.js';
export type { RateWindows, WindowCount } from './rate-windows.js';
export type { ClubRouteScope, ClubRow, ShareOutcome, SharedClub, UnshareOutcome } from './clubs.js';
export { TASK_MESSAGES, TaskLeaseLostError } from './tasks.js';
export {
  cutToWholeChars,
  isTooLong,
  MAX_REDIRECT_URIS,
  TEXT_MAX_CHARS,
  TextTooLongError,
  tooLongWords,
} from './text-limits.js';
export type {
  ClaimedTask,
  NewTask,
  PurgedTasks,
  TaskMetadata,
  TaskObject,
  TaskObjectRecord,
  TaskOutcome,
  TaskRow,
  TaskStatusRow,
} from './tasks.js';
export type { RangeQuery, TripRecording } from './trip-recordings.js';
export type { NewOriginalFile, OriginalFile, StagedOriginal } from './original-files.js';
export { LARGE_VALUE_PART_BYTES } from './large-values.js';
export type { AttemptOutcome, AttemptRecord, DeliveryLogRow, OutboxRow } from './webhooks.js';
export type { IssuedAuthToken } from './auth-tokens.js';
export type { OAuthAccessToken, OAuthGrant } from './oauth.js';

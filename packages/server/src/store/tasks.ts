/**
 * The upload queue's records (docs/contributors/decisions.md §5; migration 3): queued_tasks, the uploaded bytes in
 * task_uploads, and the routes and trips each task made or found in task_objects.
 *
 * A task moves from pending (status 0) to success or duplicate (1) or failed (-1), never back. While a
 * worker processes it, the task carries a lease (owner and expiry): claiming takes the oldest task that
 * is pending and not leased, or whose lease ran out (its server crashed), and counts the attempt, all in
 * one UPDATE; every later change names the owner, so a worker that lost its lease can change nothing.
 * The bytes are written with the task, in one transaction (the upload is durable before it is
 * answered), and dropped when the task ends.
 */
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type {
  AssetType,
  Database,
  QueuedTasksTable,
  TaskResponseCode,
  TaskStatus,
  Visibility,
} from '../db/schema.js';
import { PreparedQuery } from '../db/prepared.js';
import { RECORD_FORMAT } from './asset-records.js';
import type { StoreContext } from './context.js';
import { IN_LARGE_VALUE, isLarge, type LargeValues } from './large-values.js';
import { assertFits, cutToWholeChars, cutWithEllipsis, TEXT_MAX_CHARS } from './text-limits.js';

export type TaskRow = Selectable<QueuedTasksTable>;

/** What the uploader said about the upload's rides and routes (trip[name], trip[description], …). */
export interface TaskMetadata {
  name?: string;
  description?: string;
  visibility?: Visibility;
}

export interface NewTask {
  userId: number;
  apiClientId: number | null;
  /** lower-case hex SHA-256 of the bytes */
  sha256: string;
  filename: string | null;
  bytes: Buffer;
  /**
   * set when `bytes` are the file gzipped by the server, not the file as sent (a ride of a ZIP
   * archive kept as its compressed data; queue/archive.ts, issue 36): the file's own length
   */
  unzippedLength?: number | null;
  metadata: TaskMetadata;
  /** the uploader's own id of the upload (Strava's external_id; issue 20), at most 255 characters */
  externalId?: string | null;
}

/** A task a worker has just claimed. */
export interface ClaimedTask {
  id: number;
  userId: number;
  apiClientId: number | null;
  externalId: string | null;
  sha256: string;
  filename: string | null;
  /**
   * the file's own length when the task's bytes are the file gzipped by the server (NewTask's
   * unzippedLength); null when they are the file as sent
   */
  unzippedLength: number | null;
  metadata: TaskMetadata;
  /** attempts so far, this one included */
  attempts: number;
}

export interface TaskObject {
  type: AssetType;
  id: number;
}

/** How a task ended. */
export interface TaskOutcome {
  status: Exclude<TaskStatus, 0>;
  responseCode: Exclude<TaskResponseCode, 'pending'>;
  message: string;
  /** a failed task's stable code, for programs (issue 16); null for every other outcome */
  errorCode: string | null;
  /** the routes and trips made (success) or found (duplicate) */
  objects: TaskObject[];
}

/** The fields of a task that the status endpoint shows. */
export type TaskStatusRow = Pick<
  TaskRow,
  | 'id'
  | 'user_id'
  | 'status'
  | 'response_code'
  | 'message'
  | 'error_code'
  | 'progress'
  | 'created_at'
  | 'updated_at'
  | 'external_id'
  | 'filename'
>;

/** One route or trip of a task, with its stored record (null: rendered in an older format). */
export interface TaskObjectRecord extends TaskObject {
  taskId: number;
  recordJson: string | null;
}

export interface PurgedTasks {
  successful: number;
  failed: number;
  /** large values of uploads that never committed (large-values.ts) */
  unnamedValues: number;
}

/** A change to a task whose lease its worker no longer holds (another worker claimed it). */
export class TaskLeaseLostError extends Error {
  override readonly name = 'TaskLeaseLostError';

  constructor(taskId: number) {
    super(`task ${taskId} is no longer leased by this worker`);
  }
}

export const TASK_MESSAGES = {
  waiting: 'Waiting to be processed',
  processing: 'Reading the file',
  /** given back because the disk was full (issue 17, queue/queue.ts) */
  waitingForSpace: "Waiting for disk space: the server's disk is full; the file is read once there is room",
  waitingForDatabase:
    'Waiting for the database: the server cannot reach it just now; the file is read once it can',
  /** given back after an unexpected error while its rides were stored (queue/queue.ts) */
  retrying: 'Waiting to be read again: storing its rides failed on the server the first time',
} as const;

/** progress (0..100) of a task a worker is reading */
const PROGRESS_PROCESSING = 10;

export class Tasks {
  readonly #context: StoreContext;
  readonly #failedRetentionMs: number;
  readonly #largeValues: LargeValues;
  readonly #statuses;

  constructor(context: StoreContext, failedRetentionMs: number, largeValues: LargeValues) {
    this.#context = context;
    this.#failedRetentionMs = failedRetentionMs;
    this.#largeValues = largeValues;
    // Clients poll this many times a second (issue 5): one statement for any list of ids, the list
    // bound as a JSON array, built once (db/prepared.ts).
    this.#statuses = new PreparedQuery(context.db, 2, (db, userId: number, idsJson: string) =>
      db
        .selectFrom('queued_tasks')
        .select([
          'id',
          'user_id',
          'status',
          'response_code',
          'message',
          'error_code',
          'progress',
          'created_at',
          'updated_at',
          'external_id',
          'filename',
        ])
        .where('user_id', '=', userId)
        .where('id', 'in', context.engine.integersOfJsonArray(idsJson)),
    );
  }

  /** Stores the task and its bytes in one transaction; the task's id. */
  async create(task: NewTask): Promise<number> {
    const [id] = await this.createMany([task]);
    return id!;
  }

  /**
   * Stores the tasks and their bytes in one transaction (the rides of one ZIP upload, issue 20: all of
   * them or none); their ids, in order. Bytes larger than a part are written first, part by part
   * (large-values.ts), and named in the transaction; should it fail, they are deleted.
   */
  async createMany(tasks: readonly NewTask[]): Promise<number[]> {
    for (const task of tasks) {
      assertFits('trip[name]', task.metadata.name, TEXT_MAX_CHARS.assetName);
      assertFits('trip[description]', task.metadata.description, TEXT_MAX_CHARS.assetDescription);
      assertFits('external_id', task.externalId ?? undefined, TEXT_MAX_CHARS.externalId);
    }
    const largeValueIds: (number | null)[] = [];
    try {
      for (const task of tasks) {
        largeValueIds.push(isLarge(task.bytes) ? await this.#largeValues.write(task.bytes) : null);
      }
      return await this.#insertMany(tasks, largeValueIds);
    } catch (error) {
      for (const id of largeValueIds) {
        if (id !== null) await this.#largeValues.deleteIfUnnamed(id).catch(() => undefined);
      }
      throw error;
    }
  }

  #insertMany(tasks: readonly NewTask[], largeValueIds: readonly (number | null)[]): Promise<number[]> {
    return this.#context.db.transaction().execute(async (db) => {
      const now = this.#context.clock();
      const ids: number[] = [];
      for (const [index, task] of tasks.entries()) {
        const { id } = await db
          .insertInto('queued_tasks')
          .values({
            user_id: task.userId,
            api_client_id: task.apiClientId,
            status: 0,
            response_code: 'pending',
            message: TASK_MESSAGES.waiting,
            progress: 0,
            sha256: task.sha256,
            filename: task.filename === null ? null : cutToWholeChars(task.filename, TEXT_MAX_CHARS.filename),
            byte_length: task.unzippedLength ?? task.bytes.length,
            gzipped_by_server: task.unzippedLength == null ? 0 : 1,
            metadata: JSON.stringify(task.metadata),
            external_id: task.externalId ?? null,
            attempts: 0,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const largeValueId = largeValueIds[index] ?? null;
        await db
          .insertInto('task_uploads')
          .values({
            task_id: id,
            bytes: largeValueId === null ? task.bytes : IN_LARGE_VALUE,
            large_value_id: largeValueId,
          })
          .execute();
        ids.push(id);
      }
      return ids;
    });
  }

  /**
   * Leases the oldest claimable task to `owner` for `leaseMs` and counts the attempt, in one UPDATE
   * (so two workers, even of two processes, never claim the same task); undefined when none waits.
   */
  async claim(owner: string, leaseMs: number): Promise<ClaimedTask | undefined> {
    const now = this.#context.clock();
    const row = await this.#context.db
      .updateTable('queued_tasks')
      .set((eb) => ({
        lease_owner: owner,
        lease_expires_at: now + leaseMs,
        attempts: eb('attempts', '+', 1),
        progress: PROGRESS_PROCESSING,
        message: TASK_MESSAGES.processing,
        updated_at: now,
      }))
      .where('id', '=', (eb) =>
        this.#context.engine.lockedForClaim(
          eb
            .selectFrom('queued_tasks')
            .select('id')
            .where('status', '=', 0)
            .where((where) =>
              where.or([where('lease_expires_at', 'is', null), where('lease_expires_at', '<=', now)]),
            )
            .orderBy('id')
            .limit(1),
        ),
      )
      .returning([
        'id',
        'user_id',
        'api_client_id',
        'external_id',
        'sha256',
        'filename',
        'byte_length',
        'gzipped_by_server',
        'metadata',
        'attempts',
      ])
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      id: row.id,
      userId: row.user_id,
      apiClientId: row.api_client_id,
      externalId: row.external_id,
      sha256: row.sha256,
      filename: row.filename,
      unzippedLength: row.gzipped_by_server === 1 ? row.byte_length : null,
      metadata: JSON.parse(row.metadata) as TaskMetadata,
      attempts: row.attempts,
    };
  }

  /** Extends the lease `owner` holds; false when it holds it no more. */
  async renewLease(taskId: number, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.#context.db
      .updateTable('queued_tasks')
      .set({ lease_expires_at: this.#context.clock() + leaseMs })
      .where('id', '=', taskId)
      .where('lease_owner', '=', owner)
      .where('status', '=', 0)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Gives the task back, pending, for any worker to claim. `countAttempt` false takes the attempt back
   * (the server is stopping, or the disk is full: the file is not to blame); true keeps it (the parser
   * crashed or ran out of time on it). `message` says why it waits.
   */
  async release(
    taskId: number,
    owner: string,
    countAttempt: boolean,
    message: string = TASK_MESSAGES.waiting,
  ): Promise<boolean> {
    const result = await this.#context.db
      .updateTable('queued_tasks')
      .set((eb) => ({
        lease_owner: null,
        lease_expires_at: null,
        progress: 0,
        message,
        updated_at: this.#context.clock(),
        ...(countAttempt ? {} : { attempts: eb('attempts', '-', 1) }),
      }))
      .where('id', '=', taskId)
      .where('lease_owner', '=', owner)
      .where('status', '=', 0)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * The uploaded bytes of a task that has not ended, in memory of their own (the parse worker takes
   * it: queue/pool.ts): a large value part by part (large-values.ts), else read in slices where the
   * engine says so (db/engine.ts, bytesReadSlice), into one buffer, so reading an upload costs little
   * more than its size (issue 18). Undefined when the task has ended meanwhile (another node read it,
   * or it was deleted) and its bytes are gone.
   */
  async uploadBytes(taskId: number): Promise<Buffer | undefined> {
    const { db, engine } = this.#context;
    const slice = engine.bytesReadSlice;
    if (slice === null) {
      const row = await db
        .selectFrom('task_uploads')
        .select(['large_value_id', 'bytes'])
        .where('task_id', '=', taskId)
        .executeTakeFirst();
      if (row?.large_value_id == null) return row?.bytes;
      return this.#largeValues.read(row.large_value_id);
    }
    const stored = await db
      .selectFrom('task_uploads')
      .select(['large_value_id', sql<number | string>`length(bytes)`.as('length')])
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    if (stored === undefined) return undefined;
    if (stored.large_value_id !== null) return this.#largeValues.read(stored.large_value_id);
    const bytes = Buffer.allocUnsafeSlow(Number(stored.length));
    for (let start = 0; start < bytes.length; start += slice) {
      const row = await db
        .selectFrom('task_uploads')
        .select(engine.bytesSlice(sql.ref('bytes'), start, slice).as('part'))
        .where('task_id', '=', taskId)
        .executeTakeFirst();
      if (row?.part == null) return undefined;
      row.part.copy(bytes, start);
    }
    return bytes;
  }

  /**
   * The routes and trips of `userId` made from an upload with these bytes (docs/contributors/decisions.md §5,
   * duplicates), trips first, each by id. Pass the transaction that is about to create more.
   */
  async assetsFromUpload(
    userId: number,
    sha256: string,
    transaction: Kysely<Database> = this.#context.db,
  ): Promise<TaskObject[]> {
    return assetsWhere(transaction, userId, sql`source_sha256 = ${sha256}`);
  }

  /**
   * The routes and trips of `userId` made from an upload through `apiClientId` (null: the dashboard's
   * own form) that carried `externalId` (issue 20: a repeated external_id from the same client and
   * user is a duplicate whatever the bytes), trips first, each by id.
   */
  async assetsWithExternalId(
    userId: number,
    apiClientId: number | null,
    externalId: string,
    transaction: Kysely<Database> = this.#context.db,
  ): Promise<TaskObject[]> {
    return assetsWhere(
      transaction,
      userId,
      apiClientId === null
        ? sql`external_id = ${externalId} AND external_client_id IS NULL`
        : sql`external_id = ${externalId} AND external_client_id = ${apiClientId}`,
    );
  }

  /**
   * Ends the task as `outcome` says, associates its objects and drops its bytes, in `transaction`
   * (the one that created the objects) or one of its own. Throws TaskLeaseLostError, which rolls the
   * transaction back, when `owner` no longer holds the task.
   */
  async finish(
    taskId: number,
    owner: string,
    outcome: TaskOutcome,
    transaction?: Kysely<Database>,
  ): Promise<void> {
    const work = async (db: Kysely<Database>): Promise<void> => {
      const now = this.#context.clock();
      const ended = await db
        .updateTable('queued_tasks')
        .set({
          status: outcome.status,
          response_code: outcome.responseCode,
          message: cutWithEllipsis(outcome.message, TEXT_MAX_CHARS.taskMessage),
          error_code: outcome.errorCode,
          progress: 100,
          lease_owner: null,
          lease_expires_at: null,
          updated_at: now,
          finished_at: now,
        })
        .where('id', '=', taskId)
        .where('lease_owner', '=', owner)
        .where('status', '=', 0)
        .returning('id')
        .executeTakeFirst();
      if (ended === undefined) throw new TaskLeaseLostError(taskId);
      if (outcome.objects.length > 0) {
        await db
          .insertInto('task_objects')
          .values(
            outcome.objects.map((object, position) => ({
              task_id: taskId,
              asset_type: object.type,
              asset_id: object.id,
              position,
            })),
          )
          .execute();
      }
      await db.deleteFrom('task_uploads').where('task_id', '=', taskId).execute();
    };
    if (transaction !== undefined) return work(transaction);
    return this.#context.db.transaction().execute(work);
  }

  /**
   * Makes `transaction` the only one storing `userId`'s rides until it ends, so the duplicate checks
   * made in it cannot miss rides another transaction stores at the same moment (db/engine.ts).
   */
  serializeRidesOf(userId: number, transaction: Kysely<Database>): Promise<void> {
    return this.#context.engine.serializeRidesOf(transaction, userId);
  }

  /** The tasks of `userId` among `ids`; others' tasks, unknown and purged ids are left out. */
  async statuses(userId: number, ids: readonly number[]): Promise<TaskStatusRow[]> {
    if (ids.length === 0) return [];
    return this.#statuses.execute(userId, JSON.stringify(ids));
  }

  /**
   * The routes and trips associated with these tasks that still exist, with their stored records,
   * in the order they were associated.
   */
  async objectRecords(taskIds: readonly number[]): Promise<TaskObjectRecord[]> {
    if (taskIds.length === 0) return [];
    const rows = await this.#context.db
      .selectFrom('task_objects as o')
      .leftJoin('trips as t', (join) => join.onRef('t.id', '=', 'o.asset_id').on('o.asset_type', '=', 'trip'))
      .leftJoin('routes as r', (join) =>
        join.onRef('r.id', '=', 'o.asset_id').on('o.asset_type', '=', 'route'),
      )
      .select(['o.task_id', 'o.asset_type', 'o.asset_id'])
      .select(sql<number | null>`coalesce(t.id, r.id)`.as('found'))
      .select(
        sql<string | null>`CASE
          WHEN t.record_format = ${RECORD_FORMAT} THEN t.record_json
          WHEN r.record_format = ${RECORD_FORMAT} THEN r.record_json
        END`.as('record_json'),
      )
      .where('o.task_id', 'in', taskIds)
      .orderBy('o.task_id')
      .orderBy('o.position')
      .execute();
    return rows
      .filter((row) => row.found !== null)
      .map((row) => ({
        taskId: row.task_id,
        type: row.asset_type,
        id: row.asset_id,
        recordJson: row.record_json,
      }));
  }

  /** One task (not its bytes), for tests and tools. */
  find(taskId: number): Promise<TaskRow | undefined> {
    return this.#context.db
      .selectFrom('queued_tasks')
      .selectAll()
      .where('id', '=', taskId)
      .executeTakeFirst();
  }

  /**
   * Deletes every successful task (duplicates too) and the failed ones that ended longer ago than the
   * retention (docs/contributors/decisions.md §5: successful tasks nightly, failed ones after 30 days); their objects
   * and any bytes go with them (foreign-key cascade); then the large values of uploads that never
   * committed.
   */
  async purge(): Promise<PurgedTasks> {
    const tasks = await this.#context.db.transaction().execute(async (db) => {
      const now = this.#context.clock();
      const successful = await db
        .deleteFrom('queued_tasks')
        .where('status', '=', 1)
        .where('finished_at', '<=', now)
        .executeTakeFirst();
      const failed = await db
        .deleteFrom('queued_tasks')
        .where('status', '=', -1)
        .where('finished_at', '<=', now - this.#failedRetentionMs)
        .executeTakeFirst();
      return { successful: Number(successful.numDeletedRows), failed: Number(failed.numDeletedRows) };
    });
    return { ...tasks, unnamedValues: await this.#largeValues.deleteUnnamed() };
  }
}

/** The trips and routes of `userId` that meet `condition` (on columns both tables have): trips first, each by id. */
async function assetsWhere(
  db: Kysely<Database>,
  userId: number,
  condition: RawBuilder<unknown>,
): Promise<TaskObject[]> {
  const { rows } = await sql<TaskObject>`
    SELECT 'trip' AS type, id FROM trips WHERE user_id = ${userId} AND ${condition}
    UNION ALL
    SELECT 'route' AS type, id FROM routes WHERE user_id = ${userId} AND ${condition}`.execute(db);
  return rows
    .map((row) => ({ type: row.type, id: row.id }))
    .sort((a, b) => (a.type === b.type ? a.id - b.id : a.type === 'trip' ? -1 : 1));
}

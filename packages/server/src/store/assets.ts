/**
 * Routes and trips (docs/contributors/decisions.md §2 and §5): created from a parsed track, listed per owner, updated and
 * deleted. Every write logs its change in asset_changes in the same transaction (store/changes.ts), and
 * ids are drawn by the engine so a deleted asset's id is never handed out again (db/engine.ts).
 * Each row keeps its v1 record rendered as JSON (store/asset-records.ts) and its points as the JSON
 * text the API sends (store/track-points.ts); points are written once, when the asset is created.
 */
import { lastPointTime, type Track, type TrackPoint } from '@rideport/ridefile';
import { sql, type Kysely } from 'kysely';
import type { AssetType, Database, RouteRow, TripRow, Visibility } from '../db/schema.js';
import {
  RECORD_FORMAT,
  routeRecordFields,
  tripRecordFields,
  type RouteRecordSource,
  type TripRecordSource,
} from './asset-records.js';
import { logAssetChange } from './changes.js';
import type { StoreContext } from './context.js';
import { isPlaceholderName, machineTimeZone, madeUpRideName } from '../activity-words.js';
import {
  assetColumns,
  timeRange,
  tripColumns,
  type TimeRange,
  type TrackTripColumns,
} from './track-columns.js';
import { assertFits, MAX_STORED_WARNINGS, TEXT_MAX_CHARS, TextTooLongError } from './text-limits.js';
import {
  packedPointCount,
  packedPointsJsonSlices,
  packTrackPoints,
  unpackTrackPoints,
} from '../codec/track-points.js';
import type { PointsRenderer } from './points-renderer.js';
import type { JsonText } from './record-body.js';

/** A track's points as the store keeps them: packed (migration 004), or the JSON text of a small track once read. */
export type StoredPoints = { packed: Uint8Array } | { json: string };

/** What the uploader (or an update) says about an asset, beside what the file says. */
export interface AssetMetadata {
  /** default: the track's own name, else "<Ride|Run|…> on <date>" for trips and "Untitled route" */
  name?: string | null;
  description?: string | null;
  /** default: private (nothing is shown to others unless its owner says so) */
  visibility?: Visibility;
  /** SHA-256 of the upload the track came from (the upload queue's duplicate check, docs/contributors/decisions.md §5) */
  sourceSha256?: string | null;
  /** the stored original of the upload (original-files.ts; issue 20) */
  originalFileId?: number | null;
  /** the uploader's own id of the upload and the API client it came through (issue 20, external_id) */
  externalId?: string | null;
  externalClientId?: number | null;
  /**
   * The track's points already packed (packTrackPoints), how many there are and their time range
   * (timeRange); when given, `track.points` is not read. The upload queue packs them in its worker
   * threads (issue 5), so that thousands of point objects are neither cloned between threads nor read
   * on the main thread.
   */
  packedPoints?: {
    bytes: Uint8Array;
    count: number;
    /** Unix seconds of the last point that has a time (lastPointTime); null when none has */
    lastTime: number | null;
    /** the first and last timed point (issue 16: which trips the ride overlaps); null without times */
    timeRange: TimeRange | null;
  };
}

export type CreatedAsset = { type: 'route'; row: RouteRow } | { type: 'trip'; row: TripRow };

export type AssetRow<T extends AssetType> = T extends 'route' ? RouteRow : TripRow;

export interface Page {
  /** rows to skip */
  offset: number;
  limit: number;
}

export interface AssetPage<T extends AssetType> {
  rows: AssetRow<T>[];
  /** every asset of the owner, not only this page */
  total: number;
}

/** How the v1 layer names a record: its URL is `<prefix><id><suffix>`. */
export interface RecordUrl {
  prefix: string;
  suffix: string;
}

/** One asset with what a single-record response needs: owner and visibility to check, record, points. */
export interface AssetRecordWithPoints {
  id: number;
  userId: number;
  visibility: Visibility;
  /** the stored record JSON, `{"id":…,"name":…,…}` (store/asset-records.ts), without `url` */
  json: string;
  /**
   * the points' JSON array text: as UTF-8 bytes, or for a track of days as pieces rendered from its
   * packed form when asked for (store/record-body.ts, issue 36)
   */
  points: JsonText;
}

/**
 * Points from which a track's JSON is not kept but rendered a slice at a time at each reading: three
 * and a half days at one a second, whose JSON (about 25 MB) is still written once at the first
 * reading. Past it the JSON is many times the packed form (a database grew by a gigabyte that way)
 * and writing it held the main thread (issue 36).
 */
export const KEEP_JSON_BELOW_POINTS = 300_000;

/** The tables behind each asset type. */
const TABLES = {
  route: { assets: 'routes', points: 'route_track_points' },
  trip: { assets: 'trips', points: 'trip_track_points' },
} as const;

export const DEFAULT_VISIBILITY: Visibility = 'private';

export class Assets {
  readonly #context: StoreContext;

  readonly #renderer: PointsRenderer;

  constructor(context: StoreContext, renderer: PointsRenderer) {
    this.#context = context;
    this.#renderer = renderer;
  }

  /** The rider's own time zone (store/preferences.ts), for naming rides without positions. */
  async #riderTimeZone(db: Kysely<Database>, userId: number): Promise<string | null> {
    const row = await db
      .selectFrom('user_preferences')
      .select('time_zone')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.time_zone ?? null;
  }

  /**
   * A trip (a track of kind 'ride') or a route (kind 'route', docs/contributors/decisions.md §5) owned by `userId`, with
   * every column of docs/contributors/decisions.md §2 filled from the track's summary, its points, and the 'created'
   * change, in one transaction. Pass `transaction` to make it part of a larger one (the upload queue
   * writes the task's outcome in the same transaction); otherwise it opens its own.
   */
  async createFromTrack(
    userId: number,
    track: Track,
    metadata: AssetMetadata = {},
    transaction?: Kysely<Database>,
  ): Promise<CreatedAsset> {
    const type: AssetType = track.kind === 'ride' ? 'trip' : 'route';
    // Everything derived from the track is computed before the transaction, which stays short.
    const range =
      metadata.packedPoints === undefined ? timeRange(track.points) : metadata.packedPoints.timeRange;
    const trip = type === 'trip' ? tripColumns(track, range) : null;
    const packed = asBuffer(metadata.packedPoints?.bytes ?? packTrackPoints(track.points));
    const name = assetName(
      metadata.name,
      track,
      trip,
      trip === null ? null : await this.#riderTimeZone(transaction ?? this.#context.db, userId),
    );
    assertFits('name', name, TEXT_MAX_CHARS.assetName);
    assertFits('description', metadata.description, TEXT_MAX_CHARS.assetDescription);
    assertTrackTextFits(track);
    return this.#inTransaction(transaction, async (db) => {
      // The clock is read inside the transaction, so a change's time never precedes a reader that
      // already holds the connection (sync.json's "since" boundary, docs/contributors/decisions.md §2).
      const now = this.#context.clock();
      const id = await this.#context.engine.nextId(db, TABLES[type].assets);
      const common: RouteRecordSource = {
        user_id: userId,
        name,
        description: blankToNull(metadata.description),
        visibility: metadata.visibility ?? DEFAULT_VISIBILITY,
        created_at: now,
        updated_at: now,
        source_sha256: metadata.sourceSha256 ?? null,
        original_file_id: metadata.originalFileId ?? null,
        external_id: metadata.externalId ?? null,
        external_client_id: metadata.externalClientId ?? null,
        laps: JSON.stringify(track.laps),
        warnings: JSON.stringify(track.warnings),
        last_point_at: lastTimeMs(
          metadata.packedPoints === undefined ? lastPointTime(track.points) : metadata.packedPoints.lastTime,
        ),
        ...assetColumns(track),
        ...(metadata.packedPoints === undefined ? {} : { point_count: metadata.packedPoints.count }),
      };
      let created: CreatedAsset;
      if (trip === null) {
        const row = await db
          .insertInto('routes')
          .values({ id, ...common, ...renderedRecord('route', id, common) })
          .returningAll()
          .executeTakeFirstOrThrow();
        await db.insertInto('route_track_points').values({ asset_id: id, packed }).execute();
        created = { type: 'route', row };
      } else {
        const values: TripRecordSource = { ...common, ...trip };
        const row = await db
          .insertInto('trips')
          .values({ id, ...values, ...renderedRecord('trip', id, values) })
          .returningAll()
          .executeTakeFirstOrThrow();
        await db.insertInto('trip_track_points').values({ asset_id: id, packed }).execute();
        created = { type: 'trip', row };
      }
      await logAssetChange(db, {
        itemType: type,
        itemId: id,
        itemUserId: userId,
        userId,
        action: 'created',
        at: now,
      });
      return created;
    });
  }

  /**
   * A stored trip completed from a more complete file of the same recording (issue 16: "when the new
   * file is more complete than a stored cut-off copy, it replaces the copy's points"): its points and
   * every column derived from the track are the new file's, and so is source_sha256 (the same bytes
   * again are then a duplicate before parsing). What the rider may have edited stays: id, name,
   * description, visibility, and the creation time. Logs 'updated' (sync.json and webhooks say so),
   * in `transaction`, the upload queue's. Undefined when there is no such trip.
   */
  async completeTrip(
    id: number,
    track: Track,
    metadata: Required<Pick<AssetMetadata, 'packedPoints' | 'sourceSha256'>>,
    transaction: Kysely<Database>,
  ): Promise<TripRow | undefined> {
    const { packedPoints } = metadata;
    assertTrackTextFits(track);
    const trip = tripColumns(track, packedPoints.timeRange);
    const before = await transaction.selectFrom('trips').selectAll().where('id', '=', id).executeTakeFirst();
    if (before === undefined) return undefined;
    const now = this.#context.clock();
    const values = {
      ...assetColumns(track),
      ...trip,
      point_count: packedPoints.count,
      laps: JSON.stringify(track.laps),
      // The new file's warnings replace the cut-off copy's (its end is no longer the ride's).
      warnings: JSON.stringify(track.warnings),
      last_point_at: lastTimeMs(packedPoints.lastTime),
      source_sha256: metadata.sourceSha256,
      updated_at: now,
    };
    const row = await transaction
      .updateTable('trips')
      .set({ ...values, ...renderedRecord('trip', id, { ...before, ...values }) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await transaction
      .updateTable('trip_track_points')
      .set({ packed: asBuffer(packedPoints.bytes), points: null })
      .where('asset_id', '=', id)
      .execute();
    // The power curve was the old points' (store/power-curves.ts computes the new one when needed).
    await transaction.deleteFrom('trip_power_curves').where('trip_id', '=', id).execute();
    await logAssetChange(transaction, {
      itemType: 'trip',
      itemId: id,
      itemUserId: row.user_id,
      userId: row.user_id,
      action: 'updated',
      at: now,
    });
    return row;
  }

  /** The names of these assets, by id; an id of no asset is left out (the sync page's history). */
  async names(type: AssetType, ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#context.db
      .selectFrom(TABLES[type].assets as 'trips')
      .select(['id', 'name'])
      .where('id', 'in', ids)
      .execute();
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  async find<T extends AssetType>(type: T, id: number): Promise<AssetRow<T> | undefined> {
    // Both tables hold AssetColumns; the cast only names one table for Kysely's types.
    const row = await this.#context.db
      .selectFrom(TABLES[type].assets as 'trips')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row;
  }

  /**
   * One page of `ownerId`'s assets as rows, newest change first (docs/contributors/decisions.md §2: updated_at
   * descending, then id descending), and how many there are.
   */
  async listByOwner<T extends AssetType>(type: T, ownerId: number, page: Page): Promise<AssetPage<T>> {
    const table = TABLES[type].assets as 'trips';
    const total = await this.#count(table, ownerId);
    if (total <= page.offset) return { rows: [], total };
    const rows = await this.#context.db
      .selectFrom(table)
      .selectAll()
      .where('user_id', '=', ownerId)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { rows, total };
  }

  /**
   * One page of `ownerId`'s assets for the dashboard (issue 7): trips by departure, newest first
   * (trips without a departure time last; index trips_user_departed, migration 5), routes by creation,
   * newest first; then id descending.
   */
  async listForDashboard<T extends AssetType>(type: T, ownerId: number, page: Page): Promise<AssetPage<T>> {
    const table = TABLES[type].assets as 'trips';
    const total = await this.#count(table, ownerId);
    if (total <= page.offset) return { rows: [], total };
    const query = this.#context.db.selectFrom(table).selectAll().where('user_id', '=', ownerId);
    const rows = await (
      type === 'trip' ? query.orderBy('departed_at', 'desc') : query.orderBy('created_at', 'desc')
    )
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { rows, total };
  }

  /**
   * Every point of an asset, as objects (the dashboard's charts and downloads, issue 7), from the
   * packed form when it is still stored, else from the JSON text; undefined when there is no such
   * asset's points row. Pass `db` to read inside a transaction (the upload queue's, issue 16).
   */
  async points(
    type: AssetType,
    id: number,
    db: Kysely<Database> = this.#context.db,
  ): Promise<TrackPoint[] | undefined> {
    const stored = await this.storedPoints(type, id, db);
    if (stored === undefined) return undefined;
    return 'packed' in stored ? unpackTrackPoints(stored.packed) : (JSON.parse(stored.json) as TrackPoint[]);
  }

  /**
   * An asset's points as they are stored, packed or as JSON text, without reading them (the upload
   * queue compares a stored trip's points in a worker thread, issue 36); undefined when there is no
   * such asset's points row.
   */
  async storedPoints(
    type: AssetType,
    id: number,
    db: Kysely<Database> = this.#context.db,
  ): Promise<StoredPoints | undefined> {
    const found = await db
      .selectFrom(TABLES[type].points as 'trip_track_points')
      .select(['points', 'packed'])
      .where('asset_id', '=', id)
      .executeTakeFirst();
    if (found === undefined) return undefined;
    return found.packed !== null ? { packed: found.packed } : { json: found.points ?? '[]' };
  }

  /**
   * One page of `ownerId`'s assets as their v1 records (recordWithUrl), joined with commas, in list
   * order; and how many assets the owner has. Two queries on the (user_id, updated_at DESC, id DESC)
   * index: an index-only count, then one short column per row, the stored JSON, which is spliced, never
   * parsed or rebuilt. Materialising the 45 numeric columns of 200 rows would cost more than all the
   * rest of the request (issue 4, bench/api.ts).
   */
  async listRecordsJson(
    type: AssetType,
    ownerId: number,
    page: Page,
    url: RecordUrl,
  ): Promise<{ total: number; items: string }> {
    const table = TABLES[type].assets as 'trips';
    const total = await this.#count(table, ownerId);
    if (total <= page.offset) return { total, items: '' };
    const rows = await this.#context.db
      .selectFrom(table)
      // null for a row rendered in another format (or before migration 002): rendered again below
      .select(sql<string | null>`CASE WHEN record_format = ${RECORD_FORMAT} THEN record_json END`.as('json'))
      .select('id')
      .where('user_id', '=', ownerId)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const escaped = escapedUrl(url);
    const items = new Array<string>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      items[i] = spliceUrl(row.json ?? (await this.#renderAgain(type, row.id)), escaped);
    }
    return { total, items: items.join(',') };
  }

  /**
   * The asset's record JSON, owner, visibility and points in one query. The points come as bytes
   * (a CAST in SQL), so the text of 10,000 points is neither decoded into a JavaScript string nor
   * encoded again on its way to the socket.
   */
  async findRecordWithPoints(type: AssetType, id: number): Promise<AssetRecordWithPoints | undefined> {
    const { assets, points } = TABLES[type];
    const found = await this.#context.db
      .selectFrom(`${assets as 'trips'} as a`)
      .leftJoin(`${points as 'trip_track_points'} as p`, 'p.asset_id', 'a.id')
      .select(['a.id', 'a.user_id', 'a.visibility'])
      .select(
        sql<string | null>`CASE WHEN a.record_format = ${RECORD_FORMAT} THEN a.record_json END`.as('json'),
      )
      .select(this.#context.engine.textAsBytes(sql.ref('p.points')).as('points'))
      .select('p.packed')
      .where('a.id', '=', id)
      .executeTakeFirst();
    if (found === undefined) return undefined;
    return {
      id: found.id,
      userId: found.user_id,
      visibility: found.visibility,
      json: found.json ?? (await this.#renderAgain(type, found.id)),
      points:
        found.points ??
        (found.packed === null ? Buffer.from('[]') : await this.#pointsJson(type, id, found.packed)),
    };
  }

  /**
   * The JSON of points stored packed (migration 004), rendered by the store's renderer. A small
   * track's is kept in place of the packed form the first time, so every later read sends the text
   * as it is; a reader that renders the same points meanwhile writes the same text, and the second
   * write changes nothing. A huge track stays packed and its JSON is rendered a slice at a time as the
   * response is sent, at each reading (issue 36, store/record-body.ts).
   */
  async #pointsJson(type: AssetType, id: number, packed: Buffer): Promise<JsonText> {
    if (packedPointCount(packed) >= KEEP_JSON_BELOW_POINTS) return packedPointsJsonSlices(packed);
    const json = await this.#renderer.render(packed);
    await this.#context.db
      .updateTable(TABLES[type].points as 'trip_track_points')
      .set({ points: json.toString('utf8'), packed: null })
      .where('asset_id', '=', id)
      .where('points', 'is', null)
      .execute();
    return json;
  }

  /**
   * The rider's rides without positions, named by the part of the day in the rider's zone when they
   * came (madeUpRideName with `fromZone`), named again in `toZone` (issue 40: "Lunch Ride" for a ride
   * begun at 06:54 after the rider chose their zone). A name the rider or the file gave is kept: only a
   * name equal to the one made up in `fromZone` changes. (A rider who typed that very name in gets it
   * moved too; nothing tells the two apart.) Returns how many were renamed.
   */
  async renameMadeUpNames(userId: number, fromZone: string, toZone: string): Promise<number> {
    if (fromZone === toZone) return 0;
    const rides = await this.#context.db
      .selectFrom('trips')
      .select(['id', 'name', 'activity_type', 'departed_at'])
      .where('user_id', '=', userId)
      .where('time_zone', 'is', null)
      .where('departed_at', 'is not', null)
      .execute();
    let renamed = 0;
    for (const ride of rides) {
      const made = (zone: string): string =>
        madeUpRideName(
          { activityType: ride.activity_type, startTime: ride.departed_at! / 1000, timeZone: null },
          zone,
        );
      const now = made(toZone);
      if (ride.name !== made(fromZone) || ride.name === now) continue;
      await this.update('trip', ride.id, userId, { name: now });
      renamed += 1;
    }
    return renamed;
  }

  /**
   * Changes name, description or visibility, as `actorId`; logs 'updated'. Undefined when there is no
   * such asset. A name that is blank is left as it was.
   */
  async update<T extends AssetType>(
    type: T,
    id: number,
    actorId: number,
    changes: AssetMetadata,
  ): Promise<AssetRow<T> | undefined> {
    return this.#context.db.transaction().execute(async (db) => {
      const now = this.#context.clock();
      const table = TABLES[type].assets as 'trips';
      const before = await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst();
      if (before === undefined) return undefined;
      const name = changes.name?.trim();
      assertFits('name', name, TEXT_MAX_CHARS.assetName);
      assertFits('description', changes.description, TEXT_MAX_CHARS.assetDescription);
      const set = {
        ...(name === undefined || name === '' ? {} : { name }),
        ...(changes.description === undefined ? {} : { description: blankToNull(changes.description) }),
        ...(changes.visibility === undefined ? {} : { visibility: changes.visibility }),
        updated_at: now,
      };
      const row = await db
        .updateTable(table)
        .set({ ...set, ...renderedRecord(type, id, { ...before, ...set }) })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await logAssetChange(db, {
        itemType: type,
        itemId: id,
        itemUserId: row.user_id,
        userId: actorId,
        action: 'updated',
        at: now,
      });
      return row;
    });
  }

  /** Deletes the asset and its points (foreign-key cascade), as `actorId`; logs 'deleted'. */
  async delete(type: AssetType, id: number, actorId: number): Promise<boolean> {
    return (await this.deleteMany(type, [id], actorId)) === 1;
  }

  /**
   * Deletes these assets of one owner and their points in one transaction, as `actorId`, logging
   * 'deleted' for each (the dashboard's "delete selected", issue 19): all or none. Ids that name no
   * asset, or another owner's, are left alone and not counted. How many were deleted.
   */
  async deleteMany(
    type: AssetType,
    ids: readonly number[],
    actorId: number,
    ownerId?: number,
  ): Promise<number> {
    if (ids.length === 0) return 0;
    return this.#context.db.transaction().execute(async (db) => {
      const now = this.#context.clock();
      let query = db
        .deleteFrom(TABLES[type].assets as 'trips')
        .where('id', 'in', [...new Set(ids)])
        .returning(['id', 'user_id']);
      if (ownerId !== undefined) query = query.where('user_id', '=', ownerId);
      const deleted = (await query.execute()).sort((a, b) => a.id - b.id);
      for (const row of deleted) {
        await logAssetChange(db, {
          itemType: type,
          itemId: row.id,
          itemUserId: row.user_id,
          userId: actorId,
          action: 'deleted',
          at: now,
        });
      }
      return deleted.length;
    });
  }

  /**
   * One page of `ownerId`'s assets that a viewer may see, as record JSON (recordWithUrl) in list order
   * (updated_at descending, then id descending), and how many the viewer may see in all: every asset
   * for `'all'` (the owner), only the public ones for `'public'` (anyone else; the legacy lists,
   * docs/contributors/decisions.md §5: "others see only public items").
   */
  async listVisibleRecords(
    type: AssetType,
    ownerId: number,
    page: Page,
    url: RecordUrl,
    scope: 'all' | 'public',
  ): Promise<{ total: number; records: string[] }> {
    const table = TABLES[type].assets as 'trips';
    const owned = () => {
      const query = this.#context.db.selectFrom(table).where('user_id', '=', ownerId);
      return scope === 'public' ? query.where('visibility', '=', 'public') : query;
    };
    const counted = await owned()
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    const total = counted.total;
    if (total <= page.offset) return { total, records: [] };
    const rows = await owned()
      .select(sql<string | null>`CASE WHEN record_format = ${RECORD_FORMAT} THEN record_json END`.as('json'))
      .select('id')
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const escaped = escapedUrl(url);
    const records: string[] = [];
    for (const row of rows)
      records.push(spliceUrl(row.json ?? (await this.#renderAgain(type, row.id)), escaped));
    return { total, records };
  }

  /**
   * The record JSON (recordWithUrl) of each asset in `ids`, in the order given; an id with no asset
   * (deleted meanwhile) is left out. For lists whose order is decided elsewhere (a club's routes).
   */
  async recordsByIds(type: AssetType, ids: readonly number[], url: RecordUrl): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.#context.db
      .selectFrom(TABLES[type].assets as 'trips')
      .select(sql<string | null>`CASE WHEN record_format = ${RECORD_FORMAT} THEN record_json END`.as('json'))
      .select('id')
      .where('id', 'in', ids)
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row.json]));
    const escaped = escapedUrl(url);
    const records: string[] = [];
    for (const id of ids) {
      if (!byId.has(id)) continue;
      records.push(spliceUrl(byId.get(id) ?? (await this.#renderAgain(type, id)), escaped));
    }
    return records;
  }

  async #count(table: 'routes' | 'trips', ownerId: number): Promise<number> {
    const counted = await this.#context.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('user_id', '=', ownerId)
      .executeTakeFirstOrThrow();
    return counted.total;
  }

  /** The record JSON of a row written in an older format (or before migration 002), from its columns. */
  async #renderAgain(type: AssetType, id: number): Promise<string> {
    const row = await this.find(type, id);
    // The row was just read; only a delete in between can take it away.
    if (row === undefined) throw new Error(`${type} ${id} disappeared while being read`);
    return renderedRecord(type, id, row).record_json;
  }

  #inTransaction<R>(
    transaction: Kysely<Database> | undefined,
    work: (db: Kysely<Database>) => Promise<R>,
  ): Promise<R> {
    return transaction === undefined ? this.#context.db.transaction().execute(work) : work(transaction);
  }
}

/**
 * The record as the v1 API sends it: the stored JSON (store/asset-records.ts) with `"url":"<prefix>
 * <id><suffix>"` after the id. The URL is not stored: it depends on the public base URL the server
 * runs with.
 */
export function recordWithUrl(recordJson: string, url: RecordUrl): string {
  return spliceUrl(recordJson, escapedUrl(url));
}

function spliceUrl(recordJson: string, url: RecordUrl): string {
  // The stored JSON begins `{"id":<integer>,`: the first comma ends the id.
  const comma = recordJson.indexOf(',');
  const id = recordJson.slice('{"id":'.length, comma);
  return `${recordJson.slice(0, comma)},"url":"${url.prefix}${id}${url.suffix}"${recordJson.slice(comma)}`;
}

/** The URL's parts as they appear inside a JSON string. */
function escapedUrl(url: RecordUrl): RecordUrl {
  return { prefix: JSON.stringify(url.prefix).slice(1, -1), suffix: JSON.stringify(url.suffix).slice(1, -1) };
}

/** The record_json and record_format columns for a row with these values. */
function renderedRecord(
  type: AssetType,
  id: number,
  values: RouteRecordSource | TripRecordSource,
): { record_json: string; record_format: number } {
  const fields = type === 'trip' ? tripRecordFields(values as TripRecordSource) : routeRecordFields(values);
  // `id` first: recordWithUrl puts the URL right after it.
  return { record_json: JSON.stringify({ id, ...fields }), record_format: RECORD_FORMAT };
}

/**
 * The texts a track brings from its file within the store's maxima (store/text-limits.ts). The parser
 * bounds them already (@rideport/ridefile, file-text.ts): this only refuses a track made otherwise.
 */
function assertTrackTextFits(track: Track): void {
  assertFits('the device name', track.summary.device, TEXT_MAX_CHARS.device);
  assertFits("the device's serial number", track.recording.serialNumber, TEXT_MAX_CHARS.recordingSerial);
  if (track.warnings.length > MAX_STORED_WARNINGS) {
    throw new TextTooLongError(
      'warnings',
      MAX_STORED_WARNINGS,
      `a route or trip keeps at most ${MAX_STORED_WARNINGS} warnings`,
    );
  }
  for (const warning of track.warnings) {
    assertFits('a warning', warning.message, TEXT_MAX_CHARS.warningMessage);
  }
}

/** Unix seconds (whole, as points carry them) to the milliseconds the time columns hold. */
function lastTimeMs(seconds: number | null): number | null {
  return seconds === null ? null : seconds * 1000;
}

function blankToNull(text: string | null | undefined): string | null {
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === '' ? null : trimmed;
}

/**
 * The uploader's name, else the file's, else one made up so a list never shows an empty name: rides
 * as Strava names them ("Morning Ride", activity-words.ts), routes "Untitled route". A file's name that
 * only says it has none ("Untitled", "Track 3": isPlaceholderName) counts as none.
 */
function assetName(
  given: string | null | undefined,
  track: Track,
  trip: TrackTripColumns | null,
  riderTimeZone: string | null,
): string {
  const fileName = blankToNull(track.name);
  const name = blankToNull(given) ?? (fileName !== null && isPlaceholderName(fileName) ? null : fileName);
  if (name !== null) return name;
  if (trip === null) return 'Untitled route';
  return madeUpRideName(
    { activityType: trip.activity_type, startTime: track.startTime, timeZone: trip.time_zone },
    riderTimeZone ?? machineTimeZone(),
  );
}

/** A Buffer over the same memory: better-sqlite3 binds BLOBs from Buffers. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

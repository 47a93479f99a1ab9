/**
 * Trips by their time range (issue 16, "One ride per ride"; migration 8): the trips of a user whose
 * first-to-last timed point meets a range, with what identifies their recording. The upload queue asks
 * it, inside the transaction that stores a file's rides, which stored trips a new ride could be the
 * same recording as; the ride page asks it which rides overlap the one shown.
 *
 * Both read the index on (user_id, started_at): trips that start from LONG_TRIP_MS before the range up
 * to its end, then those ending in or after it. Trips longer than LONG_TRIP_MS (a 30-hour brevet, a
 * device whose clock jumped) are found through their own partial index, scanned up to the range's end.
 */
import { sql, type Kysely } from 'kysely';
import { LONG_TRIP_MS } from '../db/migrations/008-recordings.js';
import type { Database, TripRow } from '../db/schema.js';
import type { StoreContext } from './context.js';

/** A stored trip's time range and what identifies its recording. */
export type TripRecording = Pick<
  TripRow,
  | 'id'
  | 'name'
  | 'user_id'
  | 'time_zone'
  | 'device'
  | 'recording_serial'
  | 'recording_created_at'
  | 'started_at'
  | 'ended_at'
  | 'point_count'
>;

const COLUMNS = [
  'id',
  'name',
  'user_id',
  'time_zone',
  'device',
  'recording_serial',
  'recording_created_at',
  'started_at',
  'ended_at',
  'point_count',
] as const;

/** Which trips a range takes in. */
export interface RangeQuery {
  /** Unix ms */
  fromMs: number;
  toMs: number;
  /**
   * `touching` (the upload queue): ranges that share an instant, a trip of one point included;
   * `overlapping` (the ride page): ranges that share more than an instant, so a ride that ends as the
   * next begins (a device that splits a long ride) does not count as overlapping it.
   */
  meet: 'touching' | 'overlapping';
  /** leave this trip out (the ride page's own) */
  exceptId?: number;
}

export class TripRecordings {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /**
   * `userId`'s trips whose time range meets the query's, by start time then id. Pass the transaction
   * that is about to store a ride, so a trip stored by a concurrent upload is seen.
   */
  async inRange(
    userId: number,
    query: RangeQuery,
    db: Kysely<Database> = this.#context.db,
  ): Promise<TripRecording[]> {
    const rows = await rangeQuery(db, userId, query).execute();
    return rows
      .filter((row) => row.id !== query.exceptId)
      .sort((a, b) => (a.started_at ?? 0) - (b.started_at ?? 0) || a.id - b.id);
  }
}

/** The query of TripRecordings.inRange, unsorted (exported for its query-plan test). */
export function rangeQuery(db: Kysely<Database>, userId: number, query: RangeQuery) {
  const { fromMs, toMs } = query;
  const touching = query.meet === 'touching';
  const within = db
    .selectFrom('trips')
    .select(COLUMNS)
    .where('user_id', '=', userId)
    .where('started_at', '>=', fromMs - LONG_TRIP_MS)
    .where('started_at', touching ? '<=' : '<', toMs)
    .where('ended_at', touching ? '>=' : '>', fromMs);
  const long = db
    .selectFrom('trips')
    .select(COLUMNS)
    .where('user_id', '=', userId)
    // exactly the partial index's condition (migration 8), so SQLite reads that index
    .where(sql<boolean>`ended_at - started_at > ${sql.lit(LONG_TRIP_MS)}`)
    .where('started_at', touching ? '<=' : '<', toMs)
    .where('ended_at', touching ? '>=' : '>', fromMs);
  return within.union(long);
}

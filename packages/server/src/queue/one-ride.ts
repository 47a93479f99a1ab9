/**
 * One ride per ride (issue 16): for each ride of an uploaded file, the stored trip of the same user
 * that is the same recording (same-recording.ts), if any, and whether the new file completes it; and
 * the task's words for what was found. Runs inside the transaction that stores the file's rides
 * (queue.ts), like the SHA-256 re-check, so two uploads of one recording at once make one trip: the
 * second transaction starts after the first commits and finds its trip. The comparisons of points it
 * needs are made before that transaction, in a worker thread (PointComparisons).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Store, TaskObject, TaskOutcome, TripRecording } from '../store/index.js';
import type { CompareOutcome, CompareRequest } from './compare-worker.js';
import type { ParsedTrack } from './parse-worker.js';
import { compareIdentities, trackFacts, type RecordingFacts } from './same-recording.js';

/** A stored trip that is the same recording as a new ride. */
export interface SameRide {
  trip: TripRecording;
  /** the new file goes on where the stored copy was cut off: it replaces the copy's points */
  completes: boolean;
}

function storedFacts(trip: TripRecording): RecordingFacts {
  const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));
  return {
    serialNumber: trip.recording_serial,
    timeCreated: seconds(trip.recording_created_at),
    device: trip.device,
    firstTime: seconds(trip.started_at),
    lastTime: seconds(trip.ended_at),
  };
}

/**
 * Stored trips compared with a ride, by id, each with what changes when the trip is completed from
 * another file (its end and its points), so a trip completed since is compared again.
 */
export type TripsCompared = Map<number, string>;

export function comparedAs(trip: Pick<TripRecording, 'ended_at' | 'point_count'>): string {
  return `${trip.ended_at}/${trip.point_count}`;
}

/** A comparison of points in a worker thread of the parse pool (compare-worker.ts). */
export type CompareInThread = (request: CompareRequest) => Promise<CompareOutcome>;

/**
 * The comparisons of one new ride's points with stored trips, each made once, in a worker thread, and
 * kept by the trip as it was compared (comparedAs): the queue makes them before the transaction that
 * stores the ride, so that inside it, where every other request waits on SQLite, they are looked up,
 * and only a trip completed meanwhile is compared again (issue 36: two rides of 2,000,000 points
 * compared as objects, inside the transaction, stopped the server for 5 s).
 */
export class PointComparisons {
  readonly #compare: CompareInThread;
  readonly #made = new Map<number, { as: string; outcome: CompareOutcome }>();

  constructor(compare: CompareInThread) {
    this.#compare = compare;
  }

  async of(
    store: Store,
    trip: TripRecording,
    parsed: ParsedTrack,
    facts: RecordingFacts,
    db: Kysely<Database> | undefined,
  ): Promise<CompareOutcome> {
    const as = comparedAs(trip);
    const made = this.#made.get(trip.id);
    if (made?.as === as) return made.outcome;
    const outcome = await this.#compare({
      incoming: parsed.packedPoints,
      incomingFacts: facts,
      // A trip without a points row has no points.
      stored: (await store.assets.storedPoints('trip', trip.id, db)) ?? { json: '[]' },
      storedFacts: storedFacts(trip),
    });
    this.#made.set(trip.id, { as, outcome });
    return outcome;
  }
}

/**
 * The first stored trip of `userId` (by start time) that is the same recording as `parsed`, read
 * with `db` (a transaction, or the store's connection when omitted); null when none is. A trip in
 * `compared` as it is now is passed over, and every trip compared is put there (queue.ts checks
 * again under the rider's lock, comparing only the trips stored or completed since). Only trips whose
 * time range touches the ride's are compared; points are compared (`comparisons`) only when the
 * identities cannot decide, or to see whether the new file completes.
 */
export async function findSameRide(
  store: Store,
  userId: number,
  parsed: ParsedTrack,
  comparisons: PointComparisons,
  db?: Kysely<Database>,
  compared: TripsCompared = new Map(),
): Promise<SameRide | null> {
  const range = parsed.timeRange;
  if (parsed.track.kind !== 'ride' || range === null) return null;
  const candidates = await store.tripRecordings.inRange(
    userId,
    { fromMs: range.first * 1000, toMs: range.last * 1000, meet: 'touching' },
    db,
  );
  if (candidates.length === 0) return null;
  const facts = trackFacts(parsed.track, range);
  for (const trip of candidates) {
    if (compared.get(trip.id) === comparedAs(trip)) continue;
    compared.set(trip.id, comparedAs(trip));
    const stored = storedFacts(trip);
    const identity = compareIdentities(facts, stored);
    if (identity.kind === 'different') continue;
    const longer = stored.lastTime !== null && facts.lastTime !== null && stored.lastTime < facts.lastTime;
    if (identity.kind === 'same' && !longer) return { trip, completes: false };
    const points = await comparisons.of(store, trip, parsed, facts, db);
    if (identity.kind === 'compare points' && !points.agree) continue;
    return { trip, completes: longer && points.completes };
  }
  return null;
}

/** "Morning Ride", "Morning Ride and Evening Ride", "A, B and C". */
export function inWords(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}

/** Rides a task's message names; more are counted (issue 17: a file of 500 stored rides, one short message). */
const MAX_NAMED_RIDES = 5;

function names(rides: readonly SameRide[]): string {
  const named = rides.slice(0, MAX_NAMED_RIDES).map((ride) => ride.trip.name);
  const more = rides.length - named.length;
  return more === 0 ? inWords(named) : `${named.join(', ')} and ${more} more`;
}

/**
 * What the task says of the rides found already stored: "Already on the platform as Morning Ride",
 * and when the file completed a cut-off copy, that it did.
 */
export function foundWords(found: readonly SameRide[]): string {
  const completed = found.filter((ride) => ride.completes);
  const words = `Already on the platform as ${names(found)}`;
  if (completed.length === 0) return words;
  const which = completed.length === found.length ? 'it was' : `${names(completed)} was`;
  return `${words}; ${which} completed from this file, which goes on where the stored copy was cut off`;
}

/** A file whose every ride is already stored: status 1, `duplicate`, the stored trips as its objects. */
export function sameRecordingOutcome(found: readonly SameRide[]): TaskOutcome {
  return {
    status: 1,
    responseCode: 'duplicate',
    message: foundWords(found),
    errorCode: null,
    objects: found.map((ride) => ({ type: 'trip', id: ride.trip.id }) satisfies TaskObject),
  };
}

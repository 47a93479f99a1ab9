/**
 * Each ride's power curve, computed once (issue 19, "A rider's overview"; migration 11): the overview's
 * best curve over all rides is the best of these short rows, never a walk over every point of every
 * ride. A ride's curve is computed from its stored points the first time the overview needs it (rides
 * stored before migration 11 included), at most MAX_COMPUTED_PER_CALL in one call so one page view
 * stays bounded; Assets.completeTrip drops the row of a ride whose points it replaces, and deleting a
 * ride drops its row (ON DELETE CASCADE).
 */
import { analyseRide, analysisColumns, POWER_CURVE_SECONDS } from '@rideport/ridefile';
import type { StoreContext } from './context.js';
import type { Assets } from './assets.js';

/** Rides whose curve one call computes at most (an hour's ride takes some milliseconds). */
export const MAX_COMPUTED_PER_CALL = 200;

/** A ride's best power per POWER_CURVE_SECONDS window, null where the ride is shorter. */
export type PowerCurve = ReadonlyArray<number | null>;

export interface RideCurve {
  tripId: number;
  name: string;
  /** when the ride began (Unix ms) and the zone of its first position; null when unknown (issue 40) */
  departedAt: number | null;
  timeZone: string | null;
  curve: PowerCurve;
}

export interface StoredCurves {
  /** the rides with power, each with its curve */
  rides: RideCurve[];
  /** rides whose curve is not computed yet (more than MAX_COMPUTED_PER_CALL were missing) */
  pending: number;
}

function parseCurve(json: string): PowerCurve {
  try {
    const value: unknown = JSON.parse(json);
    if (!Array.isArray(value)) return [];
    return POWER_CURVE_SECONDS.map((_, index) => {
      const watts: unknown = value[index];
      return typeof watts === 'number' && Number.isFinite(watts) ? watts : null;
    });
  } catch {
    return [];
  }
}

export class PowerCurves {
  readonly #context: StoreContext;
  readonly #assets: Assets;

  constructor(context: StoreContext, assets: Assets) {
    this.#context = context;
    this.#assets = assets;
  }

  /** The curves of the rider's rides, computing up to MAX_COMPUTED_PER_CALL missing ones first. */
  async ofRider(userId: number): Promise<StoredCurves> {
    const { db } = this.#context;
    const missing = await db
      .selectFrom('trips')
      .leftJoin('trip_power_curves', 'trip_power_curves.trip_id', 'trips.id')
      .select('trips.id')
      .where('trips.user_id', '=', userId)
      .where('trip_power_curves.trip_id', 'is', null)
      .orderBy('trips.id')
      .execute();
    for (const { id } of missing.slice(0, MAX_COMPUTED_PER_CALL)) {
      const points = (await this.#assets.points('trip', id)) ?? [];
      const power = analyseRide(analysisColumns(points), {
        ftpWatts: null,
        thresholdHeartRate: null,
        maxHeartRate: null,
      }).power;
      await db
        .insertInto('trip_power_curves')
        .values({ trip_id: id, curve: JSON.stringify(power?.curve.map((point) => point.watts) ?? []) })
        .onConflict((conflict) => conflict.column('trip_id').doNothing())
        .execute();
    }
    const rows = await db
      .selectFrom('trip_power_curves')
      .innerJoin('trips', 'trips.id', 'trip_power_curves.trip_id')
      .select(['trips.id', 'trips.name', 'trips.departed_at', 'trips.time_zone', 'trip_power_curves.curve'])
      .where('trips.user_id', '=', userId)
      .where('trip_power_curves.curve', '!=', '[]')
      .execute();
    return {
      rides: rows.map((row) => ({
        tripId: row.id,
        name: row.name,
        departedAt: row.departed_at,
        timeZone: row.time_zone,
        curve: parseCurve(row.curve),
      })),
      pending: Math.max(0, missing.length - MAX_COMPUTED_PER_CALL),
    };
  }
}

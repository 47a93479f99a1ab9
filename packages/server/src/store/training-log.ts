/**
 * The rides the overview adds up (issue 19, "A rider's overview"): each ride's start, distance, moving
 * time and climb since a time, through the index on (user_id, departed_at).
 */
import type { StoreContext } from './context.js';

export interface LoggedRide {
  /** Unix ms */
  departedAt: number;
  /** metres */
  distance: number | null;
  /** seconds */
  movingTime: number | null;
  /** metres */
  elevationGain: number | null;
}

export class TrainingLog {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /** The rider's rides that started at or after `fromMs`, oldest first. */
  async ridesSince(userId: number, fromMs: number): Promise<LoggedRide[]> {
    const rows = await this.#context.db
      .selectFrom('trips')
      .select(['departed_at', 'distance', 'moving_time', 'elevation_gain'])
      .where('user_id', '=', userId)
      .where('departed_at', '>=', fromMs)
      .orderBy('departed_at')
      .execute();
    return rows.map((row) => ({
      departedAt: row.departed_at!,
      distance: row.distance,
      movingTime: row.moving_time,
      elevationGain: row.elevation_gain,
    }));
  }
}

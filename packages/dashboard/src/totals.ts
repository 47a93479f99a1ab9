/**
 * Weekly and monthly totals for the overview (issue 19, "A rider's overview", like Strava's training
 * log): distance, moving time, climb and rides per calendar week (Monday to Sunday) or month, in the
 * rider's time zone, for the last `count` periods up to the one holding `now`. Periods without rides
 * are there with zeros, so a chart's bars are evenly spaced in time.
 */
import type { LoggedRide } from '@rideport/server/web';

export type Period = 'week' | 'month';

export interface PeriodTotal {
  /** the period's first day, YYYY-MM-DD */
  start: string;
  rides: number;
  /** metres */
  distance: number;
  /** seconds */
  movingTime: number;
  /** metres */
  elevationGain: number;
}

const DAY_MS = 86_400_000;

/** Day formats by time zone, for the calendar day an instant falls on there. */
const DAY_FORMATS = new Map<string, Intl.DateTimeFormat>();

/** The calendar day of `milliseconds` in `timeZone`, as the UTC midnight of that day (for day arithmetic). */
function localDay(milliseconds: number, timeZone: string): number {
  let format = DAY_FORMATS.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    DAY_FORMATS.set(timeZone, format);
  }
  // en-CA writes YYYY-MM-DD.
  return Date.parse(`${format.format(new Date(milliseconds))}T00:00:00Z`);
}

/** The first day of the period holding `day` (a UTC midnight), as a UTC midnight. */
function periodStart(day: number, period: Period): number {
  const date = new Date(day);
  if (period === 'month') return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  return day - ((date.getUTCDay() + 6) % 7) * DAY_MS;
}

/** The first day of the period `steps` periods before the one starting at `start`. */
function periodBefore(start: number, period: Period, steps: number): number {
  const date = new Date(start);
  if (period === 'month') return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - steps, 1);
  return start - steps * 7 * DAY_MS;
}

/**
 * When the earliest of the last `count` periods begins, as an instant a day early (a zone's midnight
 * lies within a day of UTC's): the store's query reads from there, and totals() leaves out what is
 * before the period in the rider's zone.
 */
export function firstPeriodFrom(now: number, timeZone: string, period: Period, count: number): number {
  return periodBefore(periodStart(localDay(now, timeZone), period), period, count - 1) - DAY_MS;
}

/** The last `count` periods up to the one holding `now`, oldest first, each with the rides that began in it. */
export function totals(
  rides: readonly LoggedRide[],
  { now, timeZone, period, count }: { now: number; timeZone: string; period: Period; count: number },
): PeriodTotal[] {
  const current = periodStart(localDay(now, timeZone), period);
  const starts = Array.from({ length: count }, (_, index) =>
    periodBefore(current, period, count - 1 - index),
  );
  const byStart = new Map(
    starts.map((start) => [
      start,
      {
        start: new Date(start).toISOString().slice(0, 10),
        rides: 0,
        distance: 0,
        movingTime: 0,
        elevationGain: 0,
      },
    ]),
  );
  for (const ride of rides) {
    const total = byStart.get(periodStart(localDay(ride.departedAt, timeZone), period));
    if (total === undefined) continue;
    total.rides += 1;
    total.distance += ride.distance ?? 0;
    total.movingTime += ride.movingTime ?? 0;
    total.elevationGain += ride.elevationGain ?? 0;
  }
  return [...byStart.values()];
}

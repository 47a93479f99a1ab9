/**
 * The overview's weekly and monthly totals (totals.ts, issue 19) over random rides, zones and days:
 * periods are whole, consecutive and end with today's; every ride in them is counted once, in the
 * period of its local day; nothing is lost or made up.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoggedRide } from '@rideport/server/web';
import { firstPeriodFrom, totals, type Period } from './totals.js';

const ZONES = [
  'UTC',
  'Europe/Zurich',
  'America/Los_Angeles',
  'Pacific/Auckland',
  'Asia/Kolkata',
  'Pacific/Kiritimati',
];
const DAY_MS = 86_400_000;

const localDate = (ms: number, timeZone: string): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(ms),
  );

const now = fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2030-12-31') });
const ride = (around: number): fc.Arbitrary<LoggedRide> =>
  fc.record({
    departedAt: fc.integer({ min: around - 500 * DAY_MS, max: around + 30 * DAY_MS }),
    distance: fc.option(fc.double({ min: 0, max: 300_000, noNaN: true })),
    movingTime: fc.option(fc.integer({ min: 0, max: 40_000 })),
    elevationGain: fc.option(fc.double({ min: 0, max: 5000, noNaN: true })),
  });
const scenario = now.chain((at) =>
  fc.record({
    now: fc.constant(at),
    rides: fc.array(ride(at), { maxLength: 200 }),
    timeZone: fc.constantFrom(...ZONES),
    period: fc.constantFrom<Period>('week', 'month'),
    count: fc.integer({ min: 1, max: 24 }),
  }),
);

describe('weekly and monthly totals', () => {
  it('are `count` consecutive periods ending with the one holding today', () => {
    fc.assert(
      fc.property(scenario, ({ now: at, rides, timeZone, period, count }) => {
        const rows = totals(rides, { now: at, timeZone, period, count });
        expect(rows).toHaveLength(count);
        const starts = rows.map((row) => Date.parse(`${row.start}T00:00:00Z`));
        for (const [index, start] of starts.entries()) {
          const date = new Date(start);
          if (period === 'week') expect(date.getUTCDay()).toBe(1);
          else expect(date.getUTCDate()).toBe(1);
          if (index > 0) {
            const previous = new Date(starts[index - 1]!);
            if (period === 'week') expect(start - starts[index - 1]!).toBe(7 * DAY_MS);
            else
              expect(
                (date.getUTCFullYear() - previous.getUTCFullYear()) * 12 +
                  date.getUTCMonth() -
                  previous.getUTCMonth(),
              ).toBe(1);
          }
        }
        const today = localDate(at, timeZone);
        expect(rows[count - 1]!.start <= today).toBe(true);
        // The store reads from firstPeriodFrom: never after the first period's first local midnight.
        expect(localDate(firstPeriodFrom(at, timeZone, period, count), timeZone) < rows[0]!.start).toBe(true);
      }),
    );
  });

  it('count each ride once, in the period of its local day, and add up exactly what they hold', () => {
    fc.assert(
      fc.property(scenario, ({ now: at, rides, timeZone, period, count }) => {
        const rows = totals(rides, { now: at, timeZone, period, count });
        const first = rows[0]!.start;
        const today = localDate(at, timeZone);
        const inRange = rides.filter((r) => {
          const day = localDate(r.departedAt, timeZone);
          return (
            day >= first &&
            day <= (period === 'week' ? lastDayOfWeek(rows[count - 1]!.start) : `${today.slice(0, 7)}-31`)
          );
        });
        expect(rows.reduce((sum, row) => sum + row.rides, 0)).toBe(inRange.length);
        const distance = inRange.reduce((sum, r) => sum + (r.distance ?? 0), 0);
        expect(rows.reduce((sum, row) => sum + row.distance, 0)).toBeCloseTo(distance, 3);
        for (const row of rows) {
          expect(row.distance).toBeGreaterThanOrEqual(0);
          expect(row.movingTime).toBeGreaterThanOrEqual(0);
          expect(row.elevationGain).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it('put a ride late on Sunday in Auckland in that week, not the next one UTC would give', () => {
    // 2025-06-08 (a Sunday) 23:30 in Auckland is 11:30 UTC that day; Monday 2025-06-09 09:00 there is
    // Sunday 21:00 UTC.
    const rides: LoggedRide[] = [
      {
        departedAt: Date.parse('2025-06-08T11:30:00Z'),
        distance: 10_000,
        movingTime: 1800,
        elevationGain: 100,
      },
      {
        departedAt: Date.parse('2025-06-08T21:00:00Z'),
        distance: 20_000,
        movingTime: 3600,
        elevationGain: 50,
      },
    ];
    const options = { now: Date.parse('2025-06-10T00:00:00Z'), count: 2, period: 'week' as const };
    expect(totals(rides, { ...options, timeZone: 'Pacific/Auckland' })).toEqual([
      { start: '2025-06-02', rides: 1, distance: 10_000, movingTime: 1800, elevationGain: 100 },
      { start: '2025-06-09', rides: 1, distance: 20_000, movingTime: 3600, elevationGain: 50 },
    ]);
    expect(totals(rides, { ...options, timeZone: 'UTC' }).map((row) => row.rides)).toEqual([2, 0]);
  });
});

function lastDayOfWeek(monday: string): string {
  return new Date(Date.parse(`${monday}T00:00:00Z`) + 6 * DAY_MS).toISOString().slice(0, 10);
}

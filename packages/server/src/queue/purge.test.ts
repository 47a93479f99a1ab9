import { describe, expect, it } from 'vitest';
import { millisecondsUntil } from './purge.js';

const at = (hours: number, minutes: number, seconds = 0): number =>
  new Date(2026, 5, 10, hours, minutes, seconds).getTime();
const MINUTE = 60 * 1000;

describe('millisecondsUntil', () => {
  it('is later the same day before the time, the next day at or after it', () => {
    expect(millisecondsUntil('03:00', at(2, 0))).toBe(60 * MINUTE);
    expect(millisecondsUntil('03:00', at(3, 0))).toBe(24 * 60 * MINUTE);
    expect(millisecondsUntil('03:00', at(3, 0, 1))).toBe(24 * 60 * MINUTE - 1000);
    expect(millisecondsUntil('23:59', at(0, 0))).toBe((23 * 60 + 59) * MINUTE);
    expect(millisecondsUntil('00:00', at(23, 30))).toBe(30 * MINUTE);
  });

  it('is never more than a day and more (or less) than the clock says across daylight saving', () => {
    for (let day = 0; day < 366; day += 7) {
      const now = new Date(2026, 0, 1 + day, 12, 0).getTime();
      const wait = millisecondsUntil('03:00', now);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(25 * 60 * MINUTE);
      expect(new Date(now + wait).getHours()).toBe(3);
    }
  });
});

/**
 * The ride backoff (upload.ts): 2 s doubling to 10 minutes, as before issue 35, now with the client's
 * equal jitter, so that desktops that failed together do not retry together.
 */
import { describe, expect, it } from 'vitest';
import { rideBackoffMs } from './upload.js';

describe('rideBackoffMs', () => {
  const schedule = (random: number): number[] =>
    Array.from({ length: 11 }, (_, attempts) => rideBackoffMs(attempts, () => random));

  it('doubles from 2 s to at most 10 minutes with the most jitter drawn', () => {
    expect(schedule(1)).toEqual([
      2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 600_000, 600_000,
    ]);
    expect(rideBackoffMs(5000, () => 1)).toBe(600_000);
  });

  it('waits at least half of it, in whole milliseconds', () => {
    expect(schedule(0)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000,
    ]);
    expect(Number.isInteger(rideBackoffMs(3, () => 1 / 3))).toBe(true);
  });
});

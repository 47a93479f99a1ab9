import { describe, expect, it } from 'vitest';
import { ClientErrorCode } from './errors.js';
import { backoffDelayMs, parseRetryAfterMs, pause, realSleep } from './timing.js';

describe('backoffDelayMs', () => {
  const schedule = (random: number) =>
    Array.from({ length: 8 }, (_, attempt) =>
      backoffDelayMs(attempt, { baseMs: 50, capMs: 2000, random: () => random }),
    );

  it('doubles from the base up to the cap; with no jitter drawn it is half the exponential', () => {
    expect(schedule(0)).toEqual([25, 50, 100, 200, 400, 800, 1000, 1000]);
  });

  it('with the most jitter it is the full exponential, never past the cap', () => {
    expect(schedule(0.999999).map(Math.round)).toEqual([50, 100, 200, 400, 800, 1600, 2000, 2000]);
  });

  it('stays between half and all of the capped exponential for any draw', () => {
    for (const random of [0, 0.1, 0.5, 0.9, 0.99]) {
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const capped = Math.min(2000, 50 * 2 ** attempt);
        const delay = backoffDelayMs(attempt, { baseMs: 50, capMs: 2000, random: () => random });
        expect(delay).toBeGreaterThanOrEqual(capped / 2);
        expect(delay).toBeLessThanOrEqual(capped);
      }
    }
  });

  it('takes another factor, and clamps a random source that strays outside [0, 1)', () => {
    expect(backoffDelayMs(2, { baseMs: 10, capMs: 1000, factor: 3, random: () => 0 })).toBe(45);
    expect(backoffDelayMs(0, { baseMs: 10, capMs: 1000, random: () => 7 })).toBe(10);
    expect(backoffDelayMs(0, { baseMs: 10, capMs: 1000, random: () => -1 })).toBe(5);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfterMs('0', now)).toBe(0);
    expect(parseRetryAfterMs('7', now)).toBe(7000);
    expect(parseRetryAfterMs(' 120 ', now)).toBe(120_000);
  });

  it('reads an HTTP date, relative to now; a past date is 0', () => {
    expect(parseRetryAfterMs('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('is null when absent or unreadable', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeNull();
    expect(parseRetryAfterMs('', now)).toBeNull();
    expect(parseRetryAfterMs('-5', now)).toBeNull();
    expect(parseRetryAfterMs('1.5', now)).toBeNull();
    expect(parseRetryAfterMs('soon', now)).toBeNull();
  });
});

describe('sleeping', () => {
  it('realSleep rejects with ABORTED when the signal fires, and at once when it already has', async () => {
    const controller = new AbortController();
    const sleeping = realSleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toMatchObject({ code: ClientErrorCode.ABORTED });
    await expect(realSleep(10, controller.signal)).rejects.toMatchObject({ code: ClientErrorCode.ABORTED });
    await expect(realSleep(0)).resolves.toBeUndefined();
  });

  it('pause reports an abort as ABORTED whatever the injected sleep threw', async () => {
    const controller = new AbortController();
    const sleep = () => {
      controller.abort();
      return Promise.reject(new Error('some other error'));
    };
    await expect(pause(sleep, 5, controller.signal)).rejects.toMatchObject({ code: ClientErrorCode.ABORTED });
    await expect(pause(() => Promise.reject(new Error('boom')), 5, undefined)).rejects.toThrow('boom');
  });
});

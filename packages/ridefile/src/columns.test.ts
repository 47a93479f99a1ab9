import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_POINTS,
  PointColumns,
  ReadProgress,
  SLOT_C,
  SLOT_H,
  SLOT_P,
  SLOT_TEMPERATURE,
  SLOT_X,
} from './columns.js';

describe('PointColumns: Float32 whole-number channels that widen when they must', () => {
  it('starts cadence, heart rate, power and temperature as Float32 and the rest as Float64', () => {
    const columns = new PointColumns();
    expect([columns.c, columns.h, columns.p, columns.T].map((column) => column.constructor)).toEqual([
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
    ]);
    expect(columns.channels.filter((column) => column instanceof Float64Array)).toHaveLength(6);
  });

  it('keeps whole numbers, -0 and NaN in Float32 and widens for the first value it cannot hold', () => {
    const columns = new PointColumns();
    for (const value of [0, -0, 255, 65_535, -40, NaN]) columns.set(SLOT_H, columns.append(), value);
    expect(columns.h).toBeInstanceOf(Float32Array);
    const row = columns.append();
    columns.set(SLOT_H, row, 120.7);
    expect(columns.h).toBeInstanceOf(Float64Array);
    expect(columns.channels[SLOT_H]).toBe(columns.h);
    expect(Array.from(columns.h.subarray(0, columns.length))).toEqual([0, -0, 255, 65_535, -40, NaN, 120.7]);
  });

  it('widens each channel on its own, and growing keeps each channel’s type and values', () => {
    const columns = new PointColumns(100_000, 1);
    columns.set(SLOT_TEMPERATURE, columns.append(), 21.3);
    columns.set(SLOT_P, 0, 2 ** 24 + 1);
    columns.set(SLOT_C, 0, 85);
    columns.set(SLOT_X, 0, 8.123456789);
    for (let i = 1; i < 5000; i++) columns.set(SLOT_C, columns.append(), i % 120);
    expect(columns.T).toBeInstanceOf(Float64Array);
    expect(columns.p).toBeInstanceOf(Float64Array);
    expect(columns.c).toBeInstanceOf(Float32Array);
    expect(columns.h).toBeInstanceOf(Float32Array);
    expect([columns.T[0], columns.p[0], columns.c[0], columns.x[0]]).toEqual([
      21.3,
      2 ** 24 + 1,
      85,
      8.123456789,
    ]);
    expect(columns.c[4999]).toBe(4999 % 120);
  });

  it('widen keeps the values and is a no-op on a Float64 channel', () => {
    const columns = new PointColumns();
    columns.set(SLOT_P, columns.append(), 300);
    const wide = columns.widen(SLOT_P);
    expect(wide).toBe(columns.p);
    expect(wide[0]).toBe(300);
    expect(columns.widen(SLOT_P)).toBe(wide);
    expect(columns.widen(SLOT_X)).toBe(columns.x);
  });
});

describe('PointColumns: sized by the reader’s progress through its file (issue 36)', () => {
  /**
   * A track of `rows` points, each `perRow` characters of text (give or take `jitter`), after `before`
   * characters of other text, in a file of `after` more: the capacities the columns grow through.
   */
  function grownThrough(
    rows: number,
    perRow: number,
    jitter: number,
    before: number,
    after: number,
  ): number[] {
    const progress = new ReadProgress(before + rows * perRow + after);
    progress.read = before;
    const columns = new PointColumns(DEFAULT_MAX_POINTS, undefined, progress);
    const capacities = [columns.capacity];
    for (let row = 0; row < rows; row++) {
      progress.read += perRow + ((row * 7919) % (2 * jitter + 1)) - jitter;
      columns.append();
      if (columns.capacity !== capacities.at(-1)) capacities.push(columns.capacity);
    }
    expect(columns.length).toBe(rows);
    return capacities;
  }

  it('grows once or twice to little more than the track, where doubling held up to twice it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2_000, max: 400_000 }),
        fc.integer({ min: 40, max: 400 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 100_000 }),
        (rows, perRow, jitter, before) => {
          const capacities = grownThrough(rows, perRow, Math.min(jitter, perRow - 1), before, 100);
          expect(capacities.length - 1).toBeLessThanOrEqual(2);
          expect(capacities.at(-1)!).toBeLessThanOrEqual(Math.ceil(rows * 1.25) + 1024);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('never grows past the cap on points, whatever the file says of its length', () => {
    const progress = new ReadProgress(Number.MAX_SAFE_INTEGER);
    const columns = new PointColumns(5_000, undefined, progress);
    for (let row = 0; row < 5_000; row++) {
      progress.read += 1;
      columns.append();
    }
    expect(columns.capacity).toBe(5_000);
    expect(() => columns.append()).toThrow('a track holds more than 5000 points');
  });

  it('doubles as before when the file’s length is unknown or already read', () => {
    expect(grownThrough(10_000, 100, 0, 0, -1_000_000)).toEqual([1024, 2048, 4096, 8192, 16384]);
    const progress = new ReadProgress(null);
    const columns = new PointColumns(DEFAULT_MAX_POINTS, undefined, progress);
    for (let row = 0; row < 3_000; row++) columns.append();
    expect(columns.capacity).toBe(4096);
  });
});

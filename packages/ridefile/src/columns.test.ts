import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_POINTS,
  PointColumns,
  ReadProgress,
  SLOT_C,
  SLOT_D,
  SLOT_E,
  SLOT_H,
  SLOT_P,
  SLOT_S,
  SLOT_T,
  SLOT_TEMPERATURE,
  SLOT_X,
  SLOT_Y,
} from './columns.js';

describe('PointColumns: Float32 whole-number channels that widen when they must', () => {
  it('makes cadence, heart rate, power and temperature Float32 and the rest Float64', () => {
    const columns = new PointColumns();
    const slots = [SLOT_C, SLOT_H, SLOT_P, SLOT_TEMPERATURE, SLOT_S, SLOT_D];
    for (const slot of slots) columns.own(slot);
    expect(slots.map((slot) => columns.channels[slot]!.constructor)).toEqual([
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
      Float64Array,
      Float64Array,
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
    columns.set(SLOT_H, 0, 120);
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

describe('PointColumns: a channel without values has no column of its own (issue 36)', () => {
  const ABSENT_UNTIL_WRITTEN = [SLOT_C, SLOT_H, SLOT_P, SLOT_S, SLOT_D, SLOT_TEMPERATURE];

  it('gives only x y e t columns at first, and a channel its own with its first value', () => {
    const columns = new PointColumns();
    for (const slot of [SLOT_X, SLOT_Y, SLOT_E, SLOT_T]) expect(columns.has(slot)).toBe(true);
    for (const slot of ABSENT_UNTIL_WRITTEN) expect(columns.has(slot)).toBe(false);
    const row = columns.append();
    columns.set(SLOT_H, row, NaN);
    expect(columns.has(SLOT_H)).toBe(false);
    columns.set(SLOT_H, row, 130);
    expect(columns.has(SLOT_H)).toBe(true);
    expect(columns.h[row]).toBe(130);
    // The other absent channels still read as without values.
    for (const slot of ABSENT_UNTIL_WRITTEN.filter((slot) => slot !== SLOT_H)) {
      expect(columns.channels[slot]![row]).toBeNaN();
    }
  });

  it('trims an absent channel to null, and finds a value written into one behind its back', () => {
    const columns = new PointColumns();
    columns.set(SLOT_T, columns.append(), 1_600_000_000);
    columns.finishRows();
    const trimmed = columns.trimmedChannels();
    expect(ABSENT_UNTIL_WRITTEN.map((slot) => trimmed[slot])).toEqual(ABSENT_UNTIL_WRITTEN.map(() => null));

    const careless = new PointColumns();
    careless.set(SLOT_T, careless.append(), 1_600_000_000);
    careless.d[0] = 12;
    expect(() => {
      careless.finishRows();
    }).toThrow(/absent channel/);
  });

  it('keeps every value whatever order channels appear, rows grow and move (fast-check)', () => {
    const value = fc.oneof(fc.constant(NaN), fc.integer({ min: 0, max: 2000 }), fc.double({ noNaN: true }));
    const row = fc.array(fc.option(value, { nil: undefined }), { minLength: 10, maxLength: 10 });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 300 }), (rows) => {
        const columns = new PointColumns(10_000, 1);
        const kept: number[][] = [];
        for (const values of rows) {
          const at = columns.append();
          values.forEach((given, slot) => {
            if (given !== undefined) columns.set(slot, at, given);
          });
          if (!columns.hasAnyValue(at)) {
            columns.dropLast();
            continue;
          }
          kept.push(values.map((given) => given ?? NaN));
        }
        expect(columns.length).toBe(kept.length);
        kept.forEach((values, at) => {
          values.forEach((expected, slot) => {
            const read = columns.channels[slot]![at]!;
            if (Number.isNaN(expected)) expect(read).toBeNaN();
            else expect(read).toBe(expected);
          });
        });
      }),
    );
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

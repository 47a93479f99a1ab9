import { describe, expect, it } from 'vitest';
import { PointColumns, SLOT_C, SLOT_H, SLOT_P, SLOT_TEMPERATURE, SLOT_X } from './columns.js';

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

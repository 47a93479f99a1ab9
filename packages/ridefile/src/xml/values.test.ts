import { describe, expect, it } from 'vitest';
import { parseIsoSeconds, parseNumber } from './values.js';

describe('parseIsoSeconds', () => {
  it('reads UTC, offsets, fractions and times without a zone as UTC', () => {
    expect(parseIsoSeconds('2019-02-17T06:26:44Z')).toBe(Date.UTC(2019, 1, 17, 6, 26, 44) / 1000);
    expect(parseIsoSeconds('2019-02-17T06:26:44.750Z')).toBe(Date.UTC(2019, 1, 17, 6, 26, 44) / 1000 + 0.75);
    expect(parseIsoSeconds('2019-02-17T08:26:44+02:00')).toBe(Date.UTC(2019, 1, 17, 6, 26, 44) / 1000);
    expect(parseIsoSeconds('2019-02-17T01:26:44-0500')).toBe(Date.UTC(2019, 1, 17, 6, 26, 44) / 1000);
    expect(parseIsoSeconds(' 2019-02-17T06:26:44 ')).toBe(Date.UTC(2019, 1, 17, 6, 26, 44) / 1000);
    expect(parseIsoSeconds('2011-11-22')).toBe(Date.UTC(2011, 10, 22) / 1000);
  });

  it('answers NaN for empty, garbage and implausible times', () => {
    expect(parseIsoSeconds('')).toBeNaN();
    expect(parseIsoSeconds('yesterday')).toBeNaN();
    expect(parseIsoSeconds('1601-01-01T00:00:00Z')).toBeNaN();
  });
});

describe('parseNumber', () => {
  it('reads decimal text and rejects the rest', () => {
    expect(parseNumber(' 12.5 ')).toBe(12.5);
    expect(parseNumber('-3e2')).toBe(-300);
    expect(parseNumber('')).toBeNaN();
    expect(parseNumber('12abc')).toBeNaN();
    expect(parseNumber('Infinity')).toBeNaN();
  });
});

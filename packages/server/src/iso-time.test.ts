import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('gives UTC to the second, milliseconds dropped rather than rounded', () => {
    expect(isoTime(Date.UTC(2024, 5, 1, 9, 0, 0, 999))).toBe('2024-06-01T09:00:00Z');
    expect(isoTime(0)).toBe('1970-01-01T00:00:00Z');
  });

  it('keeps the extended form for years outside 0–9999', () => {
    expect(isoTime(Date.UTC(12000, 0, 1))).toBe('+012000-01-01T00:00:00Z');
    expect(isoTime(Date.UTC(-1, 0, 1, 0, 0, 0, 500))).toBe('-000001-01-01T00:00:00Z');
  });
});

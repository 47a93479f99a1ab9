import { describe, expect, it } from 'vitest';
import { decimal, hoursMinutesSeconds, isoUtc, kilometres, kilometresPerHour } from './format.js';

describe('report formatting', () => {
  it('writes durations as h:mm:ss with unbounded hours', () => {
    expect(hoursMinutesSeconds(0)).toBe('0:00:00');
    expect(hoursMinutesSeconds(145)).toBe('0:02:25');
    expect(hoursMinutesSeconds(3599.6)).toBe('1:00:00');
    expect(hoursMinutesSeconds(100_000)).toBe('27:46:40');
  });

  it('writes Unix seconds as ISO 8601 UTC without milliseconds', () => {
    expect(isoUtc(1715015520)).toBe('2024-05-06T17:12:00Z');
    expect(isoUtc(0)).toBe('1970-01-01T00:00:00Z');
  });

  it('writes distances, speeds and plain numbers', () => {
    expect(kilometres(1021.86)).toBe('1.02 km');
    expect(kilometresPerHour(10)).toBe('36.0');
    expect(decimal(18.6)).toBe('18.6');
    expect(decimal(142.0)).toBe('142');
    expect(decimal(141.366, 0)).toBe('141');
  });
});

import { describe, expect, it } from 'vitest';
import { coordinateText, isoTime, numberText, xmlText } from './text.js';

describe('writer text helpers', () => {
  it('writes ISO times to the second, across days, years and before 1970', () => {
    for (const seconds of [
      0, 59, 86_399, 86_400, 1_550_384_804, 1_714_809_600, -1, 951_782_400, 4_102_444_799,
    ]) {
      expect(isoTime(seconds)).toBe(new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'));
    }
    expect(isoTime(1.5)).toBe('1970-01-01T00:00:01.500Z');
  });

  it('writes measured values exactly, never in exponent form', () => {
    const cases: Array<[number, string]> = [
      [278.2, '278.2'],
      [-3.5, '-3.5'],
      [0.001, '0.001'],
      [-0.0004, '-0.0004'],
      [1234, '1234'],
      [0.30000000000000004, '0.30000000000000004'],
      [1e-7, '0.0000001'],
      [-2.5e-10, '-0.00000000025'],
      [1e21, '1000000000000000000000'],
    ];
    for (const [value, text] of cases) {
      expect(numberText(value)).toBe(text);
      expect(Number(numberText(value))).toBe(value);
    }
    // Every value with up to three decimals reads back as itself.
    for (let n = -5000; n <= 5000; n += 7) expect(Number(numberText(n / 1000 + 471))).toBe(n / 1000 + 471);
  });

  it('writes coordinates to 1e-9 degrees without trailing zeros', () => {
    expect(coordinateText(47.00001550652087)).toBe('47.000015507');
    expect(coordinateText(-122.5)).toBe('-122.5');
    expect(coordinateText(8)).toBe('8');
    expect(coordinateText(-0.0000000001)).toBe('0');
    expect(coordinateText(-0.000000001)).toBe('-0.000000001');
    // A FIT semicircle survives: 9 decimals are finer than 180 / 2^31 degrees.
    const semicircle = 180 / 2 ** 31;
    for (const units of [1, 12345, 562_949_953, -1_073_741_823]) {
      expect(Math.round(Number(coordinateText(units * semicircle)) / semicircle)).toBe(units);
    }
  });

  it('escapes markup and drops what XML cannot carry', () => {
    expect(xmlText(`a&b<c>"d"'e'`)).toBe('a&amp;b&lt;c&gt;&quot;d&quot;&apos;e&apos;');
    expect(xmlText('ok\u0000\u0008\uFFFE🚴\uD800')).toBe('ok🚴');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIsoSeconds, parseNumber, readNumberFields } from './values.js';

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

/** The general forms the fast paths must agree with (the readers' rules before the fast paths). */
function referenceNumber(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '') return NaN;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : NaN;
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function referenceIsoSeconds(text: string): number {
  const plausible = (seconds: number): number =>
    Number.isFinite(seconds) && seconds >= 0 && seconds < Date.UTC(2200, 0, 1) / 1000 ? seconds : NaN;
  const trimmed = text.trim();
  const match = ISO_DATE_TIME.exec(trimmed);
  if (match === null) {
    if (trimmed === '') return NaN;
    return plausible(
      Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `${trimmed}T00:00:00Z` : trimmed) / 1000,
    );
  }
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const milliseconds = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    second === undefined ? 0 : Number(second),
  );
  let seconds = milliseconds / 1000 + (fraction === undefined ? 0 : Number(fraction));
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    seconds -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * 60;
  }
  return plausible(seconds);
}

function referenceFields(text: string, splitAtWhitespace: boolean): number[] {
  const fields = splitAtWhitespace ? text.trim().split(/[\s,]+/) : text.split(',');
  return [
    fields.length,
    ...[0, 1, 2].map((i) => {
      const field = fields[i];
      return field === undefined ? NaN : referenceNumber(field);
    }),
  ];
}

const DIGITS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

const digits = (count: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...DIGITS), { minLength: count, maxLength: count }).map((d) => d.join(''));

/** Text that looks like numbers, with every character the fast path declines among them. */
const numberText = fc.oneof(
  fc.double().map(String),
  fc.integer().map(String),
  fc
    .array(fc.constantFrom(...DIGITS, '.', '-', '+', ' ', '\t', '\n', 'e', 'E', 'x', '\u00a0', ','), {
      maxLength: 24,
    })
    .map((chars) => chars.join('')),
  fc.tuple(digits(1), digits(18)).map(([whole, fraction]) => `${whole}.${fraction}`),
  fc.string({ maxLength: 8 }),
);

/** ISO 8601 times in the common form with every variation the readers meet, and near misses. */
const isoText = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('', ' ', '\n  ', '\u00a0'),
      fc.oneof(digits(4), fc.constantFrom('1970', '2012', '2199', '2200', '0099', '1969')),
      digits(2),
      digits(2),
      fc.constantFrom('T', 't', ' ', 'X'),
      digits(2),
      digits(2),
      fc.constantFrom('', ':00', ':59', ':60', ':5'),
      fc.oneof(
        fc.constant(''),
        digits(1).map((d) => `.${d}`),
        digits(20).map((d) => `.${d}`),
        fc.constant('.'),
      ),
      fc.constantFrom('', 'Z', 'z', '+02:00', '-0500', '+05', '+05:', '+5', ' Z', 'Q', 'Z ', '-13:30'),
      fc.constantFrom('', ' ', '\t'),
    )
    .map(
      (parts) =>
        `${parts[0]}${parts[1]}-${parts[2]}-${parts[3]}${parts
          .slice(4)
          .join('')
          .replace(/^(.)(\d\d)(\d\d)/, '$1$2:$3')}`,
    ),
  fc.constantFrom('2011-11-22', '2011-11-22T10:00', 'yesterday', '', '2019-02-17T06:26:44Z'),
  fc.string({ maxLength: 30 }),
);

describe('fast paths', () => {
  it('agree with the general forms on the edge cases', () => {
    for (const text of [
      '0.00000000000000000000001',
      '0.0000000000000000000001',
      '-0',
      '-0.0',
      '+.5',
      '5.',
      '.',
      '-',
      '1.2.3',
      '9007199254740993',
      '9007199254740993.5',
      '0x1A',
      '1e5',
      ' \u00a012',
      '12\u00a0',
    ]) {
      expect(parseNumber(text)).toBe(referenceNumber(text));
    }
    for (const text of [
      '2012-11-07T09:11:35+05:',
      '0099-01-01T00:00:00Z',
      '2012-13-01T00:00:00Z',
      '2012-02-30T24:00:60Z',
      ' 2012-11-07T09:11:35.5Z ',
      '2012-11-07t09:11:35z',
      '2012-11-07 09:11:35 Z',
      '2012-11-07T09:11:35.123456789012345678Z',
      '2012-11-07T09:11:35-05',
      '2012-11-07T09:11:35+0530',
      '2012-11-07T09:11Z',
    ]) {
      expect(parseIsoSeconds(text)).toBe(referenceIsoSeconds(text));
    }
  });

  it('parseNumber reads what Number reads (property)', () => {
    fc.assert(
      fc.property(numberText, (text) => {
        expect(parseNumber(text)).toBe(referenceNumber(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('parseIsoSeconds reads what the general ISO 8601 reader reads (property)', () => {
    fc.assert(
      fc.property(isoText, (text) => {
        expect(parseIsoSeconds(text)).toBe(referenceIsoSeconds(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('readNumberFields splits and reads like split and parseNumber (property)', () => {
    const out = new Float64Array(3);
    fc.assert(
      fc.property(
        fc.array(numberText, { maxLength: 5 }),
        fc.array(fc.constantFrom(' ', ',', '\n', ' , ', '\u00a0', ''), { maxLength: 5 }),
        fc.boolean(),
        (fields, separators, splitAtWhitespace) => {
          const text = fields.map((field, i) => field + (separators[i] ?? ' ')).join('');
          const count = readNumberFields(text, 0, text.length, splitAtWhitespace, out);
          expect([count, ...out]).toEqual(referenceFields(text, splitAtWhitespace));
          const padded = `<${text}>`;
          readNumberFields(padded, 1, padded.length - 1, splitAtWhitespace, out);
          expect([count, ...out]).toEqual(referenceFields(text, splitAtWhitespace));
        },
      ),
      { numRuns: 5000 },
    );
  });
});

import fc from 'fast-check';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  ID_RANGE,
  PAGE_RANGE,
  readWholeNumber,
  refuseUnboundedNumbers,
  unboundedNumbers,
  wholeNumberSchema,
} from './whole-numbers.js';

describe('readWholeNumber', () => {
  it('takes whole numbers in range, as digits or as JSON numbers', () => {
    expect(readWholeNumber('42', PAGE_RANGE)).toBe(42);
    expect(readWholeNumber(' 7 ', PAGE_RANGE)).toBe(7);
    expect(readWholeNumber('007', PAGE_RANGE)).toBe(7);
    expect(readWholeNumber(9, PAGE_RANGE)).toBe(9);
    expect(readWholeNumber(String(Number.MAX_SAFE_INTEGER), ID_RANGE)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    'Infinity',
    '1e309',
    '1e3',
    '0x10',
    '-1',
    '1.5',
    'NaN',
    '',
    ' ',
    '１',
    '9007199254740992',
    '99999999999999999999',
    Infinity,
    -Infinity,
    Number.NaN,
    1.5,
    -1,
    0,
    ['1', '2'],
    { page: 1 },
    null,
    true,
  ])('refuses %j', (raw) => {
    expect(readWholeNumber(raw, ID_RANGE)).toBeUndefined();
  });

  it('answers a safe integer within the range, or nothing, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.double(), fc.integer(), fc.bigInt().map(String), fc.anything()),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (raw, min, span) => {
          const range = { min, max: min + span };
          const read = readWholeNumber(raw, range);
          if (read !== undefined) {
            expect(Number.isSafeInteger(read)).toBe(true);
            expect(read).toBeGreaterThanOrEqual(range.min);
            expect(read).toBeLessThanOrEqual(range.max);
          }
        },
      ),
    );
  });
});

describe('refuseUnboundedNumbers', () => {
  it('finds every number of a request schema without both bounds', () => {
    expect(
      unboundedNumbers(
        {
          type: 'object',
          properties: {
            page: wholeNumberSchema(PAGE_RANGE),
            size: { type: 'integer', minimum: 1 },
            nested: { type: 'object', properties: { weight: { type: ['number', 'null'] } } },
            list: { type: 'array', items: { type: 'number', maximum: 3 } },
          },
        },
        'querystring',
      ),
    ).toEqual(['querystring.size', 'querystring.nested.weight', 'querystring.list[]']);
  });

  it('keeps a route with an unbounded number from being registered', async () => {
    const app = Fastify();
    app.addHook('onRoute', refuseUnboundedNumbers);
    app.get(
      '/fine',
      { schema: { querystring: { type: 'object', properties: { page: wholeNumberSchema(PAGE_RANGE) } } } },
      () => 'ok',
    );
    expect(() =>
      app.get(
        '/things/:id',
        { schema: { params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } } } } },
        () => 'ok',
      ),
    ).toThrow(
      'GET /things/:id: every number a request may carry needs a minimum and a maximum (issue 17); these have none: params.id',
    );
    await app.close();
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRideFile } from '../parse.js';
import { PointColumns } from '../columns.js';
import { noWheelSensor, UNKNOWN_RECORDING } from '../draft.js';
import { TRACK_POINT_KEYS } from '../model.js';
import { finishTrack } from '../track.js';
import {
  AsciiChunkBuilder,
  POINT_BYTES,
  asciiBytes,
  writeCoordinate,
  writeNumber,
  writeTime,
} from './ascii.js';
import { gpxChunks } from './gpx.js';
import { CHUNK_CHARACTERS, coordinateText, isoTime, numberText } from './text.js';

const decoder = new TextDecoder();

/** What `write` puts into a fresh buffer, as text; also checks it stays within POINT_BYTES. */
function written(write: (bytes: Uint8Array, at: number) => number): string {
  const bytes = new Uint8Array(POINT_BYTES);
  const end = write(bytes, 0);
  expect(end).toBeLessThanOrEqual(POINT_BYTES);
  return decoder.decode(bytes.subarray(0, end));
}

/** Any double, with the values points carry (and their edges) more often than chance would give them. */
const anyNumber = fc.oneof(
  fc.double(),
  fc.integer({ min: -5_000_000, max: 5_000_000 }).map((n) => n / 1000),
  fc.integer({ min: -2_000_000, max: 2_000_000 }).map((n) => n / 5),
  fc.integer(),
  fc.constantFrom(0, -0, 2 ** 31, -(2 ** 31), 2 ** 31 - 1, 2 ** 53, 1e21, 1e308, -1e-308, 5e-324),
);
const degrees = fc.oneof(
  fc.double({ min: -180, max: 180, noNaN: true }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((units) => units * (180 / 2 ** 31)),
);

describe('ASCII writers write exactly the text of the string formatters', () => {
  it('numbers: numberText', () => {
    fc.assert(
      fc.property(anyNumber, (value) => {
        expect(written((bytes, at) => writeNumber(bytes, at, value))).toBe(numberText(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it('coordinates: coordinateText, which is toFixed(9) without trailing zeros but at exact ties', () => {
    fc.assert(
      fc.property(fc.oneof(degrees, fc.double()), (value) => {
        const text = written((bytes, at) => writeCoordinate(bytes, at, value));
        expect(text).toBe(coordinateText(value));
        if (Math.abs(value) > 1e6 || !Number.isFinite(value)) return;
        // The obvious form: rounding the exact value, where coordinateText rounds value × 10^9 (the
        // same but when that product lands within rounding of a half).
        const scaled = Math.abs(value) * 1e9;
        if (Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-6) return;
        const oracle = value.toFixed(9).replace(/\.?0+$/, '');
        expect(text).toBe(oracle === '-0' ? '0' : oracle);
      }),
      { numRuns: 20_000 },
    );
  });

  it('times: isoTime, which is toISOString without .000', () => {
    const seconds = fc.oneof(
      fc.integer({ min: -8.64e12, max: 8.64e12 }),
      fc.integer({ min: 0, max: 2 ** 32 }),
      fc.integer({ min: -8.64e14, max: 8.64e14 }).map((ms) => ms / 1000),
    );
    fc.assert(
      fc.property(fc.array(seconds, { minLength: 1, maxLength: 4 }), (times) => {
        for (const time of times) {
          const text = written((bytes, at) => writeTime(bytes, at, time));
          expect(text).toBe(isoTime(time));
          const iso = new Date(time * 1000).toISOString();
          expect(text).toBe(Number.isInteger(time) ? iso.replace('.000Z', 'Z') : iso);
        }
      }),
      { numRuns: 5000 },
    );
    // Consecutive seconds across a minute, an hour and a year (the cached minute changes).
    for (let time = 1_704_067_140; time < 1_704_067_262; time++) {
      expect(written((bytes, at) => writeTime(bytes, at, time))).toBe(isoTime(time));
    }
  });
});

describe('AsciiChunkBuilder', () => {
  it('keeps text and bytes in order and hands out chunks of about CHUNK_CHARACTERS', () => {
    const out = new AsciiChunkBuilder();
    const piece = asciiBytes('<p>0123456789</p>\n');
    let expected = '';
    const chunks: string[] = [];
    out.add('<héllo 🚴>');
    expected += '<héllo 🚴>';
    for (let i = 0; i < 10_000; i++) {
      out.bytes.set(piece, out.length);
      out.length += piece.length;
      expected += '<p>0123456789</p>\n';
      if (i % 1000 === 0) {
        out.add(`<n>${i}</n>`);
        expected += `<n>${i}</n>`;
      }
      const chunk = out.take();
      if (chunk !== null) chunks.push(chunk);
    }
    chunks.push(out.flush());
    expect(chunks.join('')).toBe(expected);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.length).toBeLessThan(CHUNK_CHARACTERS + POINT_BYTES);
    expect(out.flush()).toBe('');
  });

  it('takes only ASCII as bytes', () => {
    expect(() => asciiBytes('<é>')).toThrow(/ASCII/);
  });
});

describe('GPX points with any set of channels', () => {
  const value = (min: number, max: number): fc.Arbitrary<number | undefined> =>
    fc.option(
      fc.integer({ min: min * 10, max: max * 10 }).map((n) => n / 10),
      { nil: undefined },
    );
  const point = fc.record({
    y: fc.integer({ min: -900_000_000, max: 900_000_000 }).map((n) => n / 1e7),
    x: fc.integer({ min: -1_800_000_000, max: 1_800_000_000 }).map((n) => n / 1e7),
    e: value(-400, 9000),
    t: fc.option(fc.integer({ min: 0, max: 4_102_444_799 }), { nil: undefined }),
    c: fc.option(fc.integer({ min: 0, max: 254 }), { nil: undefined }),
    h: fc.option(fc.integer({ min: 1, max: 254 }), { nil: undefined }),
    p: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
    T: value(-40, 60),
  });

  it('read back as written, each channel in its place', () => {
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 20 }), (drafts) => {
        const columns = new PointColumns(drafts.length);
        for (const draft of drafts) {
          const row = columns.append();
          for (const [key, value] of Object.entries(draft) as Array<
            [keyof typeof draft, number | undefined]
          >) {
            if (value !== undefined) columns.set(TRACK_POINT_KEYS.indexOf(key), row, value);
          }
        }
        // A route: its points need no times to stay a route.
        const route = finishTrack({
          kind: 'route',
          name: null,
          sport: null,
          subSport: null,
          startTime: null,
          columns,
          laps: [],
          sensors: noWheelSensor('test'),
          recorded: null,
          calories: null,
          device: null,
          recording: UNKNOWN_RECORDING,
        });
        const gpx = [...gpxChunks(route)].join('');
        const back = parseRideFile(new TextEncoder().encode(gpx), { format: 'gpx' });
        expect(back.tracks[0]!.points).toEqual(route.points);
      }),
      { numRuns: 300 },
    );
  });
});

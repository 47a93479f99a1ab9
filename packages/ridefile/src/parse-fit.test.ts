/**
 * parseFitFile (issue 21): FIT alone, so that a FIT-only tool's bundle leaves out the XML readers. It
 * must read every FIT file exactly as parseRideFile does, and refuse the other formats by code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusAvailable, corpusFiles, fixturePath, readFixture } from '../../../test/support/corpus.js';
import { RideFileError, RideFileErrorCode } from './errors.js';
import { parseFitFile, parseRideFile } from './parse.js';

type Outcome = { ride: ReturnType<typeof parseRideFile> } | { code: string; message: string };

function outcome(read: () => ReturnType<typeof parseRideFile>): Outcome {
  try {
    return { ride: read() };
  } catch (error) {
    if (!(error instanceof RideFileError)) throw error;
    return { code: error.code, message: error.message };
  }
}

const FIT_FIXTURES = readdirSync(fixturePath('fit')).filter((name) => name.endsWith('.fit'));

describe('parseFitFile', () => {
  it.each(FIT_FIXTURES)('reads fixtures/fit/%s as parseRideFile does, and its gzip too', (name) => {
    const bytes = readFixture('fit', name);
    expect(outcome(() => parseFitFile(bytes))).toEqual(outcome(() => parseRideFile(bytes)));
    const gzipped = gzipSync(bytes);
    expect(outcome(() => parseFitFile(gzipped, { filename: `${name}.gz` }))).toEqual(
      outcome(() => parseRideFile(gzipped, { filename: `${name}.gz` })),
    );
  });

  it.skipIf(!corpusAvailable)('reads every corpus FIT file as parseRideFile does', () => {
    for (const file of corpusFiles('fit')) {
      const bytes = new Uint8Array(readFileSync(file.path));
      expect(
        outcome(() => parseFitFile(bytes)),
        file.name,
      ).toEqual(outcome(() => parseRideFile(bytes)));
    }
  });

  it.each([
    ['tcx', 'activity.tcx', 'TCX'],
    ['gpx', 'sample-ride.gpx', 'GPX'],
    ['kml', 'tracks.kml', 'KML'],
  ])('refuses a %s file with RIDEFILE_UNKNOWN_FORMAT, saying what it is', (folder, name, format) => {
    const bytes = readFixture(folder, name);
    expect(() => parseFitFile(bytes)).toThrow(RideFileError);
    expect(outcome(() => parseFitFile(bytes))).toEqual({
      code: RideFileErrorCode.UNKNOWN_FORMAT,
      message: `this is a ${format} file, and parseFitFile reads only FIT files (parseRideFile reads every format)`,
    });
    expect(outcome(() => parseFitFile(gzipSync(bytes)))).toMatchObject({
      code: RideFileErrorCode.UNKNOWN_FORMAT,
    });
  });

  it('on any bytes, agrees with parseRideFile, or refuses with RIDEFILE_UNKNOWN_FORMAT what parseRideFile reads as XML', () => {
    const fitStart = readFixture('fit', 'multisport-wheel.fit');
    const input = fc.oneof(
      fc.uint8Array({ maxLength: 512 }),
      // FIT files damaged at random places: the readers' hardest cases
      fc
        .array(fc.tuple(fc.nat(fitStart.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 })
        .map((edits) => {
          const bytes = fitStart.slice();
          for (const [at, value] of edits) bytes[at] = value;
          return bytes;
        }),
      fc.string().map((text) => new TextEncoder().encode(`<?xml version="1.0"?><gpx>${text}`)),
    );
    fc.assert(
      fc.property(input, (bytes) => {
        const fitOnly = outcome(() => parseFitFile(bytes));
        const every = outcome(() => parseRideFile(bytes));
        if ('ride' in every && every.ride.format !== 'fit') {
          expect(fitOnly).toMatchObject({ code: RideFileErrorCode.UNKNOWN_FORMAT });
        } else if (
          'code' in every &&
          'code' in fitOnly &&
          fitOnly.message.includes('parseFitFile reads only FIT')
        ) {
          // parseRideFile found an XML format and failed reading it; parseFitFile refused it outright.
          expect(fitOnly.code).toBe(RideFileErrorCode.UNKNOWN_FORMAT);
        } else {
          expect(fitOnly).toEqual(every);
        }
      }),
      { numRuns: 300 },
    );
  });
});

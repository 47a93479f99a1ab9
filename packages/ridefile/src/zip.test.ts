/**
 * Reading one ZIP entry whole (unzipEntry), a piece at a time (unzipEntryEach) and as gzip without
 * decompressing it (zipEntryGzip, issue 36): all three agree with each other and with Node's zlib,
 * over generated content at every compression level fflate writes.
 */
import { gunzipSync as nodeGunzip } from 'node:zlib';
import fc from 'fast-check';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { RideFileErrorCode } from './errors.js';
import { gunzipBounded } from './gzip.js';
import { errorOf } from './test-support/ride-file-error.js';
import { readZipEntries, unzipEntry, unzipEntryEach, zipEntryGzip, type ZipEntry } from './zip.js';

const MAX = 1 << 30;

/** Content that compresses as ride files do (repeated text with numbers) or not at all (noise). */
const content = fc.oneof(
  fc.uint8Array({ maxLength: 70_000 }),
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 999 })), {
      maxLength: 3000,
    })
    .map((rows) =>
      new TextEncoder().encode(rows.map(([t, e]) => `<trkpt t="${t}"><ele>${e}</ele></trkpt>\n`).join('')),
    ),
);
const level = fc.constantFrom<0 | 1 | 6 | 9>(0, 1, 6, 9);

function oneEntryZip(bytes: Uint8Array, compression: 0 | 1 | 6 | 9): { zip: Uint8Array; entry: ZipEntry } {
  const zip = zipSync({ 'ride.gpx': [bytes, { level: compression }] });
  const [entry] = readZipEntries(zip);
  return { zip, entry: entry! };
}

describe('one ZIP entry', () => {
  it('reads the same content whole, in pieces and as gzip', () => {
    fc.assert(
      fc.property(content, level, (bytes, compression) => {
        const { zip, entry } = oneEntryZip(bytes, compression);
        expect(unzipEntry(zip, entry, MAX)).toEqual(bytes);

        const pieces: Uint8Array[] = [];
        unzipEntryEach(zip, entry, MAX, (piece) => pieces.push(piece.slice()));
        expect(Buffer.concat(pieces)).toEqual(Buffer.from(bytes));

        const gzip = zipEntryGzip(zip, entry);
        if (entry.method === 0) {
          expect(gzip).toBeNull();
          return;
        }
        // Node's zlib checks the trailer's CRC-32 and size; ridefile's own gunzip reads it warning-free.
        expect(nodeGunzip(gzip!)).toEqual(Buffer.from(bytes));
        const warnings: never[] = [];
        expect(gunzipBounded(gzip!, MAX, warnings)).toEqual(bytes);
        expect(warnings).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('passes on what the reader of the pieces throws, and stops there', () => {
    const bytes = new TextEncoder().encode('<gpx>'.repeat(50_000));
    const { zip, entry } = oneEntryZip(bytes, 6);
    const enough = new Error('enough');
    let calls = 0;
    expect(() => {
      unzipEntryEach(zip, entry, MAX, () => {
        calls += 1;
        throw enough;
      });
    }).toThrow(enough);
    expect(calls).toBe(1);
  });

  it('refuses damaged data, a size past the limit and a lying size in words', () => {
    const bytes = new TextEncoder().encode('<trkpt lat="47.1" lon="8.5"/>\n'.repeat(5000));
    const { zip, entry } = oneEntryZip(bytes, 6);
    const each =
      (entryOf: ZipEntry, archive = zip, max = MAX) =>
      () => {
        unzipEntryEach(archive, entryOf, max, () => undefined);
      };

    expect(errorOf(each(entry, zip, 1000)).code).toBe(RideFileErrorCode.TOO_LARGE);
    const smaller = errorOf(each({ ...entry, size: entry.size - 1 }));
    expect(smaller.code).toBe(RideFileErrorCode.MALFORMED);
    expect(smaller.message).toMatch(/holds more than the \d+ bytes it declares/);
    expect(errorOf(each({ ...entry, crc32: (entry.crc32 + 1) >>> 0 })).message).toMatch(
      /does not match its recorded size and checksum/,
    );
    const damaged = zip.slice();
    damaged.fill(0xff, entry.localHeaderOffset + 40, entry.localHeaderOffset + 60);
    expect(errorOf(each(entry, damaged)).code).toBe(RideFileErrorCode.MALFORMED);
  });
});

/**
 * Properties of picking the rides out of a ZIP upload (archive.ts, issue 20), on generated archives:
 * every file is either a ride, byte for byte as it went in, or skipped with a reason; nothing is both,
 * nothing is lost; a KMZ is one upload; the bounds hold whatever the archive declares.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ServerError } from '../errors.js';
import { gunzipSync, gzipSync } from 'node:zlib';
import { isGzip, isZip, readZipEntries } from '@rideport/ridefile';
import { bulkArchiveOf, MAX_SKIPPED_LISTED, SKIPPED_NAME_MAX_CHARS, type ArchiveRide } from './archive.js';

const RIDE = /\.(?:fit|tcx|gpx|kml|kmz)(?:\.gz)?$/i;

/** The ride file itself, whether its bytes are kept as they came or gzipped by the server. */
function fileOf(ride: ArchiveRide): Buffer {
  return ride.unzippedLength === null ? ride.bytes : gunzipSync(ride.bytes);
}

/** An entry's compressed size, as the archive's directory says. */
function compressedSize(archive: Buffer, name: string): number {
  return readZipEntries(archive).find((entry) => entry.name === name)!.compressedSize;
}

/** Paths of one to three folders deep, with ride extensions and others, in any case. */
const path = fc
  .tuple(
    fc.array(fc.stringMatching(/^[a-z0-9_-]{1,6}$/), { maxLength: 2 }),
    fc.stringMatching(/^[a-z0-9]{1,6}$/),
    fc.constantFrom('.fit', '.FIT', '.gpx', '.tcx.gz', '.kml', '.kmz', '.fit.gz', '.txt', '.jpg', '.csv', ''),
  )
  .map(([folders, stem, extension]) => [...folders, `${stem}${extension}`].join('/'));

const archiveFiles = fc.uniqueArray(fc.tuple(path, fc.uint8Array({ minLength: 1, maxLength: 200 })), {
  minLength: 1,
  maxLength: 12,
  selector: ([name]) => name.toLowerCase(),
});

describe('bulkArchiveOf (property)', () => {
  it('splits any archive into its ride files, byte for byte, and the rest, skipped in words', () => {
    fc.assert(
      fc.property(archiveFiles, fc.constantFrom<0 | 6>(0, 6), (files, level) => {
        const zippable: Zippable = {};
        for (const [name, bytes] of files) zippable[name] = [bytes, { level }];
        const archive = Buffer.from(zipSync(zippable));
        const rides = files.filter(([name]) => RIDE.test(name));
        const onlyKml = rides.length === 1 && /\.kml$/i.test(rides[0]![0]);
        let result: Awaited<ReturnType<typeof bulkArchiveOf>>;
        try {
          result = bulkArchiveOf(archive, 1024 * 1024);
        } catch (error) {
          // Only an archive without a ride is refused, as a 400 that says so.
          expect(error).toBeInstanceOf(ServerError);
          expect(rides).toEqual([]);
          expect((error as ServerError).message).toMatch(/holds no ride file that can be read/);
          return;
        }
        if (onlyKml) {
          // A lone .kml is a KMZ: one upload, read by the parser.
          expect(result).toBeNull();
          return;
        }
        expect(result).not.toBeNull();
        const { rides: got, skipped } = result!;
        expect(got.map((ride) => ride.path)).toEqual(rides.map(([name]) => name));
        got.forEach((ride, index) => {
          const content = fileOf(ride);
          expect(Buffer.compare(content, Buffer.from(rides[index]![1]))).toBe(0);
          // The SHA-256 of the file itself, as if it had been uploaded alone, however it is kept.
          expect(ride.sha256).toBe(createHash('sha256').update(content).digest('hex'));
          // A deflated file is kept as its compressed data (gzip: 18 bytes of header and trailer).
          if (level === 6 && !isGzip(content) && !isZip(content)) {
            expect(ride.unzippedLength).toBe(content.length);
            expect(ride.bytes.length).toBeLessThanOrEqual(compressedSize(archive, ride.path) + 18);
          } else {
            expect(ride.unzippedLength).toBeNull();
          }
        });
        expect(skipped.map((entry) => entry.name).sort()).toEqual(
          files
            .filter(([name]) => !RIDE.test(name))
            .map(([name]) => name)
            .sort(),
        );
        expect(skipped.every((entry) => entry.reason.length > 0)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses archives whose rides declare more than the limit together, whatever their count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 1, max: 2000 }), (count, size) => {
        const zippable: Zippable = {};
        for (let i = 0; i < count; i++) zippable[`r${i}.gpx`] = new Uint8Array(size).fill(0x20);
        const limit = count * size - 1;
        expect(() => bulkArchiveOf(Buffer.from(zipSync(zippable)), limit)).toThrow(
          /once decompressed, more than the limit/,
        );
        expect(bulkArchiveOf(Buffer.from(zipSync(zippable)), limit + 1)?.rides).toHaveLength(count);
      }),
      { numRuns: 30 },
    );
  });

  it('holds every depth to one budget (issue 36): entries as declared plus what their gzip unpacks to', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ inner: fc.integer({ min: 1, max: 4000 }), gz: fc.boolean() }), {
          minLength: 2,
          maxLength: 5,
        }),
        fc.integer({ min: -50, max: 50 }),
        (rides, slack) => {
          const zippable: Zippable = {};
          let total = 0;
          rides.forEach(({ inner, gz }, index) => {
            const content = new Uint8Array(inner).fill(0x20);
            const entry = gz ? gzipSync(content) : content;
            zippable[`r${index}.gpx${gz ? '.gz' : ''}`] = entry;
            total += entry.length + (gz ? inner : 0);
          });
          const limit = Math.max(1, total + slack);
          const archive = Buffer.from(zipSync(zippable));
          if (total <= limit) {
            expect(bulkArchiveOf(archive, limit)?.rides).toHaveLength(rides.length);
          } else {
            expect(() => bulkArchiveOf(archive, limit)).toThrow(/more than the limit/);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('lists at most the first skipped entries, names cut, and counts them all (issue 36)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 1000 }),
        (count, nameLength) => {
          const zippable: Zippable = { 'ride.gpx': new Uint8Array(10).fill(0x20) };
          for (let i = 0; i < count; i++) zippable[`${i}-${'x'.repeat(nameLength)}.txt`] = new Uint8Array(0);
          const result = bulkArchiveOf(Buffer.from(zipSync(zippable)), 1024 * 1024)!;
          expect(result.skippedCount).toBe(count);
          expect(result.skipped).toHaveLength(Math.min(count, MAX_SKIPPED_LISTED));
          for (const entry of result.skipped) {
            expect(entry.name.length).toBeLessThanOrEqual(SKIPPED_NAME_MAX_CHARS);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  // It runs in a worker thread (unzip-worker.ts), so it need not yield: archive.e2e.test.ts checks the thread.
  it('keeps a large archive’s rides as small as they came, losing nothing (issue 36)', () => {
    const big = new Uint8Array(3 * 1024 * 1024).fill(0x20);
    const archive = Buffer.from(zipSync({ 'a.gpx': big, 'b.gpx': big, 'c.gpx': big }));
    const result = bulkArchiveOf(archive, 16 * 1024 * 1024)!;
    expect(result.rides.map((ride) => fileOf(ride).length)).toEqual([big.length, big.length, big.length]);
    for (const ride of result.rides) expect(ride.bytes.length).toBeLessThan(big.length / 100);
  });

  it('is null for anything that is not a ZIP', () => {
    expect(bulkArchiveOf(Buffer.from('<gpx/>'), 1024)).toBeNull();
  });
});

import fc from 'fast-check';
import { gzipSync, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { corpusAvailable, corpusFiles, readCorpus, readFixture } from '../../../test/support/corpus.js';
import { checkRideFileComplete } from './complete.js';
import { RideFileError, RideFileErrorCode } from './errors.js';
import { kmzDocument } from './kmz.js';
import type { RideFile } from './model.js';
import { parseFitFile, parseRideFile, parseRideFileColumns } from './parse.js';
import { errorOf } from './test-support/ride-file-error.js';
import { DEFAULT_MAX_ZIP_ENTRIES, isZip, readZipEntries } from './zip.js';

const encoder = new TextEncoder();

/** A KMZ as OpenTracks writes one: doc.kml at the top, an image beside it. */
function kmz(files: Record<string, Uint8Array>, level: 0 | 6 = 6): Uint8Array {
  const zippable: Zippable = {};
  for (const [name, bytes] of Object.entries(files)) zippable[name] = [bytes, { level }];
  return zipSync(zippable);
}

/** What a KMZ and its KML must agree on: everything but the format. */
function withoutFormat(ride: RideFile): Omit<RideFile, 'format'> {
  return { creator: ride.creator, tracks: ride.tracks, warnings: ride.warnings };
}

/** Offsets of an archive's records, to damage one field at a time. */
function centralHeaderOffset(bytes: Uint8Array, index = 0): number {
  let found = -1;
  for (let at = 0, seen = 0; at + 4 <= bytes.length; at++) {
    if (bytes[at] === 0x50 && bytes[at + 1] === 0x4b && bytes[at + 2] === 0x01 && bytes[at + 3] === 0x02) {
      if (seen++ === index) {
        found = at;
        break;
      }
    }
  }
  if (found < 0) throw new Error('no central header');
  return found;
}

function setUint32(bytes: Uint8Array, at: number, value: number): void {
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(at, value, true);
}

const TRACKS_KML = readFixture('kml', 'tracks.kml');

describe('parseRideFile: KMZ', () => {
  it('reads doc.kml of the archive as the KML itself is read, and says the format is kmz', () => {
    const archive = kmz({ 'doc.kml': TRACKS_KML, 'images/photo.jpg': new Uint8Array([0xff, 0xd8, 1, 2]) });
    expect(isZip(archive)).toBe(true);
    const fromKmz = parseRideFile(archive, { filename: 'ride.kmz' });
    expect(fromKmz.format).toBe('kmz');
    expect(withoutFormat(fromKmz)).toEqual(withoutFormat(parseRideFile(TRACKS_KML)));
    expect(parseRideFileColumns(archive).tracks.map((track) => track.columns.length)).toEqual(
      parseRideFileColumns(TRACKS_KML).tracks.map((track) => track.columns.length),
    );
  });

  it('prefers doc.kml at the top, then the first .kml at the top, then the first anywhere', () => {
    const name = (names: string[]): string | undefined =>
      kmzDocument(readZipEntries(kmz(Object.fromEntries(names.map((n) => [n, TRACKS_KML])))))?.name;
    expect(name(['a.kml', 'doc.kml', 'files/z.kml'])).toBe('doc.kml');
    expect(name(['files/z.kml', 'b.KML', 'a.kml'])).toBe('b.KML');
    expect(name(['files/z.kml', 'files/y.kml'])).toBe('files/z.kml');
  });

  it('reads a stored (uncompressed) entry and a KMZ inside gzip', () => {
    expect(parseRideFile(kmz({ 'doc.kml': TRACKS_KML }, 0)).tracks).toHaveLength(4);
    expect(parseRideFile(gzipSync(kmz({ 'doc.kml': TRACKS_KML }))).format).toBe('kmz');
  });

  it('is refused by parseFitFile, which reads only FIT', () => {
    const error = errorOf(() => parseFitFile(kmz({ 'doc.kml': TRACKS_KML })));
    expect(error.code).toBe(RideFileErrorCode.UNKNOWN_FORMAT);
    expect(error.message).toMatch(/KMZ file, and parseFitFile reads only FIT/);
  });

  it.skipIf(!corpusAvailable)('every corpus KML reads the same from a KMZ of it', () => {
    const files = corpusFiles('kml');
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const kml = readCorpus(file.name);
      let direct: RideFile | RideFileError;
      try {
        direct = parseRideFile(kml);
      } catch (error) {
        direct = error as RideFileError;
      }
      const archive = kmz({ 'doc.kml': kml });
      if (direct instanceof RideFileError) {
        expect(errorOf(() => parseRideFile(archive)).code, file.name).toBe(direct.code);
      } else {
        expect(withoutFormat(parseRideFile(archive)), file.name).toEqual(withoutFormat(direct));
      }
    }
  });
});

/** A KML of one gx:Track, from generated points (whole seconds, positions, an optional heart rate). */
const trackKml = fc
  .array(
    fc.record({
      x: fc.double({ min: -180, max: 180, noNaN: true }),
      y: fc.double({ min: -90, max: 90, noNaN: true }),
      e: fc.integer({ min: -400, max: 8000 }),
      h: fc.integer({ min: 40, max: 220 }),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((points) => {
    const start = Date.UTC(2024, 4, 1, 8) / 1000;
    const when = points.map((_, i) => `<when>${new Date((start + i) * 1000).toISOString()}</when>`);
    const coords = points.map((p) => `<gx:coord>${p.x} ${p.y} ${p.e}</gx:coord>`);
    const heart = points.map((p) => `<gx:value>${p.h}</gx:value>`);
    return encoder.encode(
      `<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document><Placemark><name>Generated</name><gx:Track>${when.join('')}${coords.join('')}<ExtendedData><SchemaData><gx:SimpleArrayData name="heartrate">${heart.join('')}</gx:SimpleArrayData></SchemaData></ExtendedData></gx:Track></Placemark></Document></kml>`,
    );
  });

describe('KMZ round trip (property)', () => {
  it('a KMZ of any KML, with any companions, stored or deflated, reads equal to the KML', () => {
    fc.assert(
      fc.property(
        trackKml,
        fc.constantFrom<0 | 6>(0, 6),
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}\/?[a-z]{1,8}\.(?:png|jpg|txt)$/), { maxLength: 3 }),
        (kml, level, companions) => {
          const files: Record<string, Uint8Array> = { 'doc.kml': kml };
          for (const name of companions) files[name] = encoder.encode(name);
          const archive = kmz(files, level);
          expect(withoutFormat(parseRideFile(archive))).toEqual(withoutFormat(parseRideFile(kml)));
          expect(checkRideFileComplete(archive)).toEqual({ complete: true, format: 'kmz' });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('any cut-off KMZ is a RIDEFILE_MALFORMED error and incomplete, never another failure', () => {
    fc.assert(
      fc.property(
        trackKml,
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (kml, fraction) => {
          const archive = kmz({ 'doc.kml': kml });
          const cut = archive.subarray(0, Math.max(4, Math.floor(archive.length * fraction)));
          const error = errorOf(() => parseRideFile(cut));
          expect(error.code).toBe(RideFileErrorCode.MALFORMED);
          expect(error.message).toMatch(/ZIP archive is corrupt or cut off/);
          expect(checkRideFileComplete(cut).complete).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('KMZ: hostile archives', () => {
  it('a zip bomb is stopped at maxBytes, whether its size is declared or hidden', () => {
    const big = new Uint8Array(4 * 1024 * 1024).fill(0x20);
    const archive = kmz({ 'doc.kml': big });
    const declared = errorOf(() => parseRideFile(archive, { maxBytes: 1024 * 1024 }));
    expect(declared.code).toBe(RideFileErrorCode.TOO_LARGE);
    expect(declared.message).toMatch(/"doc\.kml" in the ZIP archive is 4194304 bytes .* limit of 1048576/);

    // The directory claims 1000 bytes: inflating stops at the claim, not at the end of the data.
    const lying = archive.slice();
    setUint32(lying, centralHeaderOffset(lying) + 24, 1000);
    const hidden = errorOf(() => parseRideFile(lying, { maxBytes: 1024 * 1024 }));
    expect(hidden.code).toBe(RideFileErrorCode.MALFORMED);
    expect(hidden.message).toMatch(/holds more than the 1000 bytes it declares/);
  });

  it('an archive that declares more entries than are read is refused before one is read (issue 36)', () => {
    const archive = kmz({
      'doc.kml': TRACKS_KML,
      'a.png': new Uint8Array([1]),
      'b.png': new Uint8Array([2]),
    });
    expect(readZipEntries(archive, { maxEntries: 3 })).toHaveLength(3);
    const few = errorOf(() => readZipEntries(archive, { maxEntries: 2 }));
    expect(few.code).toBe(RideFileErrorCode.TOO_LARGE);
    expect(few.message).toBe(
      'the ZIP archive declares 3 entries, more than the 2 that are read: split it into smaller archives',
    );
    // An end record that claims tens of thousands of entries is refused on its word, not after a walk
    // of its directory.
    const claiming = archive.slice();
    const end = claiming.length - 22;
    new DataView(claiming.buffer).setUint16(end + 8, 60_000, true);
    new DataView(claiming.buffer).setUint16(end + 10, 60_000, true);
    expect(errorOf(() => readZipEntries(claiming)).code).toBe(RideFileErrorCode.TOO_LARGE);
    // A KMZ of empty entries past the bound: the parser says so too.
    const many: Record<string, Uint8Array> = { 'doc.kml': TRACKS_KML };
    for (let i = 0; i < DEFAULT_MAX_ZIP_ENTRIES; i++) many[`e/${i}`] = new Uint8Array(0);
    const bomb = errorOf(() => parseRideFile(kmz(many, 0)));
    expect(bomb.code).toBe(RideFileErrorCode.TOO_LARGE);
    expect(bomb.message).toMatch(/declares 20001 entries, more than the 20000/);
  });

  it('a ZIP without a .kml is not a KMZ, and says what it holds', () => {
    const error = errorOf(() =>
      parseRideFile(kmz({ 'photo.jpg': new Uint8Array([1]), 'notes.txt': encoder.encode('x') })),
    );
    expect(error.code).toBe(RideFileErrorCode.UNKNOWN_FORMAT);
    expect(error.message).toMatch(
      /holds no \.kml file, so it is not a KMZ \(it holds "photo\.jpg", "notes\.txt"\)/,
    );
    expect(errorOf(() => parseRideFile(zipSync({}))).message).toMatch(/it holds no files/);
  });

  it('an encrypted entry is RIDEFILE_ENCRYPTED', () => {
    const archive = kmz({ 'doc.kml': TRACKS_KML });
    const at = centralHeaderOffset(archive);
    archive[at + 8] = archive[at + 8]! | 1;
    const error = errorOf(() => parseRideFile(archive));
    expect(error.code).toBe(RideFileErrorCode.ENCRYPTED);
    expect(error.message).toMatch(/"doc\.kml" in the ZIP archive is encrypted \(password-protected\)/);
    const completeness = checkRideFileComplete(archive);
    expect(completeness.complete).toBe(false);
    expect(completeness.complete ? '' : completeness.reason).toMatch(/encrypted/);
  });

  it('corrupt data or a wrong checksum is RIDEFILE_MALFORMED', () => {
    const archive = kmz({ 'doc.kml': TRACKS_KML });
    const badCrc = archive.slice();
    setUint32(badCrc, centralHeaderOffset(badCrc) + 16, 12345);
    expect(errorOf(() => parseRideFile(badCrc)).message).toMatch(
      /does not match its recorded size and checksum/,
    );

    const garbled = archive.slice();
    garbled.fill(0xff, 40, 60);
    const error = errorOf(() => parseRideFile(garbled));
    expect(error.code).toBe(RideFileErrorCode.MALFORMED);
    expect(error.message).toMatch(/ZIP archive is corrupt/);

    const outside = archive.slice();
    setUint32(outside, centralHeaderOffset(outside) + 42, 0x7fffffff);
    expect(errorOf(() => parseRideFile(outside)).message).toMatch(/data of "doc\.kml" is missing/);
  });

  it('a compression method other than stored and deflate is named', () => {
    const archive = kmz({ 'doc.kml': TRACKS_KML });
    const at = centralHeaderOffset(archive);
    archive[at + 10] = 12; // bzip2
    const error = errorOf(() => parseRideFile(archive));
    expect(error.code).toBe(RideFileErrorCode.UNKNOWN_FORMAT);
    expect(error.message).toMatch(/compressed with method 12; only stored and deflate/);
  });
});

/**
 * inflatedSize (issue 36): what parseRideFile decompresses to read a file, counted without keeping it,
 * and parseRideFile's one budget for all it decompresses (gunzip's output and a KMZ's document
 * together). The count is what the parser holds to its budget: a file fits `maxBytes` for the one
 * exactly when it fits for the other.
 */
import fc from 'fast-check';
import { gzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../test/support/corpus.js';
import { RideFileError, RideFileErrorCode } from './errors.js';
import { inflatedSize } from './inflated-size.js';
import { parseRideFile } from './parse.js';
import { errorOf } from './test-support/ride-file-error.js';

const MB = 1024 * 1024;
const GPX = readFixture('gpx', 'sample-ride.gpx');
const KML = readFixture('kml', 'tracks.kml');

/** The code parseRideFile ends with: null when it reads the file. */
function parseCode(bytes: Uint8Array, maxBytes: number): string | null {
  try {
    parseRideFile(bytes, { maxBytes });
    return null;
  } catch (error) {
    if (error instanceof RideFileError) return error.code;
    throw error;
  }
}

describe('inflatedSize', () => {
  it('is 0 for a file read as it is, and gunzip’s output for a gzip file', () => {
    expect(inflatedSize(GPX)).toBe(0);
    expect(inflatedSize(gzipSync(GPX))).toBe(GPX.length);
  });

  it('counts a KMZ’s document as it declares it, stored or deflated, and gunzip’s output before it', () => {
    const deflated = zipSync({ 'doc.kml': KML, 'icon.png': new Uint8Array(5000) });
    const stored = zipSync({ 'doc.kml': [KML, { level: 0 }] });
    expect(inflatedSize(deflated)).toBe(KML.length);
    expect(inflatedSize(stored)).toBe(KML.length);
    expect(inflatedSize(gzipSync(deflated))).toBe(deflated.length + KML.length);
    // Not a KMZ (no .kml): nothing beyond gunzip; the parser says what it is.
    expect(inflatedSize(zipSync({ 'a.txt': GPX }))).toBe(0);
  });

  it('reads a gzipped KMZ’s directory longer than the tail it keeps, from a second pass', () => {
    const files: Record<string, Uint8Array> = { 'doc.kml': KML };
    // About 1.5 MB of directory: 5,000 entries with names of 250 characters.
    for (let i = 0; i < 5000; i++) files[`images/${String(i).padStart(243, 'x')}`] = new Uint8Array(0);
    const kmz = zipSync(files);
    expect(inflatedSize(gzipSync(kmz))).toBe(kmz.length + KML.length);
  });

  it('stops the moment the count passes maxBytes, a gzip bomb within its first megabytes', () => {
    const bomb = gzipSync(new Uint8Array(16 * MB));
    const error = errorOf(() => inflatedSize(bomb, MB));
    expect(error.code).toBe(RideFileErrorCode.TOO_LARGE);
    expect(error.message).toBe(`the file is larger than ${MB} bytes once decompressed`);

    const kmz = gzipSync(zipSync({ 'doc.kml': new Uint8Array(MB).fill(0x20) }));
    expect(errorOf(() => inflatedSize(kmz, MB)).message).toMatch(
      /^the file is larger than 1048576 bytes once decompressed: its KML document, "doc\.kml", declares 1048576 bytes after \d+ bytes of gunzip$/,
    );
  });

  it('counts what a cut-off gzip gives before its end, as the parser reads it', () => {
    const whole = gzipSync(GPX);
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    const counted = inflatedSize(cut);
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThan(GPX.length);
    expect(parseCode(cut, counted)).not.toBe(RideFileErrorCode.TOO_LARGE);
    expect(parseCode(cut, counted - 1)).toBe(RideFileErrorCode.TOO_LARGE);
  });

  it('quotes at most 255 characters of a document’s name', () => {
    const name = `${'n'.repeat(5000)}.kml`;
    const error = errorOf(() => inflatedSize(zipSync({ [name]: new Uint8Array(2000) }), 1000));
    expect(error.message.length).toBeLessThan(400);
  });
});

describe('parseRideFile: one budget for all it decompresses (issue 36)', () => {
  it('refuses a gzipped KMZ whose gunzip and document together pass maxBytes, each alone within it', () => {
    // A stored document: the KMZ is as large as its document, so gunzip gives about as much again.
    const document = new Uint8Array(600 * 1024).fill(0x20);
    const gzipped = gzipSync(zipSync({ 'doc.kml': [document, { level: 0 }] }));
    const error = errorOf(() => parseRideFile(gzipped, { maxBytes: MB }));
    expect(error.code).toBe(RideFileErrorCode.TOO_LARGE);
    expect(error.message).toMatch(/"doc\.kml" in the ZIP archive is 614400 bytes once decompressed/);
  });
});

/** A ride file, as it may reach the parser: GPX or KML, in a KMZ or not, gzipped or not, cut or not. */
const files = fc
  .record({
    copies: fc.integer({ min: 1, max: 30 }),
    kmz: fc.constantFrom<'no' | 'stored' | 'deflated'>('no', 'stored', 'deflated'),
    gzip: fc.boolean(),
    cut: fc.option(fc.double({ min: 0.2, max: 0.99, noNaN: true }), { nil: undefined }),
  })
  .map(({ copies, kmz, gzip, cut }) => {
    let bytes: Uint8Array = kmz === 'no' ? GPX : KML;
    // Longer content: the same track points again (still a readable file up to the parser).
    if (copies > 1) bytes = new Uint8Array(Array.from({ length: copies }, () => [...bytes]).flat());
    if (kmz !== 'no') bytes = zipSync({ 'doc.kml': [bytes, { level: kmz === 'stored' ? 0 : 6 }] });
    if (gzip) bytes = gzipSync(bytes);
    return cut === undefined ? bytes : bytes.subarray(0, Math.max(4, Math.floor(bytes.length * cut)));
  });

describe('inflatedSize (property)', () => {
  it('passes maxBytes exactly when the parser refuses the file as too large', () => {
    fc.assert(
      fc.property(files, fc.double({ min: 0, max: 1.5, noNaN: true }), (bytes, share) => {
        const counted = inflatedSize(bytes, Number.MAX_SAFE_INTEGER);
        // A budget around the count, never below the file itself (the parser's other bound).
        const maxBytes = Math.max(bytes.length, Math.floor(counted * share));
        let fits = true;
        try {
          expect(inflatedSize(bytes, maxBytes)).toBe(counted);
        } catch (error) {
          expect((error as RideFileError).code).toBe(RideFileErrorCode.TOO_LARGE);
          fits = false;
        }
        expect(fits).toBe(counted <= maxBytes);
        const code = parseCode(bytes, maxBytes);
        if (fits) expect(code).not.toBe(RideFileErrorCode.TOO_LARGE);
        else expect(code).toBe(RideFileErrorCode.TOO_LARGE);
      }),
      { numRuns: 150 },
    );
  });
});

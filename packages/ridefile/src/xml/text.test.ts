import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamedBytes } from '../streamed-bytes.js';
import { decodeXmlChunks, decodeXmlPrefix } from './text.js';

const encoder = new TextEncoder();

/** The text a streaming decoder gives for the bytes, read `chunkBytes` at a time (the former way). */
function streamed(bytes: Uint8Array, chunkBytes: number, label = 'utf-8'): string {
  const decoder = new TextDecoder(label, { fatal: false, ignoreBOM: true });
  let text = '';
  for (let start = 0; start < bytes.length; start += chunkBytes) {
    const end = Math.min(start + chunkBytes, bytes.length);
    text += decoder.decode(bytes.subarray(start, end), { stream: end < bytes.length });
  }
  return text + decoder.decode();
}

/** The same bytes as StreamedBytes, handed over in pieces cut at `cuts` (issue 36). */
function inPieces(bytes: Uint8Array, cuts: number[]): StreamedBytes {
  const ends = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  return {
    head: bytes.subarray(0, 64 * 1024),
    each(take) {
      let start = 0;
      for (const end of [...ends, bytes.length]) {
        if (end >= start) take(bytes.subarray(start, end));
        start = Math.max(start, end);
      }
    },
  };
}

function chunks(bytes: Uint8Array, chunkBytes: number): string[] {
  const pieces: string[] = [];
  decodeXmlChunks(bytes, (piece) => pieces.push(piece), chunkBytes);
  return pieces;
}

/** Bytes that are mostly UTF-8 sequences, whole and cut, with every kind of invalid byte among them. */
const utf8ish = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 4 }).map((text) => [...encoder.encode(text)]),
      fc.constantFrom([0x3c], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80], [0xed, 0xa0, 0x80]),
      fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 3 }),
      // Lead bytes with a restricted second byte, and the continuation bytes at those limits.
      fc.array(fc.constantFrom(0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf), {
        minLength: 1,
        maxLength: 3,
      }),
    ),
    { maxLength: 30 },
  )
  // A leading space: no byte-order mark, UTF-16 pattern or XML declaration decides the encoding.
  .map((parts) => Uint8Array.from([0x20, ...parts.flat()]));

describe('decodeXmlChunks', () => {
  it('gives the text a streaming decoder gives, however the chunks fall (property)', () => {
    fc.assert(
      fc.property(utf8ish, fc.integer({ min: 4, max: 12 }), (bytes, chunkBytes) => {
        const pieces = chunks(bytes, chunkBytes);
        expect(pieces.join('')).toBe(streamed(bytes, chunkBytes));
        // Each piece ends on a character boundary: no piece ends in a lone high surrogate.
        for (const piece of pieces.slice(0, -1))
          expect(piece.charCodeAt(piece.length - 1) >> 10).not.toBe(0x36);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same text for the bytes in pieces as for the bytes whole, however both fall (property)', () => {
    const withStart = fc
      .tuple(fc.constantFrom([], [0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff]), utf8ish)
      .map(([start, bytes]) => Uint8Array.from([...start, ...bytes]));
    fc.assert(
      fc.property(
        withStart,
        fc.integer({ min: 4, max: 12 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (bytes, chunkBytes, cuts) => {
          const pieces: string[] = [];
          decodeXmlChunks(inPieces(bytes, cuts), (piece) => pieces.push(piece), chunkBytes);
          expect(pieces.join('')).toBe(chunks(bytes, chunkBytes).join(''));
          for (const piece of pieces.slice(0, -1))
            expect(piece.charCodeAt(piece.length - 1) >> 10).not.toBe(0x36);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('cuts UTF-8 between characters and drops a byte-order mark', () => {
    const text = 'é€😀'.repeat(10);
    const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, ...encoder.encode(text)]);
    const pieces = chunks(bytes, 5);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(text);
  });

  it('still streams other encodings (UTF-16, ISO-8859-1)', () => {
    const text = '<?xml version="1.0"?><r>Zürich 😀</r>';
    const utf16 = new Uint8Array(2 + text.length * 2);
    utf16.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i++) {
      utf16[2 + 2 * i] = text.charCodeAt(i) & 0xff;
      utf16[3 + 2 * i] = text.charCodeAt(i) >> 8;
    }
    expect(chunks(utf16, 7).join('')).toBe(text);
    const declared = '<?xml version="1.0" encoding="ISO-8859-1"?><r>Zürich</r>';
    const latin1 = Uint8Array.from({ length: declared.length }, (_, i) => declared.charCodeAt(i));
    expect(chunks(latin1, 6).join('')).toBe(declared);
  });
});

describe('decodeXmlPrefix', () => {
  it('gives the characters complete within the prefix, as a streaming decoder does (property)', () => {
    fc.assert(
      fc.property(utf8ish, fc.nat({ max: 40 }), (bytes, maxBytes) => {
        const reference = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(
          bytes.subarray(0, maxBytes),
          { stream: true },
        );
        expect(decodeXmlPrefix(bytes, maxBytes)).toBe(reference);
      }),
      { numRuns: 2000 },
    );
  });
});

/**
 * Bytes → text for the XML readers, chunk by chunk, so a large file never exists as one big string.
 * Honours a byte-order mark (UTF-8, UTF-16) and the `encoding` of the XML declaration; invalid bytes
 * become U+FFFD rather than failing the whole file.
 *
 * UTF-8 (nearly every file) is cut into chunks at character boundaries and each chunk decoded on its own:
 * a `TextDecoder` used with `{ stream: true }` gives up its fast path for good (in Node, ICU instead of
 * simdutf, and a converter set up per decoder), which cost more than the parse of a small file. Cutting
 * where a streaming decoder would hold bytes back gives the same text (text.test.ts checks it).
 */

/**
 * 64 KB: each chunk's text is held whole while saxes reads it, and a text a reader keeps (a track's
 * name) may be a slice that keeps its chunk alive, so larger chunks raise the peak of a large file
 * (issue 21 bounds the columnar reader's peak; `bench:parse` measures it), while the calls per chunk
 * cost nothing measurable at this size.
 */
import type { FileBytes, StreamedBytes } from '../streamed-bytes.js';

const CHUNK_BYTES = 1 << 16;

/**
 * Calls `consume` with successive pieces of the decoded text. The byte-order mark is not passed on.
 * Bytes that come a piece at a time (StreamedBytes) give the same text as the same bytes whole.
 */
export function decodeXmlChunks(
  input: FileBytes,
  consume: (text: string) => void,
  chunkBytes = CHUNK_BYTES,
): void {
  if (!(input instanceof Uint8Array)) {
    decodeStreamedXml(input, consume, chunkBytes);
    return;
  }
  const bytes = input;
  const { label, skip } = detectEncoding(bytes);
  const decoder = makeDecoder(label);
  if (decoder.encoding === 'utf-8') {
    for (let start = skip; start < bytes.length;) {
      let end = Math.min(start + chunkBytes, bytes.length);
      if (end < bytes.length) {
        const pending = utf8PendingStart(bytes, start, end);
        if (pending > start) end = pending; // always, for chunks of 4 bytes or more
      }
      const text = decoder.decode(bytes.subarray(start, end));
      if (text.length > 0) consume(text);
      start = end;
    }
    return;
  }
  for (let start = skip; start < bytes.length; start += chunkBytes) {
    const end = Math.min(start + chunkBytes, bytes.length);
    const text = decoder.decode(bytes.subarray(start, end), { stream: end < bytes.length });
    if (text.length > 0) consume(text);
  }
  const rest = decoder.decode();
  if (rest.length > 0) consume(rest);
}

/**
 * decodeXmlChunks over bytes that come a piece at a time: the encoding is told from the head, each
 * piece is decoded in chunks as whole bytes are, and a UTF-8 sequence cut by the end of a piece waits
 * (at most three bytes) for the next.
 */
function decodeStreamedXml(input: StreamedBytes, consume: (text: string) => void, chunkBytes: number): void {
  const { label, skip } = detectEncoding(input.head);
  const decoder = makeDecoder(label);
  const utf8 = decoder.encoding === 'utf-8';
  let toSkip = skip;
  /** the start of a UTF-8 sequence the last piece ended in */
  let held = null as Uint8Array | null;
  input.each((piece) => {
    let bytes = piece;
    if (toSkip > 0) {
      const skipped = Math.min(toSkip, bytes.length);
      bytes = bytes.subarray(skipped);
      toSkip -= skipped;
    }
    if (held !== null) {
      const joined = new Uint8Array(held.length + bytes.length);
      joined.set(held);
      joined.set(bytes, held.length);
      bytes = joined;
      held = null;
    }
    for (let start = 0; start < bytes.length;) {
      const last = start + chunkBytes >= bytes.length;
      let end = last ? bytes.length : start + chunkBytes;
      let text: string;
      if (utf8) {
        // As decodeXmlChunks cuts whole bytes; only the piece's last chunk holds its cut sequence back.
        const pending = utf8PendingStart(bytes, start, end);
        if (last && pending < end) held = bytes.slice(pending, end);
        text = decoder.decode(bytes.subarray(start, last || pending > start ? pending : end));
        if (!last && pending > start) end = pending;
      } else {
        text = decoder.decode(bytes.subarray(start, end), { stream: true });
      }
      if (text.length > 0) consume(text);
      start = end;
    }
  });
  const rest = utf8 ? (held === null ? '' : decoder.decode(held)) : decoder.decode();
  if (rest.length > 0) consume(rest);
}

/** The first `maxBytes` of the file as text, for sniffing the root element. */
export function decodeXmlPrefix(bytes: Uint8Array, maxBytes: number): string {
  const { label, skip } = detectEncoding(bytes);
  const decoder = makeDecoder(label);
  const end = Math.min(skip + maxBytes, bytes.length);
  if (decoder.encoding === 'utf-8') {
    // What a streaming decoder gives for these bytes: the characters complete within them.
    return decoder.decode(bytes.subarray(skip, utf8PendingStart(bytes, skip, end)));
  }
  return decoder.decode(bytes.subarray(skip, end), { stream: true });
}

/**
 * Where a streaming UTF-8 decoder fed `bytes[start, end)` would stop emitting: the start of an
 * incomplete but so far valid sequence at the end (it waits for the rest), else `end`. Decoding up to
 * there on its own gives the same characters, and the decoder is in its initial state at that point
 * (a lead byte always starts afresh), so the next piece can be decoded on its own too (WHATWG Encoding,
 * UTF-8 decoder). Never returns `start` for a piece of 4 bytes or more.
 */
export function utf8PendingStart(bytes: Uint8Array, start: number, end: number): number {
  // The last byte that is not a continuation byte (10xxxxxx), within the last three.
  let lead = end - 1;
  const stop = Math.max(start, end - 3);
  while (lead >= stop && (bytes[lead]! & 0xc0) === 0x80) lead--;
  if (lead < stop) return end;
  const first = bytes[lead]!;
  let needed: number;
  let low = 0x80;
  let high = 0xbf;
  if (first >= 0xc2 && first <= 0xdf) {
    needed = 2;
  } else if (first >= 0xe0 && first <= 0xef) {
    needed = 3;
    if (first === 0xe0) low = 0xa0;
    else if (first === 0xed) high = 0x9f;
  } else if (first >= 0xf0 && first <= 0xf4) {
    needed = 4;
    if (first === 0xf0) low = 0x90;
    else if (first === 0xf4) high = 0x8f;
  } else {
    return end; // ASCII, or a byte that is never a lead: nothing is held back
  }
  if (end - lead >= needed) return end;
  // Held back only while every byte after the lead continues it validly (the second one within its range).
  for (let i = lead + 1; i < end; i++) {
    const byte = bytes[i]!;
    if (byte < low || byte > high) return end;
    low = 0x80;
    high = 0xbf;
  }
  return lead;
}

function detectEncoding(bytes: Uint8Array): { label: string; skip: number } {
  const [b0, b1, b2] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { label: 'utf-8', skip: 3 };
  if (b0 === 0xff && b1 === 0xfe) return { label: 'utf-16le', skip: 2 };
  if (b0 === 0xfe && b1 === 0xff) return { label: 'utf-16be', skip: 2 };
  // UTF-16 without a byte-order mark: "<?" encoded as 3C 00 3F 00 or 00 3C 00 3F.
  if (b0 === 0x3c && b1 === 0x00) return { label: 'utf-16le', skip: 0 };
  if (b0 === 0x00 && b1 === 0x3c) return { label: 'utf-16be', skip: 0 };
  return { label: declaredEncoding(bytes) ?? 'utf-8', skip: 0 };
}

/** The `encoding="…"` of an ASCII-compatible XML declaration, if any. */
function declaredEncoding(bytes: Uint8Array): string | null {
  const head = bytes.subarray(0, 256);
  const end = head.indexOf(0x3e /* > */);
  const ascii = String.fromCharCode(...(end < 0 ? head : head.subarray(0, end)));
  if (!ascii.startsWith('<?xml')) return null;
  const match = /encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(ascii);
  return match?.[1]?.toLowerCase() ?? null;
}

function makeDecoder(label: string): TextDecoder {
  try {
    return new TextDecoder(label, { fatal: false, ignoreBOM: true });
  } catch {
    // An encoding name TextDecoder does not know: UTF-8 reads the ASCII structure correctly anyway.
    return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  }
}

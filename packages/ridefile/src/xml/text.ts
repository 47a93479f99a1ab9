/**
 * Bytes → text for the XML readers, chunk by chunk, so a large file never exists as one big string.
 * Honours a byte-order mark (UTF-8, UTF-16) and the `encoding` of the XML declaration; invalid bytes
 * become U+FFFD rather than failing the whole file.
 */

const CHUNK_BYTES = 1 << 20;

/** Calls `consume` with successive pieces of the decoded text. The byte-order mark is not passed on. */
export function decodeXmlChunks(bytes: Uint8Array, consume: (text: string) => void): void {
  const { label, skip } = detectEncoding(bytes);
  const decoder = makeDecoder(label);
  for (let start = skip; start < bytes.length; start += CHUNK_BYTES) {
    const end = Math.min(start + CHUNK_BYTES, bytes.length);
    const text = decoder.decode(bytes.subarray(start, end), { stream: end < bytes.length });
    if (text.length > 0) consume(text);
  }
  const rest = decoder.decode();
  if (rest.length > 0) consume(rest);
}

/** The first `maxBytes` of the file as text, for sniffing the root element. */
export function decodeXmlPrefix(bytes: Uint8Array, maxBytes: number): string {
  const { label, skip } = detectEncoding(bytes);
  return makeDecoder(label).decode(bytes.subarray(skip, skip + maxBytes), { stream: true });
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
  let ascii = '';
  for (const byte of head) {
    if (byte === 0x3e /* > */) break;
    ascii += String.fromCharCode(byte);
  }
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

/** Text helpers of the writers: XML escaping, ISO times and a chunked string builder. */

/**
 * Text for XML element content and attribute values: markup characters escaped, and characters XML 1.0
 * cannot carry at all (control characters, unpaired surrogates, U+FFFE/U+FFFF) left out.
 */
export function xmlText(value: string): string {
  const clean = value.replace(NOT_IN_XML, '');
  return clean.replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!);
}

/** Characters XML 1.0 cannot carry: C0 controls but tab, newline and return; unpaired surrogates; U+FFFE/F. */
const NOT_IN_XML = new RegExp(
  // eslint-disable-next-line no-control-regex -- matching the control characters XML forbids is the point
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]',
  'g',
);

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Unix seconds → ISO 8601 UTC without fractions, e.g. 2019-02-17T06:26:44Z. */
export function isoTime(seconds: number): string {
  const iso = new Date(seconds * 1000).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/** Chunks of about this many characters are handed out, so a huge track never becomes one string. */
export const CHUNK_CHARACTERS = 64 * 1024;

/**
 * Collects output text and hands it out in chunks of about CHUNK_CHARACTERS, so writers can be
 * generators that never hold the whole document.
 */
export class ChunkBuilder {
  #parts: string[] = [];
  #size = 0;

  add(text: string): void {
    this.#parts.push(text);
    this.#size += text.length;
  }

  /** A chunk when enough has been collected, else null. */
  take(): string | null {
    return this.#size >= CHUNK_CHARACTERS ? this.flush() : null;
  }

  /** Whatever has been collected (possibly ''). */
  flush(): string {
    const chunk = this.#parts.join('');
    this.#parts = [];
    this.#size = 0;
    return chunk;
  }
}

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

/** '00' … '59', the seconds of a time. */
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));
/** The minute of the last time formatted and its 'YYYY-MM-DDTHH:MM:' prefix: points come a second apart. */
let cachedMinute = NaN;
let cachedMinutePrefix = '';

/**
 * Unix seconds → ISO 8601 UTC without fractions, e.g. 2019-02-17T06:26:44Z (with milliseconds when the
 * time has them). Writers format one time per point, so the date and minute are formatted once per
 * minute and the seconds come from a table: `Date#toISOString` for every point was a third of the time
 * of writing a GPX.
 */
export function isoTime(seconds: number): string {
  if (!Number.isInteger(seconds)) return new Date(seconds * 1000).toISOString();
  const minute = Math.floor(seconds / 60);
  if (minute !== cachedMinute) {
    const iso = new Date(minute * 60_000).toISOString();
    cachedMinutePrefix = iso.slice(0, iso.lastIndexOf(':') + 1);
    cachedMinute = minute;
  }
  return `${cachedMinutePrefix}${TWO_DIGITS[seconds - minute * 60]!}Z`;
}

/** Decimal places written for coordinates: 1e-9° (0.1 mm), finer than FIT's semicircle (8.4e-8°). */
const COORDINATE_PLACES = 9;
const POWERS_OF_TEN = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/**
 * A coordinate in degrees with at most nine decimals, trailing zeros left out. Exact to the FIT
 * semicircle and to any GPX/TCX/KML source (which have fewer decimals), and several times cheaper than
 * the shortest round-trip form `String(value)` gives a full-precision double (47.00001550652087).
 */
export function coordinateText(degrees: number): string {
  return fixedDecimals(degrees, COORDINATE_PLACES) ?? String(degrees);
}

/**
 * A measured value (elevation, speed, power, temperature, distance) exactly: values with at most three
 * decimals (almost all: FIT scales are 1/5, 1/100, 1/1000) take the fast path, whose text reads back
 * as the same number; anything else is written as `String(value)`.
 */
export function numberText(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  // n / 1000 === value means the three-decimal text is exactly `value` (division rounds correctly, and
  // so does reading the text back), so it says the same as String(value), only faster.
  const thousandths = Math.round(value * 1000);
  if (thousandths / 1000 === value) {
    const text = fixedDecimals(value, 3);
    if (text !== null) return text;
  }
  return plainDecimal(value);
}

/**
 * `String(value)`, but never in exponent form (1e-7), which XML Schema's xsd:decimal (GPX <ele>, TCX
 * values) and many CSV readers refuse: tiny values are written out with up to 20 decimals instead.
 */
function plainDecimal(value: number): string {
  const text = String(value);
  if (!text.includes('e')) return text;
  if (Math.abs(value) >= 1) return BigInt(Math.round(value)).toString();
  return value.toFixed(20).replace(/\.?0+$/, '');
}

/** '', '0', '00', … leading zeros of a fraction's digits. */
const ZEROS = Array.from({ length: 10 }, (_, n) => '0'.repeat(n));

/** `value` rounded to `places` decimals without trailing zeros; null when it is too large for that. */
function fixedDecimals(value: number, places: number): string | null {
  const scale = POWERS_OF_TEN[places]!;
  const negative = value < 0;
  const scaled = Math.round((negative ? -value : value) * scale);
  if (!Number.isSafeInteger(scaled)) return null;
  const whole = Math.floor(scaled / scale);
  let fraction = scaled - whole * scale;
  const sign = negative && scaled !== 0 ? '-' : '';
  if (fraction === 0) return sign + String(whole);
  let digits = places;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits -= 1;
  }
  const text = String(fraction);
  return `${sign}${whole}.${ZEROS[digits - text.length]!}${text}`;
}

/** Chunks of about this many characters are handed out, so a huge track never becomes one string. */
export const CHUNK_CHARACTERS = 64 * 1024;

/**
 * Collects output text and hands it out in chunks of about CHUNK_CHARACTERS, so writers can be
 * generators that never hold the whole document.
 */
export class ChunkBuilder {
  // Appending to one string is cheaper than collecting parts and joining them (V8 keeps the pieces as
  // a rope and flattens it once, when the chunk is written out).
  #text = '';

  add(text: string): void {
    this.#text += text;
  }

  /** A chunk when enough has been collected, else null. */
  take(): string | null {
    return this.#text.length >= CHUNK_CHARACTERS ? this.flush() : null;
  }

  /** Whatever has been collected (possibly ''). */
  flush(): string {
    const chunk = this.#text;
    this.#text = '';
    return chunk;
  }
}

/**
 * Text values of the XML formats: numbers and ISO 8601 times, NaN when absent or unreadable.
 *
 * Both have a fast path for the plain forms that make up nearly every value of a ride file (`47.9649`,
 * `2012-11-07T09:11:35Z`), which reads the characters in place instead of trimming, matching a regular
 * expression and converting pieces (issue 2: GPX/TCX/KML speed). The fast path gives exactly the value of
 * the general path or declines (NaN), and then the general path decides; values.test.ts checks the two
 * agree on generated input.
 */

/** The general path of `parseNumber`: `Number` of the trimmed text, NaN unless finite. */
function parseNumberText(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '') return NaN;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : NaN;
}

/** Powers of ten that are exact doubles (10^0 … 10^22). */
const EXACT_POWERS_OF_TEN = Array.from({ length: 23 }, (_, exponent) => 10 ** exponent);

const CHAR_TAB = 0x09;
const CHAR_CR = 0x0d;
const CHAR_SPACE = 0x20;
const CHAR_PLUS = 0x2b;
const CHAR_COMMA = 0x2c;
const CHAR_MINUS = 0x2d;
const CHAR_DOT = 0x2e;
const CHAR_0 = 0x30;
const CHAR_9 = 0x39;
const CHAR_COLON = 0x3a;

/** ASCII whitespace that `String.prototype.trim` removes (tab, LF, VT, FF, CR, space). */
function isAsciiSpace(code: number): boolean {
  return code === CHAR_SPACE || (code >= CHAR_TAB && code <= CHAR_CR);
}

/** The number in `text` from `start` to `end` (exclusive), read like `parseNumber` reads a whole text. */
export function parseNumberIn(text: string, start: number, end: number): number {
  let i = start;
  let n = end;
  while (i < n && isAsciiSpace(text.charCodeAt(i))) i++;
  while (n > i && isAsciiSpace(text.charCodeAt(n - 1))) n--;
  if (i === n) return NaN;
  let code = text.charCodeAt(i);
  const negative = code === CHAR_MINUS;
  if (negative || code === CHAR_PLUS) i++;
  let mantissa = 0;
  let digits = 0;
  let fractionDigits = 0;
  let point = false;
  for (; i < n; i++) {
    code = text.charCodeAt(i);
    if (code >= CHAR_0 && code <= CHAR_9) {
      mantissa = mantissa * 10 + (code - CHAR_0);
      digits++;
      if (point) fractionDigits++;
    } else if (code === CHAR_DOT && !point) {
      point = true;
    } else {
      // An exponent, a hexadecimal or other form, other whitespace, or not a number: the general path.
      return parseNumberText(slice(text, start, end));
    }
  }
  // Exact when the digits fit in a double's 53 bits and the divisor is an exact power of ten (one
  // correctly rounded division, so the same double as Number). Otherwise, or without digits: the general path.
  if (digits === 0 || mantissa > Number.MAX_SAFE_INTEGER || fractionDigits > 22) {
    return parseNumberText(slice(text, start, end));
  }
  const value = mantissa / EXACT_POWERS_OF_TEN[fractionDigits]!;
  return negative ? -value : value;
}

function slice(text: string, start: number, end: number): string {
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** The number the (trimmed) text spells, or NaN when it is empty, not a number or not finite. */
export function parseNumber(text: string): number {
  return parseNumberIn(text, 0, text.length);
}

/**
 * The numbers of a KML tuple: `gx:coord` ("lon lat alt", `splitAtWhitespace`) or one tuple of
 * `coordinates` ("lon,lat,alt"). Reads like `text.trim().split(/[\s,]+/)` (or, for a tuple,
 * `text.split(',')`) followed by `parseNumber` on each of the first three fields, into `out` (NaN for an
 * absent or unreadable field), and returns how many fields there are. The text is `text[start, end)`.
 */
export function readNumberFields(
  text: string,
  start: number,
  end: number,
  splitAtWhitespace: boolean,
  out: Float64Array,
): number {
  const count = readAsciiNumberFields(text, start, end, splitAtWhitespace, out);
  return count >= 0 ? count : readNumberFieldsText(slice(text, start, end), splitAtWhitespace, out);
}

/** The general path of `readNumberFields`, for text with characters beyond ASCII (other whitespace). */
function readNumberFieldsText(text: string, splitAtWhitespace: boolean, out: Float64Array): number {
  const fields = splitAtWhitespace ? text.trim().split(/[\s,]+/) : text.split(',');
  for (let i = 0; i < 3; i++) {
    const field = fields[i];
    out[i] = field === undefined ? NaN : parseNumber(field);
  }
  return fields.length;
}

/** `readNumberFields` for ASCII text, in one pass; -1 when the text holds other characters. */
function readAsciiNumberFields(
  text: string,
  start: number,
  end: number,
  splitAtWhitespace: boolean,
  out: Float64Array,
): number {
  let i = start;
  let n = end;
  if (splitAtWhitespace) {
    while (i < n && isAsciiSpace(text.charCodeAt(i))) i++;
    while (n > i && isAsciiSpace(text.charCodeAt(n - 1))) n--;
  }
  out[0] = out[1] = out[2] = NaN;
  let count = 0;
  for (;;) {
    // One field, up to the next separator or the end: `[+-]digits[.digits]` is read here, as in
    // parseNumberIn; anything else in it (or too many digits) leaves the field to parseNumberIn.
    const fieldStart = i;
    let negative = false;
    let mantissa = 0;
    let code = i < n ? text.charCodeAt(i) : -1;
    if (code === CHAR_MINUS) {
      negative = true;
      code = ++i < n ? text.charCodeAt(i) : -1;
    } else if (code === CHAR_PLUS) {
      code = ++i < n ? text.charCodeAt(i) : -1;
    }
    const integerStart = i;
    while (code >= CHAR_0 && code <= CHAR_9) {
      mantissa = mantissa * 10 + (code - CHAR_0);
      code = ++i < n ? text.charCodeAt(i) : -1;
    }
    let digits = i - integerStart;
    let fractionDigits = 0;
    if (code === CHAR_DOT) {
      const fractionStart = ++i;
      code = i < n ? text.charCodeAt(i) : -1;
      while (code >= CHAR_0 && code <= CHAR_9) {
        mantissa = mantissa * 10 + (code - CHAR_0);
        code = ++i < n ? text.charCodeAt(i) : -1;
      }
      fractionDigits = i - fractionStart;
      digits += fractionDigits;
    }
    // The field must end here; else it is not plain: find its end.
    let plain = true;
    for (; i < n; i++) {
      code = text.charCodeAt(i);
      if (code === CHAR_COMMA || (splitAtWhitespace && isAsciiSpace(code))) break;
      if (code >= 0x80) return -1;
      plain = false;
    }
    if (count < 3) {
      if (plain && digits > 0 && mantissa <= Number.MAX_SAFE_INTEGER && fractionDigits <= 22) {
        const value = mantissa / EXACT_POWERS_OF_TEN[fractionDigits]!;
        out[count] = negative ? -value : value;
      } else {
        out[count] = parseNumberIn(text, fieldStart, i);
      }
    }
    count++;
    if (i >= n) return count;
    // The separator: one comma, or (splitting at whitespace) a whole run of whitespace and commas.
    i++;
    if (splitAtWhitespace) {
      while (i < n) {
        const code = text.charCodeAt(i);
        if (code !== CHAR_COMMA && !isAsciiSpace(code)) break;
        i++;
      }
    }
  }
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Unix seconds (fractional) of an ISO 8601 date-time, or NaN. A time without a zone is UTC, as GPX,
 * TCX and KML specify. Years outside 1970..2200 are treated as unreadable (they are never ride times).
 */
export function parseIsoSeconds(text: string): number {
  const seconds = parseIsoSecondsFast(text);
  return Number.isNaN(seconds) ? parseIsoSecondsText(text) : seconds;
}

/** The general path of `parseIsoSeconds`. */
function parseIsoSecondsText(text: string): number {
  const trimmed = text.trim();
  const match = ISO_DATE_TIME.exec(trimmed);
  if (match === null) return parseOtherDate(trimmed);
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const milliseconds = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    second === undefined ? 0 : Number(second),
  );
  let seconds = milliseconds / 1000 + (fraction === undefined ? 0 : Number(fraction));
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
    seconds -= sign * offsetMinutes * 60;
  }
  return plausible(seconds);
}

/** The value of the decimal digits text[at], text[at + 1], …, or -1 when one of them is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - CHAR_0;
    if (!(digit >= 0 && digit <= 9)) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH[:]MM|±HH]`, the form nearly every ride file writes, read in place with
 * the arithmetic of the general path (same doubles). NaN for any other form or value, which then goes to
 * the general path: years before 1000 (Date.UTC reads 0..99 as 19xx), months outside 1..12 (Date.UTC
 * rolls them over), whitespace before the zone, a missing seconds field, other date forms.
 */
function parseIsoSecondsFast(text: string): number {
  let i = 0;
  let n = text.length;
  while (i < n && isAsciiSpace(text.charCodeAt(i))) i++;
  while (n > i && isAsciiSpace(text.charCodeAt(n - 1))) n--;
  if (n - i < 19) return NaN;
  const separator = text.charCodeAt(i + 10);
  if (
    text.charCodeAt(i + 4) !== CHAR_MINUS ||
    text.charCodeAt(i + 7) !== CHAR_MINUS ||
    !(separator === 0x54 /* T */ || separator === 0x74 /* t */ || separator === CHAR_SPACE) ||
    text.charCodeAt(i + 13) !== CHAR_COLON ||
    text.charCodeAt(i + 16) !== CHAR_COLON
  ) {
    return NaN;
  }
  const year = digitsAt(text, i, 4);
  const month = digitsAt(text, i + 5, 2);
  const day = digitsAt(text, i + 8, 2);
  const hour = digitsAt(text, i + 11, 2);
  const minute = digitsAt(text, i + 14, 2);
  const second = digitsAt(text, i + 17, 2);
  if (year < 1000 || month < 1 || month > 12 || day < 0 || hour < 0 || minute < 0 || second < 0) {
    return NaN;
  }
  let p = i + 19;
  let fraction = 0;
  if (p < n && text.charCodeAt(p) === CHAR_DOT) {
    const fractionStart = p + 1;
    let q = fractionStart;
    while (q < n) {
      const code = text.charCodeAt(q);
      if (code < CHAR_0 || code > CHAR_9) break;
      q++;
    }
    if (q === fractionStart) return NaN;
    fraction = parseNumberIn(text, p, q);
    p = q;
  }
  let offsetSeconds = 0;
  if (p < n) {
    const zone = text.charCodeAt(p);
    if (zone === 0x5a /* Z */ || zone === 0x7a /* z */) {
      if (p + 1 !== n) return NaN;
    } else if (zone === CHAR_PLUS || zone === CHAR_MINUS) {
      const hours = digitsAt(text, p + 1, 2);
      if (hours < 0) return NaN;
      let minutes = 0;
      let q = p + 3;
      if (q < n && text.charCodeAt(q) === CHAR_COLON) q++;
      if (q < n) {
        minutes = digitsAt(text, q, 2);
        if (minutes < 0 || q + 2 !== n) return NaN;
      } else if (q !== p + 3) {
        return NaN; // "+05:" without minutes
      }
      const sign = zone === CHAR_MINUS ? -1 : 1;
      offsetSeconds = sign * (hours * 60 + minutes) * 60;
    } else {
      return NaN;
    }
  }
  // Date.UTC's day number for year-month-day (valid for month 1..12; the day adds linearly, as in Date.UTC).
  const shiftedYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(shiftedYear / 400);
  const yearOfEra = shiftedYear - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  const days = era * 146097 + dayOfEra - 719468;
  let seconds = days * 86400 + hour * 3600 + minute * 60 + second + fraction;
  seconds -= offsetSeconds;
  return plausible(seconds);
}

/** A date-only value (`2011-11-22`) or another form Date understands. */
function parseOtherDate(text: string): number {
  if (text === '') return NaN;
  const milliseconds = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  return plausible(milliseconds / 1000);
}

const EARLIEST = Date.UTC(1970, 0, 1) / 1000;
const LATEST = Date.UTC(2200, 0, 1) / 1000;

function plausible(seconds: number): number {
  return Number.isFinite(seconds) && seconds >= EARLIEST && seconds < LATEST ? seconds : NaN;
}

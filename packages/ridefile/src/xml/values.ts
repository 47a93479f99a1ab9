/** Text values of the XML formats: numbers and ISO 8601 times, NaN when absent or unreadable. */

export function parseNumber(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '') return NaN;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : NaN;
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Unix seconds (fractional) of an ISO 8601 date-time, or NaN. A time without a zone is UTC, as GPX,
 * TCX and KML specify. Years outside 1970..2200 are treated as unreadable (they are never ride times).
 */
export function parseIsoSeconds(text: string): number {
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

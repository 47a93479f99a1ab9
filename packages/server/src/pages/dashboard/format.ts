/**
 * How the dashboard writes numbers, durations and times (issue 7). Stored units are metres, seconds,
 * km/h (the record's speeds) and Unix milliseconds; a value the file does not give is "—".
 */

export const UNKNOWN = '—';

const KILOMETRES = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const WHOLE = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });
const ONE_DECIMAL = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 1 });

export function kilometres(meters: number | null): string {
  return meters === null ? UNKNOWN : `${KILOMETRES.format(meters / 1000)} km`;
}

export function metres(meters: number | null): string {
  return meters === null ? UNKNOWN : `${WHOLE.format(meters)} m`;
}

export function kmPerHour(speed: number | null): string {
  return speed === null ? UNKNOWN : `${ONE_DECIMAL.format(speed)} km/h`;
}

/** `value unit`, rounded to a whole number (heart rate, cadence, power). */
export function whole(value: number | null, unit: string): string {
  return value === null ? UNKNOWN : `${WHOLE.format(value)} ${unit}`;
}

/** h:mm:ss (or m:ss under an hour). */
export function duration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return UNKNOWN;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

/** Date-time formats by time zone: making one costs about a millisecond, using one microseconds. */
const FORMATS = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = FORMATS.get(timeZone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      });
    } catch {
      // A zone this runtime does not know (an old ICU): UTC, which the caller then names.
      return formatIn('UTC');
    }
    FORMATS.set(timeZone, format);
  }
  return format;
}

/** `YYYY-MM-DD HH:MM` (`…:SS` with `seconds`) in `timeZone` (UTC when unknown). */
export function localDateTime(
  milliseconds: number,
  timeZone: string | null,
  { seconds = false }: { seconds?: boolean } = {},
): string {
  const parts = formatIn(timeZone ?? 'UTC').formatToParts(new Date(milliseconds));
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((found) => found.type === type)?.value ?? '';
  const time = `${part('hour')}:${part('minute')}${seconds ? `:${part('second')}` : ''}`;
  return `${part('year')}-${part('month')}-${part('day')} ${time}`;
}

/** An ISO 8601 UTC time for `<time datetime>`. */
export function isoUtc(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}

/**
 * A file name for a download: the asset's name with anything but letters, digits, dashes and
 * underscores made a dash, at most 80 characters, "ride-<id>" when nothing is left.
 */
export function downloadBaseName(name: string, fallback: string): string {
  const cleaned = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return cleaned === '' ? fallback : cleaned;
}

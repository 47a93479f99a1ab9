/**
 * How the dashboard writes numbers, durations and times (issue 7), in the rider's units (issue 19).
 * Stored units are metres, seconds, km/h (the record's speeds), °C and Unix milliseconds; a value the
 * file does not give is "—".
 */

import { html, type SafeHtml, type Units } from '@rideport/server/web';

export const UNKNOWN = '—';

const KILOMETRES = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const WHOLE = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });
const ONE_DECIMAL = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 1 });

/**
 * The units a rider chose (issue 19, store/preferences.ts) and how a stored value becomes one of them:
 * every page, chart axis and label converts through this table, so none says km where another says mi.
 */
export const UNIT_SYSTEMS: Readonly<
  Record<
    Units,
    Readonly<{
      distance: { unit: string; perMetre: number };
      elevation: { unit: string; perMetre: number };
      speed: { unit: string; perKmh: number };
      temperature: { unit: string; fromCelsius: (celsius: number) => number };
    }>
  >
> = {
  metric: {
    distance: { unit: 'km', perMetre: 1 / 1000 },
    elevation: { unit: 'm', perMetre: 1 },
    speed: { unit: 'km/h', perKmh: 1 },
    temperature: { unit: '°C', fromCelsius: (celsius) => celsius },
  },
  imperial: {
    // The international mile and foot (1959): 1,609.344 m and 0.3048 m.
    distance: { unit: 'mi', perMetre: 1 / 1609.344 },
    elevation: { unit: 'ft', perMetre: 1 / 0.3048 },
    speed: { unit: 'mph', perKmh: 1 / 1.609344 },
    temperature: { unit: '°F', fromCelsius: (celsius) => (celsius * 9) / 5 + 32 },
  },
};

/** A distance in km or mi, one decimal. */
export function distance(meters: number | null, units: Units): string {
  const { unit, perMetre } = UNIT_SYSTEMS[units].distance;
  return meters === null ? UNKNOWN : `${KILOMETRES.format(meters * perMetre)} ${unit}`;
}

/** A height or climb in m or ft, whole. */
export function elevation(meters: number | null, units: Units): string {
  const { unit, perMetre } = UNIT_SYSTEMS[units].elevation;
  return meters === null ? UNKNOWN : `${WHOLE.format(meters * perMetre)} ${unit}`;
}

/** A speed stored in km/h, in km/h or mph, one decimal. */
export function speed(kmh: number | null, units: Units): string {
  const { unit, perKmh } = UNIT_SYSTEMS[units].speed;
  return kmh === null ? UNKNOWN : `${ONE_DECIMAL.format(kmh * perKmh)} ${unit}`;
}

/** A temperature stored in °C, in °C or °F, whole. */
export function temperature(celsius: number | null, units: Units): string {
  const { unit, fromCelsius } = UNIT_SYSTEMS[units].temperature;
  return celsius === null ? UNKNOWN : `${WHOLE.format(fromCelsius(celsius))} ${unit}`;
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

/**
 * The locales whose short zone names are the ones people write there, in the order asked (issue 40):
 * Intl names a zone by its abbreviation only in the locale of the country that uses it, and as
 * "GMT-6" elsewhere. British English names Europe's (CET, CEST, BST, GMT), American English North
 * America's (EST, CDT, MST, AKDT, HST), Australian English AEST, Indian English IST, New Zealand's
 * NZST. Zones none of them names (Tokyo, São Paulo) stay "GMT+9", "GMT-3".
 */
const ZONE_NAME_LOCALES = ['en-GB', 'en-US', 'en-AU', 'en-IN', 'en-NZ'] as const;

/** Zone-name formats by time zone, one per ZONE_NAME_LOCALES. */
const ZONE_NAMES = new Map<string, readonly Intl.DateTimeFormat[]>();

/** The zone's short name at that instant ("CEST", "EST", "GMT+9", "UTC"); the IANA name when Intl has none. */
export function zoneAbbreviation(milliseconds: number, timeZone: string): string {
  let formats = ZONE_NAMES.get(timeZone);
  if (formats === undefined) {
    try {
      formats = ZONE_NAME_LOCALES.map(
        (locale) => new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' }),
      );
    } catch {
      return 'UTC';
    }
    ZONE_NAMES.set(timeZone, formats);
  }
  const date = new Date(milliseconds);
  let offsetName: string | undefined;
  for (const format of formats) {
    const name = format.formatToParts(date).find((part) => part.type === 'timeZoneName')?.value;
    if (name === undefined) continue;
    if (!/^(?:GMT|UTC)[+-−]/.test(name)) return name;
    offsetName ??= name;
  }
  return offsetName ?? timeZone;
}

/**
 * A time as the dashboard shows every time (issue 19: "every time shown says its zone"):
 * `YYYY-MM-DD HH:MM CEST` in a `<time>` whose title is the IANA zone and whose datetime is UTC.
 */
export function zonedTime(
  milliseconds: number,
  timeZone: string,
  { seconds = false }: { seconds?: boolean } = {},
): SafeHtml {
  return html`<time datetime="${isoUtc(milliseconds)}" title="${timeZone}"
    >${localDateTime(milliseconds, timeZone, { seconds })} ${zoneAbbreviation(milliseconds, timeZone)}</time
  >`;
}

/** An ISO 8601 UTC time for `<time datetime>`. */
export function isoUtc(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}

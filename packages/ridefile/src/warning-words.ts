/**
 * What was wrong with a ride file, in plain words for people (issue 16, "Damaged and partial files,
 * said out loud"): @rideport/ridefile's warnings carry a stable code for programs and a message for
 * developers ("the FIT file at byte 0 declares 1930 bytes of data but the input ends after 849"); a
 * rider reads "This file ends early: the ride was read up to 14:32." The one table of those words,
 * used by the API records (their `warnings[].message`), the ride and route pages, the upload task's
 * message and `rideport inspect`. It lives with the warnings it words (issue 35), so a tool that reads
 * files needs no server to say what was wrong with one.
 *
 * Times are the local time of the ride (its `time_zone`); a ride without one is told in UTC, and the
 * words say so. The date is added when the ride ended on another day than it began.
 */
import { RideFileWarningCode } from './errors.js';
import type { TrackPoint, Warning } from './model.js';

/** What the words need to know of the ride or route the warning is about. */
export interface WarnedTrack {
  kind: 'ride' | 'route';
  /** Unix milliseconds of the first point (the trip's departure); null when unknown */
  departedAtMs: number | null;
  /** Unix milliseconds of the last point that has a time; null when none has */
  lastPointAtMs: number | null;
  /** the IANA time zone where it was recorded; null: times are said in UTC, and named so */
  timeZone: string | null;
  /** the zone's name at an instant ("CEST"), to say it after each time; without it only UTC is named */
  zoneName?: (milliseconds: number) => string;
}

/** A warning in plain words, whole and in the two parts a longer sentence is made of. */
export interface WarningWords {
  /** the whole sentence: "This file ends early: the ride was read up to 14:32." */
  sentence: string;
  /** the file in a few words, after "Created 1 ride from": "a file that ends early" */
  file: string;
  /** what it means for the ride, after the file: "the ride was read up to 14:32" */
  consequence: string;
}

interface Entry {
  /** what was wrong, as the start of a sentence */
  what: string;
  file: string;
  consequence: (track: WarnedTrack, warning: Warning) => string;
}

const shows = (what: string) => (track: WarnedTrack) => `the ${track.kind} shows ${what}`;

const WORDS: Readonly<Record<string, Entry>> = {
  [RideFileWarningCode.TRUNCATED]: {
    what: 'This file ends early',
    file: 'a file that ends early',
    consequence: (track) =>
      track.lastPointAtMs === null
        ? `the ${track.kind} shows what was read before the cut`
        : `the ${track.kind} was read up to ${readUpTo(track, track.lastPointAtMs)}`,
  },
  [RideFileWarningCode.BAD_CRC]: {
    what: 'This file is damaged (its checksum does not match its content)',
    file: 'a damaged file',
    consequence: shows('what could be read'),
  },
  [RideFileWarningCode.BAD_HEADER_CRC]: {
    what: 'The header of this file is damaged (its checksum does not match)',
    file: 'a file with a damaged header',
    consequence: shows('what could be read'),
  },
  [RideFileWarningCode.MALFORMED_XML]: {
    what: 'This file has broken XML',
    file: 'a file with broken XML',
    consequence: shows('what could be read'),
  },
  [RideFileWarningCode.SKIPPED_DATA]: {
    what: 'Parts of this file could not be read and were skipped',
    file: 'a file with unreadable parts',
    consequence: shows('the rest'),
  },
  [RideFileWarningCode.RELATIVE_TIME]: {
    what: 'Some points of this file have no time',
    file: 'a file where some points have no time',
    consequence: () =>
      'the device recorded its own running time instead of the time of day, and the file gives no way to convert it',
  },
  [RideFileWarningCode.TRAILING_DATA]: {
    what: 'This file has extra bytes after its data',
    file: 'a file with extra bytes at its end',
    consequence: () => 'they were left out',
  },
  [RideFileWarningCode.CLOCK_JUMP]: {
    what: "The device's clock jumped while it recorded",
    file: 'a file whose clock jumped',
    consequence: () => 'the jump is left out of the elapsed, timer and moving times',
  },
  // The library's message says which text and how long it was (issue 17): "the track name had
  // 209,715,200 characters; only its first 255 were kept".
  [RideFileWarningCode.TEXT_SHORTENED]: {
    what: 'A text in this file is too long',
    file: 'a file with a text too long',
    consequence: (_track, warning) => libraryWords(warning.message, 'only its start was kept'),
  },
};

/** Text that begins like a code (`RIDEFILE_X`, `A_`): never shown to people as if it were words. */
const CODE_LIKE = /^\W*[A-Z][A-Z0-9]*_[A-Z0-9_]*/;

/**
 * The library's own message as words in a sentence, without its final stop; `fallback` when it is
 * empty or reads like a code (the library writes sentences, but a newer or a foreign one may not).
 */
function libraryWords(message: string, fallback: string): string {
  const said = message.trim().replace(/[.;:,\s]+$/, '');
  return said === '' || CODE_LIKE.test(said) ? fallback : said;
}

/**
 * The words for one warning about `track`. A code this table does not know (a newer library's) is
 * said with the library's own message, which is plain text too, only more technical.
 */
export function warningWords(warning: Warning, track: WarnedTrack): WarningWords {
  // Own keys only: a code such as `__proto__` must not find Object.prototype.
  const entry = Object.hasOwn(WORDS, warning.code) ? WORDS[warning.code] : undefined;
  if (entry === undefined) {
    const said = libraryWords(warning.message, 'something in this file could not be read as expected');
    return {
      sentence: `${said.charAt(0).toUpperCase()}${said.slice(1)}.`,
      file: 'a file with a problem',
      consequence: said,
    };
  }
  const consequence = entry.consequence(track, warning);
  return { sentence: `${entry.what}: ${consequence}.`, file: entry.file, consequence };
}

/** The warnings as the API records carry them (issue 16): the library's code, and the words. */
export function saidWarnings(
  warnings: readonly Warning[],
  track: WarnedTrack,
): { code: string; message: string }[] {
  return warnings.map((warning) => ({ code: warning.code, message: warningWords(warning, track).sentence }));
}

/** Formats by time zone; `Intl.DateTimeFormat` is costly to make and the same zones recur. */
const FORMATS = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DD HH:MM` in `timeZone`, or in UTC when it is null or this runtime does not know it. */
function dateAndMinute(milliseconds: number, timeZone: string | null): string {
  const zone = timeZone ?? 'UTC';
  let format = FORMATS.get(zone);
  if (format === undefined) {
    const options: Intl.DateTimeFormatOptions = {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    };
    try {
      format = new Intl.DateTimeFormat('en-CA', { ...options, timeZone: zone });
    } catch {
      format = new Intl.DateTimeFormat('en-CA', { ...options, timeZone: 'UTC' });
    }
    FORMATS.set(zone, format);
  }
  const parts = format.formatToParts(new Date(milliseconds));
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((found) => found.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

/**
 * "14:32" in the ride's zone ("14:32 CEST" when the caller names zones), "14:32 UTC" without one; with
 * the date when the ride ended on another day.
 */
function readUpTo(track: WarnedTrack, atMs: number): string {
  const [date, time] = dateAndMinute(atMs, track.timeZone).split(' ');
  const sameDay =
    track.departedAtMs !== null && dateAndMinute(track.departedAtMs, track.timeZone).startsWith(`${date} `);
  const when = sameDay ? time! : `${date!} ${time!}`;
  if (track.timeZone === null) return `${when} UTC`;
  return track.zoneName === undefined ? when : `${when} ${track.zoneName(atMs)}`;
}

/**
 * Unix seconds of the last point that has a time, null when none has: where reading stopped in a
 * cut-off file ("the ride was read up to 14:32", issue 16). The last in the file, not the latest: the
 * rider recognises where the recording ends.
 */
export function lastPointTime(points: readonly TrackPoint[]): number | null {
  for (let i = points.length - 1; i >= 0; i--) {
    const t = points[i]!.t;
    if (t !== undefined) return t;
  }
  return null;
}

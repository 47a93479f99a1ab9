/**
 * The most characters each text the server stores may hold (issue 17: a 200 MB trip name from a file
 * made that rider's lists answer 500 for good). One table, enforced where a value enters the store: a
 * write with a longer text throws TextTooLongError, whatever called it (an API handler, a page, the
 * upload queue, `rideport admin`). The handlers check the same maxima first, so a client learns every
 * problem at once, in words: 422 on v1, 400 on the legacy interface and the pages. Text from a file
 * never gets that far: @rideport/ridefile keeps its start and says it shortened it.
 *
 * Characters are Unicode code points, as SQLite's `length()` and JSON Schema's `maxLength` count
 * them. docs/operators/limits.md "Text from files and from the API" lists the maxima; where the specification is silent
 * (it gives none), they are our decision, and the ones clients already met are kept (trip[name] 255,
 * trip[description] and event texts 10,000, API client names 100, 20 redirect URIs).
 */
import {
  codePointCount,
  FILE_TEXT_MAX_CHARS,
  MAX_WARNINGS_PER_CODE,
  MESSAGE_MAX_CHARS,
} from '@rideport/ridefile';
import { TextTooLongError } from '../errors.js';

export const TEXT_MAX_CHARS = {
  /** route and trip `name`: `trip[name]`, or the file's (the parser keeps this many) */
  assetName: FILE_TEXT_MAX_CHARS.name,
  /** route and trip `description`: `trip[description]` */
  assetDescription: 10_000,
  /** trip `device`: from the file */
  device: FILE_TEXT_MAX_CHARS.device,
  /** the recording device's serial number, from the file */
  recordingSerial: FILE_TEXT_MAX_CHARS.serialNumber,
  /** each stored warning's message, from the parser */
  warningMessage: MESSAGE_MAX_CHARS,
  /** event `name` */
  eventName: 255,
  /** event `description` and `location` */
  eventText: 10_000,
  /** every URL: event `url`, redirect URIs, webhook URLs */
  url: 2048,
  /** a person's or an organization's (club's) name, first and last name */
  userName: 255,
  /** an organization's (club's) description */
  userDescription: 10_000,
  /** RFC 5321's 64 + 1 + 255 */
  email: 320,
  /** an API client's name */
  clientName: 100,
  /** an upload's `external_id` (issue 20; Strava's field): refused, not cut, since a cut id names another */
  externalId: 255,
  /** the file name an upload came with (longer names are cut, not refused: a name is only a hint) */
  filename: 255,
  /** an upload task's message: our own sentences, which name rides (cut with "…", never refused) */
  taskMessage: 4000,
  /**
   * a folder the local sync engine watches (`POST /api/v1/local/sync/folders.json`, the sync page):
   * kept in the engine's settings, not in the database; Linux's PATH_MAX
   */
  folderPath: 4096,
} as const;

/** Redirect URIs one API client may register (the settings form's limit since issue 3). */
export const MAX_REDIRECT_URIS = 20;

/**
 * Warnings stored with one route or trip: the parser keeps at most MAX_WARNINGS_PER_CODE of each of
 * its codes; this leaves room for codes a newer parser adds.
 */
export const MAX_STORED_WARNINGS = 16 * MAX_WARNINGS_PER_CODE;

// The error and its words are the server's error catalogue's (errors.ts, issue 35).
export { TextTooLongError, tooLongWords } from '../errors.js';

/** Whether `text` has more than `maxChars` characters; counts only when the length leaves a doubt. */
export function isTooLong(text: string, maxChars: number): boolean {
  if (text.length <= maxChars) return false;
  // Every character is one or two UTF-16 units.
  if (text.length > 2 * maxChars) return true;
  return codePointCount(text) > maxChars;
}

/** Throws TextTooLongError when `text` is longer than `maxChars` characters. */
export function assertFits(field: string, text: string | null | undefined, maxChars: number): void {
  if (text !== null && text !== undefined && isTooLong(text, maxChars)) {
    throw new TextTooLongError(field, maxChars);
  }
}

/** The start of `text`, at most `maxChars` characters, ending in "…" when cut (our own sentences). */
export function cutWithEllipsis(text: string, maxChars: number): string {
  return isTooLong(text, maxChars) ? `${firstChars(text, maxChars - 1).trimEnd()}…` : text;
}

/** The start of `text`, at most `maxChars` whole characters (a file name: a hint, never refused). */
export function cutToWholeChars(text: string, maxChars: number): string {
  return isTooLong(text, maxChars) ? firstChars(text, maxChars) : text;
}

/** The first `count` characters of `text`, never half a surrogate pair. */
function firstChars(text: string, count: number): string {
  let end = 0;
  for (let chars = 0; chars < count && end < text.length; chars++) {
    const code = text.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
  }
  return text.slice(0, end);
}

/**
 * Text a ride file gives, bounded and cleaned where it enters the library's output (issue 17, "Text
 * from files is unbounded"): a 200 MB GPX `<name>` or a 1 MB TCX `Creator/Name` was returned whole, and
 * the server stored it and sent it in every list. Every string a `RideFile` carries goes through here:
 * the file's creator, each track's name, sport, sub-sport and device, the recording's serial number,
 * the connected sensors' names, and our own sentences that quote the file (warnings, the wheel-sensor
 * reason). docs/operators/limits.md "Text from files and from the API" documents the rules.
 *
 * - **Maxima** (`FILE_TEXT_MAX_CHARS`), in characters (Unicode code points, as SQLite's `length()`
 *   and JSON Schema's `maxLength` count them). A longer value keeps its start, cut between whole
 *   characters (never half a surrogate pair) and, where the runtime can tell, between grapheme clusters
 *   (never an accent without its letter, or half an emoji family); a `RIDEFILE_TEXT_SHORTENED` warning
 *   names the field and its length in the file.
 * - **Cleaning**: a name is one line of plain text. Line breaks, tabs and the other line-like controls
 *   (with the spaces around them) become one space; other control characters (C0, DEL, C1) go; a lone
 *   surrogate (half a pair, which no encoding can carry) becomes U+FFFD; leading and trailing space
 *   goes. Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) go too: they reorder
 *   the text around them wherever the name is shown ("Trojan Source", CVE-2021-42574), and right-to-left
 *   names need none of them (the bidi algorithm orders Arabic or Hebrew letters by itself). The
 *   invisible marks LRM, RLM and ALM stay: they only act as one strong letter where they stand. Markup
 *   stays text: escaping it is the job of whatever shows it.
 * - Only the first `FILE_TEXT_WINDOW` UTF-16 units of a value are ever looked at, the most the XML
 *   reader keeps of an element's text (xml/sax.ts), so cleaning costs the same whatever the length.
 */
import { RideFileWarningCode } from './errors.js';
import type { Warning } from './model.js';

/** The most characters each text field of the output keeps (docs/operators/limits.md, "Text from files and from the API"). */
export const FILE_TEXT_MAX_CHARS = {
  /** `Track.name`: the same 255 as the API's `trip[name]` */
  name: 255,
  /** `RideFile.creator` */
  creator: 255,
  /** `Summary.device` */
  device: 255,
  /** `Track.sport` (normalised names: never near it) */
  sport: 64,
  /** `Track.subSport` */
  subSport: 64,
  /** `RecordingIdentity.serialNumber` (FIT and TCX serial numbers have at most 10 digits) */
  serialNumber: 32,
  /** each text of a `SensorDevice` (FIT strings are at most 255 bytes) */
  sensor: 255,
} as const;

/** The kinds of text a file gives, each with its maximum length in `FILE_TEXT_MAX_CHARS`. */
export type FileTextField = keyof typeof FILE_TEXT_MAX_CHARS;

/** Our own sentences that may quote the file: warning messages, `TrackSensors.wheelSensorReason`. */
export const MESSAGE_MAX_CHARS = 1000;

/**
 * Warnings of one code a track (or the file) keeps: a KML of 50,000 mismatched tracks said the same
 * thing 50,000 times, in every record of the ride. The last one kept says how many more there were.
 */
export const MAX_WARNINGS_PER_CODE = 3;

/** How much of a value is looked at, in UTF-16 units (also what xml/sax.ts keeps of an element's text). */
export const FILE_TEXT_WINDOW = 16_384;

/** Each field in words, for the warning. */
const FIELD_WORDS: Readonly<Record<FileTextField, string>> = {
  name: 'the track name',
  creator: "the file's creator",
  device: 'the device name',
  sport: 'the sport name',
  subSport: 'the sub-sport name',
  serialNumber: "the device's serial number",
  sensor: 'a sensor name',
};

/**
 * `raw` cleaned and cut to the field's maximum; null when nothing is left. `droppedChars`: characters
 * of the value the reader already left out after `raw` (xml/sax.ts keeps only the start of a long
 * text). When the value is shortened, a `RIDEFILE_TEXT_SHORTENED` warning goes into `warnings` (once:
 * the same sentence is not added twice). Applying it to its own result changes nothing.
 */
export function boundedFileText(
  field: FileTextField,
  raw: string | null | undefined,
  warnings: Warning[],
  droppedChars = 0,
): string | null {
  if (raw === null || raw === undefined) return null;
  const max = FILE_TEXT_MAX_CHARS[field];
  const window = raw.length > FILE_TEXT_WINDOW ? raw.slice(0, wholeCharsEnd(raw, FILE_TEXT_WINDOW)) : raw;
  const cleaned = cleanText(window);
  const kept = startOf(cleaned, max);
  if (kept.length === cleaned.length && window.length === raw.length && droppedChars === 0) {
    return kept === '' ? null : detached(kept);
  }
  const message = shortenedMessage(field, codePointCount(raw) + droppedChars, codePointCount(kept));
  if (!warnings.some((warning) => warning.message === message)) {
    warnings.push({ code: RideFileWarningCode.TEXT_SHORTENED, message });
  }
  return kept === '' ? null : detached(kept);
}

/**
 * The same text in a string of its own. A text read from a file may be a slice of the whole chunk of
 * the file the XML parser was given (engines keep substrings that way), and the result would keep that
 * chunk alive as long as it lives (issue 21: what a columnar result retains beside its columns).
 */
function detached(text: string): string {
  return text.split('').join('');
}

/** "the track name had 209,715,200 characters; only its first 255 were kept" */
function shortenedMessage(field: FileTextField, length: number, kept: number): string {
  const what = FIELD_WORDS[field];
  if (kept === 0) return `${what} had ${thousands(length)} characters and nothing to keep at its start`;
  return `${what} had ${thousands(length)} characters; only its first ${thousands(kept)} were kept`;
}

/**
 * One of our sentences that may quote the file (a warning, the wheel-sensor reason), cleaned and at
 * most `max` (MESSAGE_MAX_CHARS) characters long, ending in "…" when cut. No warning: the sentence is ours.
 */
export function boundedMessage(message: string, max: number = MESSAGE_MAX_CHARS): string {
  const window =
    message.length > FILE_TEXT_WINDOW ? message.slice(0, wholeCharsEnd(message, FILE_TEXT_WINDOW)) : message;
  const cleaned = cleanText(window);
  const kept = startOf(cleaned, max - 1);
  return kept.length === cleaned.length && window.length === message.length ? cleaned : `${kept}…`;
}

/**
 * The warnings with bounded messages, at most MAX_WARNINGS_PER_CODE of each code, in their order; the
 * last one kept of a code says how many more of it were left out.
 */
export function boundedWarnings(warnings: readonly Warning[]): Warning[] {
  const totals = new Map<string, number>();
  for (const { code } of warnings) totals.set(code, (totals.get(code) ?? 0) + 1);
  const seen = new Map<string, number>();
  const kept: Warning[] = [];
  for (const { code, message } of warnings) {
    const count = (seen.get(code) ?? 0) + 1;
    seen.set(code, count);
    if (count > MAX_WARNINGS_PER_CODE) continue;
    const more = count === MAX_WARNINGS_PER_CODE ? totals.get(code)! - count : 0;
    const suffix = more === 0 ? '' : ` (and ${thousands(more)} more like it)`;
    kept.push({ code, message: boundedMessage(message, MESSAGE_MAX_CHARS - suffix.length) + suffix });
  }
  return kept;
}

/** Characters (code points) in `text` from `from` on: a surrogate pair counts once. */
export function codePointCount(text: string, from = 0): number {
  let count = text.length - from;
  for (let i = from; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
}

/** `end`, or `end - 1` when `end` would split a surrogate pair: a place to cut between whole characters. */
export function wholeCharsEnd(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return Math.max(0, Math.min(end, text.length));
  const before = text.charCodeAt(end - 1);
  const after = text.charCodeAt(end);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff ? end - 1 : end;
}

/** The start of `text` of at most `max` characters, cut between grapheme clusters where the runtime can tell. */
function startOf(text: string, max: number): string {
  if (text.length <= max) return text;
  // The UTF-16 index after `max` code points.
  let end = 0;
  for (let chars = 0; chars < max && end < text.length; chars++) {
    const code = text.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff && end + 1 < text.length ? 2 : 1;
  }
  if (end >= text.length) return text;
  return text.slice(0, graphemeEnd(text, end)).trimEnd();
}

/** A grapheme segmenter, where the runtime has one (every current browser and Node); made when first needed. */
let graphemes: Intl.Segmenter | null | undefined;

function graphemeSegmenter(): Intl.Segmenter | null {
  graphemes ??=
    typeof Intl === 'object' && typeof Intl.Segmenter === 'function'
      ? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
      : null;
  return graphemes;
}

/** Clusters longer than this (stacked combining marks) are cut inside, between whole characters. */
const LONGEST_CLUSTER = 32;

/** The last grapheme boundary at or before `end` (a code point boundary); `end` itself without a segmenter. */
function graphemeEnd(text: string, end: number): number {
  const segmenter = graphemeSegmenter();
  if (segmenter === null) return end;
  let boundary = 0;
  for (const { index, segment } of segmenter.segment(text.slice(0, end + LONGEST_CLUSTER))) {
    const segmentEnd = index + segment.length;
    if (segmentEnd > end) break;
    boundary = segmentEnd;
  }
  // One cluster longer than everything kept: cut it between characters rather than keep nothing.
  return boundary === 0 || end - boundary > LONGEST_CLUSTER ? end : boundary;
}

/** Printable ASCII only: nothing to clean but the ends. */
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * `text` as one line of plain text (see the rules at the top): line-like controls and the spaces
 * around them → one space; other controls and bidi embeddings, overrides and isolates removed; lone
 * surrogates → U+FFFD; trimmed. Linear in the length, whatever the input.
 */
export function cleanText(text: string): string {
  if (PLAIN.test(text)) return text.trim();
  let out = '';
  /** spaces read since the last character kept, written only when another character follows */
  let spaces = 0;
  /** a line-like control since the last character kept: it and the spaces around it become one space */
  let lineBreak = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isLineLike(code)) {
      lineBreak = true;
      spaces = 0;
      continue;
    }
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || isBidiControl(code)) continue;
    if (code === 0x20) {
      if (!lineBreak) spaces += 1;
      continue;
    }
    if (out !== '') out += lineBreak ? ' ' : ' '.repeat(spaces);
    lineBreak = false;
    spaces = 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += text.slice(i, i + 2);
        i += 1;
      } else {
        out += '\uFFFD';
      }
    } else {
      out += text[i]!;
    }
  }
  return out.trim();
}

/** Tab, LF, VT, FF, CR, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. */
function isLineLike(code: number): boolean {
  return (code >= 0x09 && code <= 0x0d) || code === 0x85 || code === 0x2028 || code === 0x2029;
}

/** LRE, RLE, PDF, LRO, RLO and LRI, RLI, FSI, PDI. */
function isBidiControl(code: number): boolean {
  return (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/** 209715200 → "209,715,200", the same in every locale. */
function thousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

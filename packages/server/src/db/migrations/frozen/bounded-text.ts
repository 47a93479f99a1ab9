/**
 * Frozen with migration 009 (issue 35): how a text over its maximum was shortened when 009 shipped, as
 * @rideport/ridefile (file-text.ts) cleaned and cut a file's text and said so in a warning, and as the
 * store cut its own texts and read stored warnings (store/text-limits.ts, store/asset-records.ts). It
 * belongs to the migrations and never changes: the parser and the store may go their ways, and an
 * upgrade from a version before 009 still shortens what it stored as 009 always did.
 */

/** A warning as routes and trips store them (`[{"code","message"}]`). */
export interface Warning {
  code: string;
  message: string;
}

/** The maxima, in characters (Unicode code points), of the texts 009 shortens. */
export const MAX_CHARS = {
  assetName: 255,
  assetDescription: 10_000,
  device: 255,
  taskMessage: 4000,
  filename: 255,
  userName: 255,
  userDescription: 10_000,
  clientName: 100,
} as const;

/** Warnings of one code a route or trip keeps; the last one kept says how many more there were. */
const MAX_WARNINGS_PER_CODE = 3;
/** Warnings stored with one route or trip. */
export const MAX_STORED_WARNINGS = 16 * MAX_WARNINGS_PER_CODE;
/** The longest warning message. */
const MESSAGE_MAX_CHARS = 1000;
/** How much of a file's text is looked at, in UTF-16 units. */
const FILE_TEXT_WINDOW = 16_384;
/** Grapheme clusters longer than this (stacked combining marks) are cut inside, between whole characters. */
const LONGEST_CLUSTER = 32;

/** A file's texts 009 shortens, and their words in the warning. */
const FILE_FIELDS = { name: 'the track name', device: 'the device name' } as const;

/**
 * A file's text `raw` cleaned and cut to its maximum; null when nothing is left. `droppedChars`:
 * characters of the value after `raw` that were not read. When it is shortened, a
 * RIDEFILE_TEXT_SHORTENED warning goes into `warnings` (once).
 */
export function boundedFileText(
  field: keyof typeof FILE_FIELDS,
  raw: string,
  warnings: Warning[],
  droppedChars: number,
): string | null {
  const max = field === 'name' ? MAX_CHARS.assetName : MAX_CHARS.device;
  const window = raw.length > FILE_TEXT_WINDOW ? raw.slice(0, wholeCharsEnd(raw, FILE_TEXT_WINDOW)) : raw;
  const cleaned = cleanText(window);
  const kept = startOf(cleaned, max);
  if (kept.length === cleaned.length && window.length === raw.length && droppedChars === 0) {
    return kept === '' ? null : kept;
  }
  const length = thousands(codePointCount(raw) + droppedChars);
  const what = FILE_FIELDS[field];
  const message =
    codePointCount(kept) === 0
      ? `${what} had ${length} characters and nothing to keep at its start`
      : `${what} had ${length} characters; only its first ${thousands(codePointCount(kept))} were kept`;
  if (!warnings.some((warning) => warning.message === message)) {
    warnings.push({ code: 'RIDEFILE_TEXT_SHORTENED', message });
  }
  return kept === '' ? null : kept;
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

/** One of our sentences cleaned and at most `max` characters long, ending in "…" when cut. */
function boundedMessage(message: string, max: number): string {
  const window =
    message.length > FILE_TEXT_WINDOW ? message.slice(0, wholeCharsEnd(message, FILE_TEXT_WINDOW)) : message;
  const cleaned = cleanText(window);
  const kept = startOf(cleaned, max - 1);
  return kept.length === cleaned.length && window.length === message.length ? cleaned : `${kept}…`;
}

/** A warnings column's warnings: none for null, for text that is not JSON, or for anything but an array. */
export function storedWarnings(json: string | null): Warning[] {
  if (json === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return (parsed as unknown[]).filter(
    (item): item is Warning =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as Partial<Warning>).code === 'string' &&
      typeof (item as Partial<Warning>).message === 'string',
  );
}

/** The start of `text`, at most `maxChars` characters, ending in "…" when cut (our own sentences). */
export function cutWithEllipsis(text: string, maxChars: number): string {
  return isTooLong(text, maxChars) ? `${firstChars(text, maxChars - 1).trimEnd()}…` : text;
}

/** The start of `text`, at most `maxChars` whole characters. */
export function cutToWholeChars(text: string, maxChars: number): string {
  return isTooLong(text, maxChars) ? firstChars(text, maxChars) : text;
}

function isTooLong(text: string, maxChars: number): boolean {
  if (text.length <= maxChars) return false;
  // Every character is one or two UTF-16 units.
  if (text.length > 2 * maxChars) return true;
  return codePointCount(text) > maxChars;
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

/** Characters (code points) in `text`: a surrogate pair counts once. */
export function codePointCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
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

/** `end`, or `end - 1` when `end` would split a surrogate pair. */
function wholeCharsEnd(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return Math.max(0, Math.min(end, text.length));
  const before = text.charCodeAt(end - 1);
  const after = text.charCodeAt(end);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff ? end - 1 : end;
}

/** The start of `text` of at most `max` characters, cut between grapheme clusters where the runtime can tell. */
function startOf(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (let chars = 0; chars < max && end < text.length; chars++) {
    const code = text.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff && end + 1 < text.length ? 2 : 1;
  }
  if (end >= text.length) return text;
  return text.slice(0, graphemeEnd(text, end)).trimEnd();
}

let graphemes: Intl.Segmenter | null | undefined;

/** The last grapheme boundary at or before `end`; `end` itself where the runtime has no segmenter. */
function graphemeEnd(text: string, end: number): number {
  graphemes ??=
    typeof Intl === 'object' && typeof Intl.Segmenter === 'function'
      ? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
      : null;
  if (graphemes === null) return end;
  let boundary = 0;
  for (const { index, segment } of graphemes.segment(text.slice(0, end + LONGEST_CLUSTER))) {
    const segmentEnd = index + segment.length;
    if (segmentEnd > end) break;
    boundary = segmentEnd;
  }
  // One cluster longer than everything kept: cut it between characters rather than keep nothing.
  return boundary === 0 || end - boundary > LONGEST_CLUSTER ? end : boundary;
}

/**
 * `text` as one line of plain text: line-like controls (tab, LF, VT, FF, CR, NEL, U+2028, U+2029) and
 * the spaces around them become one space; other controls (C0, DEL, C1) and bidi embeddings, overrides
 * and isolates go; a lone surrogate becomes U+FFFD; trimmed.
 */
function cleanText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text.trim();
  let out = '';
  let spaces = 0;
  let lineBreak = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 0x09 && code <= 0x0d) || code === 0x85 || code === 0x2028 || code === 0x2029) {
      lineBreak = true;
      spaces = 0;
      continue;
    }
    const bidi = (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || bidi) continue;
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

/** 209715200 → "209,715,200", the same in every locale. */
function thousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

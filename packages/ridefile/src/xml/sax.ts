import { SaxesParser } from 'saxes';
import { RideFileWarningCode } from '../errors.js';
import type { Warning } from '../model.js';
import { codePointCount, wholeCharsEnd } from '../file-text.js';
import { boundHeldText, MAX_HELD_TEXT, MAX_XML_NAME_CHARS, XmlNameTooLong } from './held-text.js';
import { localName } from './names.js';
import { installSaxesFastPaths } from './saxes-fast.js';
import { decodeXmlChunks } from './text.js';
import type { FileBytes } from '../streamed-bytes.js';
import type { ReadProgress } from '../columns.js';

/**
 * The streaming XML layer under the GPX, TCX and KML readers (issue 2: saxes, never a DOM).
 *
 * - Elements are reported by local name: readers match by local name (or namespace), never by prefix,
 *   because real files use any prefix (`gpxtpx:`, `ns3:`, none) for the same extension.
 * - DOCTYPE internal subsets are never processed, so entity declarations are never expanded
 *   (billion-laughs files cost nothing); an undefined entity is kept as its literal text.
 * - Errors do not stop the reader: the data read so far is kept and the first problem becomes a warning.
 *   At the end, elements still open (a truncated file) are closed in order so readers can flush them.
 * - No text is held whole (issue 17): of an element's text and of an attribute value only the first
 *   MAX_HELD_TEXT UTF-16 units are kept, and the visitor learns how many characters were dropped
 *   (xml/held-text.ts bounds what saxes holds meanwhile). Elements named in `wholeText` (KML
 *   `coordinates`, a whole route in one text) keep all of theirs. A name longer than
 *   MAX_XML_NAME_CHARS stops the reading, with a warning.
 */
export interface XmlVisitor {
  /**
   * `cutAttributes`: characters dropped from the end of attribute values longer than MAX_HELD_TEXT
   * units, by attribute name (null when none was cut).
   */
  open(
    name: string,
    attributes: Readonly<Record<string, string>>,
    cutAttributes: Readonly<Record<string, number>> | null,
  ): void;
  /**
   * `text` is the character data since the previous tag, untrimmed: its first MAX_HELD_TEXT units, with
   * `droppedChars` characters after them left out (0 when it is whole).
   */
  close(name: string, text: string, droppedChars: number): void;
}

export interface ReadXmlOptions {
  /** local names of the elements whose text is kept whole, however long */
  wholeText?: ReadonlySet<string>;
  /** counts the characters read, for the readers' columns to size themselves by (columns.ts) */
  progress?: ReadProgress;
}

/** After this many XML errors the input is not worth reading further. */
const MAX_XML_ERRORS = 200;

class TooManyXmlErrors extends Error {}

export function readXml(
  bytes: FileBytes,
  visitor: XmlVisitor,
  warnings: Warning[],
  options: ReadXmlOptions = {},
): void {
  const wholeText = options.wholeText ?? NO_NAMES;
  // position: line and column in error messages (saxes tracks them either way); xmlns off: names are
  // matched by local name here, and namespace processing would cost on every element.
  const parser = new SaxesParser({ xmlns: false, position: true });
  /** local names of the open elements, root first; `open[0 .. depth)` is live */
  const open: string[] = [];
  let depth = 0;
  let text = '';
  /** whether the element the text belongs to keeps it whole */
  let keepWhole = false;
  /** characters of the text dropped after the kept start; -1 while nothing has been dropped */
  let droppedChars = -1;
  let errorCount = 0;
  // Assigned in the error callback, which the checker cannot see running.
  let firstError = null as string | null;
  let gaveUp = false;
  let nameTooLong = false;

  /** Adds character data to the text of the innermost element: only its start, unless it keeps it whole. */
  const addText = (chunk: string): void => {
    if (keepWhole) {
      text += chunk;
    } else if (droppedChars >= 0) {
      droppedChars += codePointCount(chunk);
    } else if (text.length + chunk.length <= MAX_HELD_TEXT) {
      text += chunk;
    } else {
      const end = wholeCharsEnd(chunk, MAX_HELD_TEXT - text.length);
      text += chunk.slice(0, end);
      droppedChars = codePointCount(chunk, end);
    }
  };
  /** Starts the text of the element now innermost (after an open or a close). */
  const newText = (): void => {
    text = '';
    droppedChars = -1;
    keepWhole = depth > 0 && wholeText.has(open[depth - 1]!);
  };
  const bound = boundHeldText(parser, addText);

  parser.on('opentag', (tag) => {
    // A name read whole within one chunk, which the check between chunks does not see.
    if (tag.name.length > MAX_XML_NAME_CHARS) throw new XmlNameTooLong();
    const name = localName(tag.name);
    open[depth++] = name;
    newText();
    const cutAttributes = bound?.takeAttributeCuts(tag.attributes) ?? null;
    visitor.open(name, tag.attributes, cutAttributes);
  });
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', (tag) => {
    if (tag.attributes === STRAY_ATTRIBUTES) return;
    // saxes reports a close only for an element it opened, innermost first (a stray closing tag closes only
    // its stand-in, see ignoreStrayCloseTags), so the element closing is the last one opened.
    const name = open[--depth]!;
    const closingText = text;
    const dropped = Math.max(droppedChars, 0);
    newText();
    visitor.close(name, closingText, dropped);
  });
  ignoreStrayCloseTags(parser, (name) => {
    errorCount += 1;
    firstError ??=
      name.length > MAX_XML_NAME_CHARS
        ? `a closing tag of a name longer than ${MAX_XML_NAME_CHARS} characters matches no open element; it is ignored`
        : `a closing tag </${name}> matches no open element; it is ignored`;
  });
  // After ignoreStrayCloseTags: the fast close path hands every other closing tag to its wrapper.
  installSaxesFastPaths(parser);
  parser.on('error', (error) => {
    errorCount += 1;
    firstError ??= error.message;
    if (errorCount > MAX_XML_ERRORS) throw new TooManyXmlErrors();
  });

  try {
    const { progress } = options;
    decodeXmlChunks(bytes, (chunk) => {
      if (progress !== undefined) progress.read += chunk.length;
      parser.write(chunk);
      bound?.afterWrite();
    });
    parser.close();
  } catch (error) {
    if (error instanceof XmlNameTooLong) nameTooLong = true;
    else if (error instanceof TooManyXmlErrors) gaveUp = true;
    else throw error;
  }

  const truncated = depth > 0;
  // Close what a truncated or broken file left open, innermost first, so readers keep what they read.
  while (depth > 0) visitor.close(open[--depth]!, '', 0);
  if (nameTooLong) {
    warnings.push({
      code: RideFileWarningCode.MALFORMED_XML,
      message: `reading stopped at an XML name longer than ${MAX_XML_NAME_CHARS} characters; the data read before is kept`,
    });
  } else if (gaveUp) {
    warnings.push({
      code: RideFileWarningCode.MALFORMED_XML,
      message: `reading stopped after ${MAX_XML_ERRORS} XML errors (first: ${firstError}); the data read before is kept`,
    });
  } else if (truncated) {
    warnings.push({
      code: RideFileWarningCode.TRUNCATED,
      message: `the XML ends before its elements are closed${firstError ? ` (${firstError})` : ''}; the data read so far is kept`,
    });
  } else if (firstError !== null) {
    warnings.push({
      code: RideFileWarningCode.MALFORMED_XML,
      message: `the XML is not well formed (${errorCount} problem${errorCount === 1 ? '' : 's'}, first: ${firstError}); the data read is kept`,
    });
  }
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** The attributes of the stand-in element of a stray closing tag, by which its close is recognised. */
const STRAY_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/** The parts of saxes 6 that `ignoreStrayCloseTags` reaches into (saxes is pinned; sax.test.ts checks this). */
interface SaxesInternals {
  tags: Array<{ name: string }>;
  name: string;
  closeTag: (this: SaxesInternals) => void;
}

/**
 * saxes answers a closing tag that matches no open element by closing every open element, so one stray
 * `</foo>` (a corrupt byte in a tag name) would end the track and lose the rest of the file. Such a tag
 * is dropped instead, with the error reported: a stand-in element of that name is opened just for it, so
 * saxes closes only the stand-in and its own state stays right.
 */
function ignoreStrayCloseTags(parser: SaxesParser, report: (name: string) => void): void {
  const internals = parser as unknown as SaxesInternals;
  const closeTag = internals.closeTag;
  if (typeof closeTag !== 'function' || !Array.isArray(internals.tags)) return;
  internals.closeTag = function (this: SaxesInternals): void {
    const { name, tags } = this;
    // The usual case first: the tag closes the innermost element.
    if (
      name !== '' &&
      tags.length > 0 &&
      tags[tags.length - 1]!.name !== name &&
      !tags.some((tag) => tag.name === name)
    ) {
      report(localName(name));
      this.tags.push({ name, attributes: STRAY_ATTRIBUTES } as { name: string });
    }
    closeTag.call(this);
  };
}

import { SaxesParser } from 'saxes';
import { RideFileWarningCode } from '../errors.js';
import type { Warning } from '../model.js';
import { installSaxesFastPaths } from './saxes-fast.js';
import { decodeXmlChunks } from './text.js';

/**
 * The streaming XML layer under the GPX, TCX and KML readers (issue 2: saxes, never a DOM).
 *
 * - Elements are reported by local name: readers match by local name (or namespace), never by prefix,
 *   because real files use any prefix (`gpxtpx:`, `ns3:`, none) for the same extension.
 * - DOCTYPE internal subsets are never processed, so entity declarations are never expanded
 *   (billion-laughs files cost nothing); an undefined entity is kept as its literal text.
 * - Errors do not stop the reader: the data read so far is kept and the first problem becomes a warning.
 *   At the end, elements still open (a truncated file) are closed in order so readers can flush them.
 */
export interface XmlVisitor {
  open(name: string, attributes: Readonly<Record<string, string>>): void;
  /** `text` is the character data since the previous tag, untrimmed. */
  close(name: string, text: string): void;
}

/** After this many XML errors the input is not worth reading further. */
const MAX_XML_ERRORS = 200;

class TooManyXmlErrors extends Error {}

export function readXml(bytes: Uint8Array, visitor: XmlVisitor, warnings: Warning[]): void {
  // position: line and column in error messages (saxes tracks them either way); xmlns off: names are
  // matched by local name here, and namespace processing would cost on every element.
  const parser = new SaxesParser({ xmlns: false, position: true });
  /** local names of the open elements, root first; `open[0 .. depth)` is live */
  const open: string[] = [];
  let depth = 0;
  let text = '';
  let errorCount = 0;
  // Assigned in the error callback, which the checker cannot see running.
  let firstError = null as string | null;
  let gaveUp = false;

  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    open[depth++] = name;
    text = '';
    visitor.open(name, tag.attributes);
  });
  parser.on('text', (chunk) => {
    text += chunk;
  });
  parser.on('cdata', (chunk) => {
    text += chunk;
  });
  parser.on('closetag', (tag) => {
    if (tag.attributes === STRAY_ATTRIBUTES) return;
    // saxes reports a close only for an element it opened, innermost first (a stray closing tag closes only
    // its stand-in, see ignoreStrayCloseTags), so the element closing is the last one opened.
    const name = open[--depth]!;
    const closingText = text;
    text = '';
    visitor.close(name, closingText);
  });
  ignoreStrayCloseTags(parser, (name) => {
    errorCount += 1;
    firstError ??= `a closing tag </${name}> matches no open element; it is ignored`;
  });
  // After ignoreStrayCloseTags: the fast close path hands every other closing tag to its wrapper.
  installSaxesFastPaths(parser);
  parser.on('error', (error) => {
    errorCount += 1;
    firstError ??= error.message;
    if (errorCount > MAX_XML_ERRORS) throw new TooManyXmlErrors();
  });

  try {
    decodeXmlChunks(bytes, (chunk) => parser.write(chunk));
    parser.close();
  } catch (error) {
    if (!(error instanceof TooManyXmlErrors)) throw error;
    gaveUp = true;
  }

  const truncated = depth > 0;
  // Close what a truncated or broken file left open, innermost first, so readers keep what they read.
  while (depth > 0) visitor.close(open[--depth]!, '');
  if (gaveUp) {
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

export function localName(qualifiedName: string): string {
  const colon = qualifiedName.indexOf(':');
  return colon < 0 ? qualifiedName : qualifiedName.slice(colon + 1);
}

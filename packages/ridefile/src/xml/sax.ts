import { SaxesParser } from 'saxes';
import { RideFileWarningCode } from '../errors.js';
import type { Warning } from '../model.js';
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
  const parser = new SaxesParser({ xmlns: false, position: true });
  const open: string[] = [];
  let text = '';
  let errorCount = 0;
  // Assigned in the error callback, which the checker cannot see running.
  let firstError = null as string | null;
  let gaveUp = false;

  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    open.push(name);
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
    const name = localName(tag.name);
    // saxes reports a close only for an element it opened; keep our stack in step with it.
    const index = open.lastIndexOf(name);
    if (index >= 0) open.length = index;
    const closingText = text;
    text = '';
    visitor.close(name, closingText);
  });
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

  const truncated = open.length > 0;
  // Close what a truncated or broken file left open, innermost first, so readers keep what they read.
  while (open.length > 0) {
    const name = open.pop()!;
    visitor.close(name, '');
  }
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

export function localName(qualifiedName: string): string {
  const colon = qualifiedName.indexOf(':');
  return colon < 0 ? qualifiedName : qualifiedName.slice(colon + 1);
}

import { SaxesParser } from 'saxes';
import { codePointCount, FILE_TEXT_WINDOW, wholeCharsEnd } from '../file-text.js';

/**
 * Bounds what saxes holds of any one text between the chunks readXml writes (issue 17: a 200 MB
 * `<name>` inside a 195 KB `.gpx.gz` was built whole as one string, and again by the reader). saxes
 * keeps what it has not reported yet in its `text` field (an element's text until the next tag, an
 * attribute value until its closing quote, a comment, a processing instruction, a DOCTYPE), growing
 * from chunk to chunk, and names in `name`, `entity` and `piTarget`. After each chunk (at most a
 * megabyte of text, xml/text.ts), `afterWrite`:
 *
 * - hands an element's pending text (in text, in an entity reference in text, in CDATA) to `onText`
 *   at once, as saxes would at the next tag: readXml's own accumulator keeps only its start;
 * - cuts an attribute value being read to its first MAX_HELD_TEXT units, and counts the characters
 *   dropped by attribute name, for `takeAttributeCuts` when the element opens;
 * - cuts comments, processing instructions and DOCTYPE content the same way (nothing reads them);
 * - throws XmlNameTooLong when a name passes MAX_XML_NAME_CHARS: no ride file has one.
 *
 * saxes is pinned (package.json); `boundHeldText` returns null unless the parser has the fields and
 * states relied on, and sax.test.ts checks that it does not.
 */

/** What is kept of one text, in UTF-16 units: as much as file-text.ts ever looks at. */
export const MAX_HELD_TEXT = FILE_TEXT_WINDOW;

/** The longest element, attribute, entity or processing-instruction name read. */
export const MAX_XML_NAME_CHARS = 1024;

export class XmlNameTooLong extends Error {}

/** The saxes 6 parser state read and written here (saxes.js). */
interface SaxesState {
  state: number;
  text: string;
  name: string;
  entity: string;
  piTarget: string;
  entityReturnState: number | undefined;
  stateTable: unknown[];
}

export interface HeldTextBound {
  /** call after every `parser.write` */
  afterWrite(): void;
  /**
   * Characters dropped from each attribute of the element about to open, by name (null: none), and
   * the attribute values cut to what was kept (saxes joined the kept start with the last chunk's part).
   */
  takeAttributeCuts(attributes: Record<string, string>): Readonly<Record<string, number>> | null;
}

/** Installs the bound on `parser` (before any write); null when saxes is not as expected. */
export function boundHeldText(parser: SaxesParser, onText: (text: string) => void): HeldTextBound | null {
  const internals = parser as unknown as SaxesState;
  const prototype = SaxesParser.prototype as unknown as Record<string, unknown>;
  const { stateTable } = internals;
  if (!Array.isArray(stateTable)) return null;
  const stateOf = (name: string): number => {
    const method = prototype[name];
    return typeof method === 'function' ? stateTable.indexOf(method) : -1;
  };
  const textState = stateOf('sText');
  const entityState = stateOf('sEntity');
  const textStates = new Set([
    textState,
    stateOf('sCData'),
    stateOf('sCDataEnding'),
    stateOf('sCDataEnding2'),
  ]);
  const attributeStates = new Set([stateOf('sAttribValueQuoted'), stateOf('sAttribValueUnquoted')]);
  if (
    textStates.has(-1) ||
    attributeStates.has(-1) ||
    entityState < 0 ||
    typeof internals.state !== 'number' ||
    typeof internals.text !== 'string' ||
    typeof internals.name !== 'string' ||
    typeof internals.entity !== 'string' ||
    typeof internals.piTarget !== 'string' ||
    !('entityReturnState' in internals)
  ) {
    return null;
  }

  /** characters dropped from attribute values since the last element opened, by attribute name */
  let attributeCuts: Record<string, number> | null = null;

  return {
    afterWrite() {
      const { state, text } = internals;
      const returnsTo = state === entityState ? internals.entityReturnState : state;
      if (text.length > 0 && returnsTo !== undefined && textStates.has(returnsTo)) {
        internals.text = '';
        onText(text);
      } else if (text.length > MAX_HELD_TEXT) {
        const end = wholeCharsEnd(text, MAX_HELD_TEXT);
        internals.text = text.slice(0, end);
        if (returnsTo !== undefined && attributeStates.has(returnsTo)) {
          attributeCuts ??= Object.create(null) as Record<string, number>;
          attributeCuts[internals.name] = (attributeCuts[internals.name] ?? 0) + codePointCount(text, end);
        }
      }
      if (
        internals.name.length > MAX_XML_NAME_CHARS ||
        internals.entity.length > MAX_XML_NAME_CHARS ||
        internals.piTarget.length > MAX_XML_NAME_CHARS
      ) {
        throw new XmlNameTooLong();
      }
    },

    takeAttributeCuts(attributes) {
      const cuts = attributeCuts;
      if (cuts === null) return null;
      attributeCuts = null;
      for (const [name, dropped] of Object.entries(cuts)) {
        const value = attributes[name];
        if (value === undefined || value.length <= MAX_HELD_TEXT) continue;
        // What was kept at the cut, then what the last chunk added: only the kept start is the value's.
        const end = wholeCharsEnd(value, MAX_HELD_TEXT);
        attributes[name] = value.slice(0, end);
        cuts[name] = dropped + codePointCount(value, end);
      }
      return cuts;
    },
  };
}

import { SaxesParser } from 'saxes';

/**
 * Fast paths for saxes 6 on the plain ASCII that makes up nearly all of a ride file (issue 2: GPX/TCX/KML
 * speed). saxes reads every character through `getCode`, which updates the parser's position fields per
 * character, and builds a dictionary object for every element's attributes. The fast paths read a run of
 * ordinary characters with local variables and then set the fields once, to the values saxes would have
 * left, and share one empty attribute object between the elements that cannot have attributes.
 *
 * Anything unusual (a reference, CR, `]`, `>` in text, control or non-ASCII characters, the end of the
 * chunk, an error) is left to saxes' own code from the same point, so errors and their line:column are
 * saxes' own. saxes is pinned (package.json); `installSaxesFastPaths` installs nothing unless the parser
 * has the fields and methods relied on, and saxes-fast.test.ts checks that parsers with and without the
 * fast paths report the same events, texts, attributes and errors on generated documents.
 */

/** The saxes 6 parser state the fast paths read and write (saxes.js: getCode10, handleTextInRoot, …). */
interface SaxesState {
  chunk: string;
  chunkPosition: number;
  i: number;
  prevI: number;
  line: number;
  column: number;
  positionAtNewLine: number;
  forbiddenState: number;
  state: number;
  text: string;
  name: string;
  q: number | null;
  tag: SaxesTag | null;
  tags: SaxesTag[];
  topNS: unknown;
  attribList: unknown[];
  sawRoot: boolean;
  closedRoot: boolean;
  xmlnsOpt: boolean;
  fragmentOpt: boolean;
  openTagStartHandler: unknown;
  textHandler: ((text: string) => void) | undefined;
  closeTagHandler: ((tag: SaxesTag) => void) | undefined;
  stateTable: StateMethod[];
  captureNameChars: (this: SaxesState) => number;
  processAttribs: (this: SaxesState) => void;
  pushAttrib: (this: SaxesState, name: string, value: string) => void;
  openTag: (this: SaxesState) => void;
  closeTag: (this: SaxesState) => void;
  fail: (this: SaxesState, message: string) => void;
}

interface SaxesTag {
  name: string;
  attributes: Record<string, string>;
  ns?: unknown;
}

type StateMethod = (this: SaxesState) => void;

const TAB = 0x09;
const NL = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const AMP = 0x26;
const FORWARD_SLASH = 0x2f;
const LESS = 0x3c;
const GREATER = 0x3e;
const CLOSE_BRACKET = 0x5d;
const DEL = 0x7f;
/** saxes' end-of-chunk code (saxes.js: EOC) */
const EOC = -1;

/** saxes' `]]>` detector in its initial state (saxes.js: FORBIDDEN_START). */
const FORBIDDEN_START = 0;

/** The attributes of every element that has none (an element's attributes are only read). */
const NO_ATTRIBUTES: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/** Character classes of ASCII for the scanning loops (a table lookup is cheaper than a chain of tests). */
const OTHER = 0;
/** printable ASCII that is ordinary text (not `<`, `&`, `]`, `>`), and tab */
const TEXT = 1;
const NEWLINE = 2;
const TEXT_CLASSES = new Uint8Array(128);
/** letters, digits, `-`, `.`, `:`, `_`: the ASCII characters of the XML Name production */
const NAME_CHARS = new Uint8Array(128);
/** printable ASCII other than `&` and `<`, the characters an attribute value may hold as they are */
const VALUE_CHARS = new Uint8Array(128);
for (let code = SPACE; code < DEL; code++) {
  TEXT_CLASSES[code] = TEXT;
  VALUE_CHARS[code] = 1;
  const letter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  const digitOrColon = code >= 0x30 && code <= 0x3a;
  if (letter || digitOrColon || code === 0x2d || code === 0x2e || code === 0x5f) NAME_CHARS[code] = 1;
}
TEXT_CLASSES[LESS] = TEXT_CLASSES[AMP] = TEXT_CLASSES[CLOSE_BRACKET] = TEXT_CLASSES[GREATER] = OTHER;
TEXT_CLASSES[TAB] = TEXT;
TEXT_CLASSES[NL] = NEWLINE;
VALUE_CHARS[LESS] = VALUE_CHARS[AMP] = 0;

/**
 * Installs the fast paths on this parser (before any `write`), when it looks as expected; otherwise leaves
 * it alone (everything still works, at saxes' speed).
 */
export function installSaxesFastPaths(parser: SaxesParser): void {
  const internals = parser as unknown as SaxesState;
  const prototype = SaxesParser.prototype as unknown as Record<string, unknown>;
  const { stateTable } = internals;
  if (!Array.isArray(stateTable)) return;
  const method = (name: string): StateMethod | null => {
    const found = prototype[name];
    return typeof found === 'function' ? (found as StateMethod) : null;
  };
  const stateOf = (name: string): number => {
    const found = method(name);
    return found === null ? -1 : stateTable.indexOf(found);
  };
  const slowText = method('sText');
  const slowOpenTag = method('sOpenTag');
  const slowAttributeValue = method('sAttribValueQuoted');
  const slowName = method('captureNameChars') as ((this: SaxesState) => number) | null;
  const slowAttributes = internals.processAttribs;
  const slowCloseTag = internals.closeTag;
  const textState = stateOf('sText');
  const openWakaState = stateOf('sOpenWaka');
  const openTagState = stateOf('sOpenTag');
  const openTagSlashState = stateOf('sOpenTagSlash');
  const attributeState = stateOf('sAttrib');
  const attributeValueState = stateOf('sAttribValueQuoted');
  const attributeValueClosedState = stateOf('sAttribValueClosed');
  if (
    slowText === null ||
    slowOpenTag === null ||
    slowAttributeValue === null ||
    slowName === null ||
    [textState, openWakaState, openTagState, openTagSlashState, attributeState].some((s) => s < 0) ||
    attributeValueState < 0 ||
    attributeValueClosedState < 0 ||
    internals.captureNameChars !== slowName ||
    slowAttributes !== prototype['processAttribsPlain'] ||
    typeof slowCloseTag !== 'function' ||
    typeof internals.openTag !== 'function' ||
    typeof internals.pushAttrib !== 'function' ||
    typeof internals.fail !== 'function' ||
    typeof internals.chunk !== 'string' ||
    typeof internals.chunkPosition !== 'number' ||
    typeof internals.i !== 'number' ||
    typeof internals.prevI !== 'number' ||
    typeof internals.line !== 'number' ||
    typeof internals.column !== 'number' ||
    typeof internals.positionAtNewLine !== 'number' ||
    typeof internals.sawRoot !== 'boolean' ||
    typeof internals.closedRoot !== 'boolean' ||
    typeof internals.xmlnsOpt !== 'boolean' ||
    typeof internals.fragmentOpt !== 'boolean' ||
    internals.xmlnsOpt ||
    internals.fragmentOpt ||
    internals.forbiddenState !== FORBIDDEN_START ||
    internals.q !== null ||
    !Array.isArray(internals.tags) ||
    !Array.isArray(internals.attribList)
  ) {
    return;
  }

  /**
   * Text inside the root element up to the next `<`, as saxes' handleTextInRoot reads it: a newline moves
   * `line`, `column` and `positionAtNewLine`; the `<` ends the text (reported once, joined to what an
   * earlier chunk left in `text`) and enters S_OPEN_WAKA.
   */
  stateTable[textState] = function fastText(this: SaxesState): void {
    const handler = this.textHandler;
    if (this.tags.length === 0 || handler === undefined) {
      slowText.call(this);
      return;
    }
    const { chunk } = this;
    const start = this.i;
    const length = chunk.length;
    let i = start;
    let lastNewline = -1;
    let newlines = 0;
    for (; i < length; i++) {
      const code = chunk.charCodeAt(i);
      const kind = code < 128 ? TEXT_CLASSES[code]! : OTHER;
      if (kind === TEXT) continue;
      if (kind !== NEWLINE) break;
      newlines++;
      lastNewline = i;
    }
    if (i > start) {
      if (newlines > 0) {
        this.line += newlines;
        this.column = i - lastNewline - 1;
        this.positionAtNewLine = this.chunkPosition + lastNewline + 1;
      } else {
        this.column += i - start;
      }
      this.prevI = i - 1;
      this.i = i;
      this.forbiddenState = FORBIDDEN_START;
    }
    if (i >= length || chunk.charCodeAt(i) !== LESS) {
      // saxes goes on from here; what was read is kept in `text`, where saxes keeps unreported text.
      if (i > start) this.text += chunk.slice(start, i);
      slowText.call(this);
      return;
    }
    this.prevI = i;
    this.i = i + 1;
    this.column++;
    this.state = openWakaState;
    const slice = chunk.slice(start, i);
    const { text } = this;
    if (text.length !== 0) {
      handler(text + slice);
      this.text = '';
    } else if (slice.length !== 0) {
      handler(slice);
    }
    this.forbiddenState = FORBIDDEN_START;
  };

  /**
   * An element or attribute name, ended by an ASCII character that is not a name character (`>`, `/`,
   * `=`, space, tab). Anything else (a newline, non-ASCII, the end of the chunk) goes to saxes from the start.
   */
  internals.captureNameChars = function fastName(this: SaxesState): number {
    const { chunk } = this;
    const start = this.i;
    const length = chunk.length;
    let i = start;
    while (i < length) {
      const code = chunk.charCodeAt(i);
      if (code >= 128 || NAME_CHARS[code] === 0) break;
      i++;
    }
    if (i < length) {
      const code = chunk.charCodeAt(i);
      if ((code >= SPACE && code < DEL) || code === TAB) {
        this.name += chunk.slice(start, i);
        this.column += i - start + 1;
        this.prevI = i;
        this.i = i + 1;
        return code;
      }
    }
    return slowName.call(this);
  };

  /**
   * saxes' sOpenTag (without namespaces, not a fragment), except that an element whose tag ends right after
   * its name (`<name>`, `<name/>`) gets the shared empty attribute object instead of a new one.
   */
  stateTable[openTagState] = function fastOpenTag(this: SaxesState): void {
    if (this.openTagStartHandler !== undefined) {
      slowOpenTag.call(this);
      return;
    }
    const code = this.captureNameChars();
    if (code === EOC) return;
    const attributes =
      code === GREATER || code === FORWARD_SLASH
        ? NO_ATTRIBUTES
        : (Object.create(null) as Record<string, string>);
    const tag: SaxesTag = { name: this.name, attributes };
    this.tag = tag;
    this.name = '';
    this.sawRoot = true;
    if (this.closedRoot) this.fail('documents may contain only one root.');
    if (code === GREATER) {
      this.openTag();
    } else if (code === FORWARD_SLASH) {
      this.state = openTagSlashState;
    } else {
      if (!(code === SPACE || code === NL || code === CR || code === TAB)) {
        this.fail('disallowed character in tag name.');
      }
      this.state = attributeState;
    }
  };

  /**
   * A quoted attribute value up to its closing quote, when it holds only printable ASCII without `&` or `<`:
   * reported through saxes' own `pushAttrib`, leaving the state saxes' sAttribValueQuoted leaves. Anything
   * else (tab or newline, which saxes turns into spaces; references; the end of the chunk) goes to saxes.
   */
  stateTable[attributeValueState] = function fastAttributeValue(this: SaxesState): void {
    const { chunk, q } = this;
    const start = this.i;
    const length = chunk.length;
    let i = start;
    for (; i < length; i++) {
      const code = chunk.charCodeAt(i);
      if (code === q || code >= 128 || VALUE_CHARS[code] === 0) break;
    }
    if (i < length && chunk.charCodeAt(i) === q) {
      this.column += i - start + 1;
      this.prevI = i;
      this.i = i + 1;
      this.pushAttrib(this.name, this.text + chunk.slice(start, i));
      this.name = this.text = '';
      this.q = null;
      this.state = attributeValueClosedState;
      return;
    }
    slowAttributeValue.call(this);
  };

  /**
   * saxes' processAttribsPlain, which also allocates a new attribute list after every tag without
   * attributes. Should attributes turn up for an element given the shared empty object (only after an
   * error, such as `<a/ b="1">`), it gets an object of its own first.
   */
  internals.processAttribs = function fastAttributes(this: SaxesState): void {
    if (this.attribList.length === 0) return;
    const { tag } = this;
    if (tag !== null && tag.attributes === NO_ATTRIBUTES) {
      tag.attributes = Object.create(null) as Record<string, string>;
    }
    slowAttributes.call(this);
  };

  /**
   * saxes' closeTag when the tag closes the innermost open element (the usual case): that element is popped
   * and reported. Any other case goes to the closeTag in place (saxes', or a wrapper around it).
   */
  internals.closeTag = function fastCloseTag(this: SaxesState): void {
    const { name, tags } = this;
    const top = tags[tags.length - 1];
    if (top === undefined || name === '' || top.name !== name) {
      slowCloseTag.call(this);
      return;
    }
    this.state = textState;
    this.name = '';
    tags.pop();
    this.tag = top;
    this.topNS = top.ns;
    const handler = this.closeTagHandler;
    if (handler !== undefined) handler(top);
    if (tags.length === 0) this.closedRoot = true;
  };
}

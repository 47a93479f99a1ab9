import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RideFileWarningCode } from './errors.js';
import {
  boundedMessage,
  cleanText,
  codePointCount,
  FILE_TEXT_MAX_CHARS,
  FILE_TEXT_WINDOW,
  boundedFileText,
  MESSAGE_MAX_CHARS,
  wholeCharsEnd,
  type FileTextField,
} from './file-text.js';
import type { Warning } from './model.js';

/** What no text of the output may hold (file-text.ts, the cleaning rules). */
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function read(
  field: FileTextField,
  raw: string | null,
  dropped = 0,
): { text: string | null; warnings: Warning[] } {
  const warnings: Warning[] = [];
  return { text: boundedFileText(field, raw, warnings, dropped), warnings };
}

/** Characters a hostile file puts in its names, and ordinary ones between them. */
const hostileChar = fc.oneof(
  fc.constantFrom(
    '\u0000',
    '\u0007',
    '\t',
    '\n',
    '\r',
    '\u000b',
    '\u001b',
    '\u007f',
    '\u0085',
    '\u009b',
    '\u2028',
    '\u2029',
    '\u202e',
    '\u202d',
    '\u2066',
    '\u2069',
    '\u200f',
    '\u200e',
    '\u061c',
    '\ud800',
    '\udfff',
    '\ud83d\udeb4',
    'e\u0301',
    '\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67',
    '<script>alert(1)</script>',
    '"\'&<>',
    ' ',
    '   ',
    'שלום',
    'مرحبا',
  ),
  fc.string({ unit: 'binary', maxLength: 3 }),
  fc.string({ maxLength: 8 }),
);

/** Short hostile strings, and long ones made by repeating them (far past every maximum). */
const hostileText = fc
  .tuple(fc.array(hostileChar, { maxLength: 40 }), fc.integer({ min: 1, max: 2000 }))
  .map(([chars, times]) => chars.join('').repeat(times));

describe('fileText', () => {
  it('keeps a short name as it is, trimmed', () => {
    expect(read('name', '  Morning ride  ')).toEqual({ text: 'Morning ride', warnings: [] });
    expect(read('name', 'Tom & Jerry <"Col du Galibier"> 🚴')).toEqual({
      text: 'Tom & Jerry <"Col du Galibier"> 🚴',
      warnings: [],
    });
    expect(read('name', '   ').text).toBeNull();
    expect(read('name', null).text).toBeNull();
  });

  it('makes one line: a line break with the spaces around it is one space, other controls go', () => {
    expect(read('name', 'Morning  \n\t  ride\u0000\u0007 to\u2028the\u0085lake\u009b').text).toBe(
      'Morning ride to the lake',
    );
    expect(read('name', 'two  spaces kept').text).toBe('two  spaces kept');
  });

  it('removes bidi embeddings, overrides and isolates, keeps the marks and right-to-left letters', () => {
    expect(read('name', 'ride\u202egpj.exe\u202c').text).toBe('ridegpj.exe');
    expect(read('name', '\u2067שלום\u2069 \u200fride\u200e').text).toBe('שלום \u200fride\u200e');
  });

  it('replaces a lone surrogate and keeps pairs', () => {
    expect(read('name', 'a\ud800b\udc00c🚴').text).toBe('a\ufffdb\ufffdc🚴');
  });

  it('keeps the start of a long name, in whole characters, and says what was shortened and how long it was', () => {
    const { text, warnings } = read('name', 'x'.repeat(1000));
    expect(text).toBe('x'.repeat(255));
    expect(warnings).toEqual([
      {
        code: RideFileWarningCode.TEXT_SHORTENED,
        message: 'the track name had 1,000 characters; only its first 255 were kept',
      },
    ]);
    // 254 letters then emoji: the cut falls after the first emoji, never inside a pair.
    const emoji = read('device', `${'a'.repeat(254)}${'🚴'.repeat(10)}`);
    expect(emoji.text).toBe(`${'a'.repeat(254)}🚴`);
    expect(emoji.warnings[0]!.message).toBe(
      'the device name had 264 characters; only its first 255 were kept',
    );
  });

  it('never cuts a grapheme cluster: an accent stays with its letter, a family stays whole', () => {
    const accent = read('name', `${'a'.repeat(254)}e\u0301${'b'.repeat(10)}`);
    expect(accent.text).toBe('a'.repeat(254));
    const family = '\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67';
    // 250 letters and one family (5 code points) are 255: a second family does not fit, nor part of it.
    const families = read('name', `${'a'.repeat(250)}${family}${family}`);
    expect(families.text).toBe(`${'a'.repeat(250)}${family}`);
    expect(read('name', `${'a'.repeat(252)}${family}`).text).toBe('a'.repeat(252));
  });

  it('counts what the reader already dropped in the length it reports', () => {
    const { text, warnings } = read('creator', 'y'.repeat(20), 209_715_180);
    expect(text).toBe('y'.repeat(20));
    expect(warnings[0]!.message).toBe(
      "the file's creator had 209,715,200 characters; only its first 20 were kept",
    );
  });

  it('looks at the first FILE_TEXT_WINDOW units only, and still counts the whole length', () => {
    const { text, warnings } = read('name', `${'\u0000'.repeat(FILE_TEXT_WINDOW)}hidden`);
    expect(text).toBeNull();
    expect(warnings[0]!.message).toBe(
      `the track name had ${(FILE_TEXT_WINDOW + 6).toLocaleString('en-US')} characters and nothing to keep at its start`,
    );
  });

  it('says one shortening once, however often the same text is read', () => {
    const warnings: Warning[] = [];
    for (let i = 0; i < 3; i++) boundedFileText('sensor', 's'.repeat(300), warnings);
    expect(warnings).toHaveLength(1);
  });

  it('whatever the text: bounded, clean, the start of the cleaned text, and the same when read again', () => {
    const fields = Object.keys(FILE_TEXT_MAX_CHARS) as FileTextField[];
    fc.assert(
      fc.property(hostileText, fc.constantFrom(...fields), (raw, field) => {
        const { text, warnings } = read(field, raw);
        const max = FILE_TEXT_MAX_CHARS[field];
        const cleaned = cleanText(raw.slice(0, wholeCharsEnd(raw, FILE_TEXT_WINDOW)));
        if (text === null) {
          expect(cleaned).toBe('');
        } else {
          expect(codePointCount(text)).toBeLessThanOrEqual(max);
          expect(text).not.toMatch(FORBIDDEN);
          expect(text).not.toMatch(LONE_SURROGATE);
          expect(text).toBe(text.trim());
          expect(cleaned.startsWith(text)).toBe(true);
          expect(read(field, text)).toEqual({ text, warnings: [] });
        }
        const shortened = codePointCount(cleaned) > max || raw.length > FILE_TEXT_WINDOW;
        expect(warnings.length).toBe(shortened ? 1 : 0);
        if (shortened) {
          expect(warnings[0]!.code).toBe(RideFileWarningCode.TEXT_SHORTENED);
          expect(warnings[0]!.message).toContain(codePointCount(raw).toLocaleString('en-US'));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('boundedMessage', () => {
  it('keeps a sentence as it is, and cuts a long one with an ellipsis', () => {
    expect(boundedMessage('the XML is not well formed')).toBe('the XML is not well formed');
    const long = boundedMessage(`a closing tag </${'n'.repeat(5000)}> matches nothing`);
    expect(codePointCount(long)).toBe(MESSAGE_MAX_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('whatever the text: bounded and clean', () => {
    fc.assert(
      fc.property(hostileText, (raw) => {
        const message = boundedMessage(raw);
        expect(codePointCount(message)).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
        expect(message).not.toMatch(FORBIDDEN);
        expect(message).not.toMatch(LONE_SURROGATE);
      }),
      { numRuns: 200 },
    );
  });
});

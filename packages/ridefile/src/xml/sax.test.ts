import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { RideFileWarningCode } from '../errors.js';
import type { Warning } from '../model.js';
import { boundHeldText, MAX_HELD_TEXT, MAX_XML_NAME_CHARS } from './held-text.js';
import { readXml, type ReadXmlOptions } from './sax.js';

/** The events readXml reports, as `<name` and `/name=text` strings. */
function events(xml: string): { events: string[]; warnings: Warning[] } {
  const seen: string[] = [];
  const warnings: Warning[] = [];
  readXml(
    new TextEncoder().encode(xml),
    {
      open: (name) => seen.push(`<${name}`),
      close: (name, text) => seen.push(`/${name}=${text}`),
    },
    warnings,
  );
  return { events: seen, warnings };
}

describe('readXml', () => {
  it('reports local names, whatever the prefix', () => {
    expect(events('<a:gpx xmlns:a="x"><ns3:hr>150</ns3:hr></a:gpx>').events).toEqual([
      '<gpx',
      '<hr',
      '/hr=150',
      '/gpx=',
    ]);
  });

  it('drops a stray closing tag instead of closing everything (saxes would)', () => {
    const result = events('<r><p><v>1</v></foo><v>2</v></p><p><v>3</v></p></r>');
    expect(result.events).toEqual([
      '<r',
      '<p',
      '<v',
      '/v=1',
      '<v',
      '/v=2',
      '/p=',
      '<p',
      '<v',
      '/v=3',
      '/p=',
      '/r=',
    ]);
    expect(result.warnings.map((warning) => warning.code)).toEqual([RideFileWarningCode.MALFORMED_XML]);
  });

  it('closes what a truncated file left open, innermost first', () => {
    const result = events('<r><p><v>1</v><v>2');
    expect(result.events).toEqual(['<r', '<p', '<v', '/v=1', '<v', '/v=', '/p=', '/r=']);
    expect(result.warnings.map((warning) => warning.code)).toEqual([RideFileWarningCode.TRUNCATED]);
  });

  it('never expands entities declared in a DOCTYPE', () => {
    const xml =
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>' +
      '<r><v>&b;</v><v>&amp;&lt;</v></r>';
    const result = events(xml);
    expect(result.events).toContain('/v=&b;');
    expect(result.events).toContain('/v=&<');
  });

  it('gives up on hopeless input after a bounded number of errors, keeping what it read', () => {
    const result = events(`<r><v>1</v>${'<<'.repeat(5000)}`);
    expect(result.events.slice(0, 4)).toEqual(['<r', '<v', '/v=1', '/r=']);
    expect(result.warnings[0]!.message).toMatch(/reading stopped after \d+ XML errors/);
  });
});

/** Every close as [name, text length in units, characters dropped], and every open's attribute cuts. */
function lengths(
  xml: string,
  options: ReadXmlOptions = {},
): {
  closes: [string, number, number][];
  cuts: unknown[];
  attributes: Record<string, string>[];
  warnings: Warning[];
} {
  const closes: [string, number, number][] = [];
  const cuts: unknown[] = [];
  const attributes: Record<string, string>[] = [];
  const warnings: Warning[] = [];
  readXml(
    new TextEncoder().encode(xml),
    {
      open: (_name, attrs, cut) => {
        attributes.push({ ...attrs });
        cuts.push(cut);
      },
      close: (name, text, dropped) => closes.push([name, text.length, dropped]),
    },
    warnings,
    options,
  );
  return { closes, cuts, attributes, warnings };
}

describe('readXml holds no text whole (issue 17)', () => {
  const megabytes = 3 << 20;

  it('hands over the start of a long text and counts the characters left out', () => {
    const { closes } = lengths(`<r><n>${'x'.repeat(megabytes)}</n><v>12</v></r>`);
    expect(closes).toEqual([
      ['n', MAX_HELD_TEXT, megabytes - MAX_HELD_TEXT],
      ['v', 2, 0],
      ['r', 0, 0],
    ]);
  });

  it('counts characters, not UTF-16 units, and never keeps half a pair', () => {
    const { closes } = lengths(`<r><n>a${'🚴'.repeat(megabytes / 4)}</n></r>`);
    const [name, kept, dropped] = closes[0]!;
    expect(name).toBe('n');
    expect(kept).toBe(MAX_HELD_TEXT - 1); // "a" and whole pairs: one unit short of the bound
    expect(1 + (kept - 1) / 2 + dropped).toBe(1 + megabytes / 4);
  });

  it('bounds CDATA and text mixed with entities the same way', () => {
    const { closes } = lengths(`<r><n>&amp;<![CDATA[${'c'.repeat(megabytes)}]]>&lt;tail</n></r>`);
    expect(closes[0]).toEqual(['n', MAX_HELD_TEXT, 1 + megabytes + 5 - MAX_HELD_TEXT]);
  });

  it('keeps whole the text of the elements that ask for it', () => {
    const { closes } = lengths(`<r><coordinates>${'1,2 '.repeat(megabytes / 4)}</coordinates></r>`, {
      wholeText: new Set(['coordinates']),
    });
    expect(closes[0]).toEqual(['coordinates', megabytes, 0]);
  });

  it('cuts a long attribute value and says how much it dropped', () => {
    const { attributes, cuts } = lengths(
      `<gpx creator="${'c'.repeat(megabytes)}" version="1.1"><a b="1"/></gpx>`,
    );
    expect(attributes[0]!['creator']).toHaveLength(MAX_HELD_TEXT);
    expect(attributes[0]!['version']).toBe('1.1');
    expect(cuts).toEqual([{ creator: megabytes - MAX_HELD_TEXT }, null]);
  });

  it('stops at a name longer than any a ride file has, keeping what it read', () => {
    const { closes, warnings } = lengths(`<r><v>1</v><${'n'.repeat(MAX_XML_NAME_CHARS + 1)}>2</r>`);
    expect(closes).toEqual([
      ['v', 1, 0],
      ['r', 0, 0],
    ]);
    expect(warnings[0]!.message).toMatch(/XML name longer than 1024 characters/);
    const split = lengths(`<r><v>1</v><${'n'.repeat(megabytes)}>2</r>`);
    expect(split.warnings[0]!.message).toMatch(/XML name longer than 1024 characters/);
  });

  it('leaves saxes holding at most a bounded start of any text between chunks', () => {
    const parser = new SaxesParser({ xmlns: false });
    let handed = 0;
    parser.on('text', (text) => (handed += text.length));
    const bound = boundHeldText(parser, (text) => (handed += text.length));
    expect(bound).not.toBeNull();
    const held = (): number => (parser as unknown as { text: string }).text.length;
    const chunk = 'x'.repeat(1 << 20);
    parser.write('<r><n>');
    for (let i = 0; i < 4; i++) {
      parser.write(chunk);
      bound!.afterWrite();
      expect(held()).toBe(0); // element text: handed over at once
    }
    parser.write('</n><a v="');
    for (let i = 0; i < 4; i++) {
      parser.write(chunk);
      bound!.afterWrite();
      expect(held()).toBeLessThanOrEqual(MAX_HELD_TEXT);
    }
    parser.write('"/><!--');
    for (let i = 0; i < 4; i++) {
      parser.write(chunk);
      bound!.afterWrite();
      expect(held()).toBeLessThanOrEqual(MAX_HELD_TEXT);
    }
    parser.write('--></r>').close();
    expect(handed).toBe(4 << 20);
  });
});

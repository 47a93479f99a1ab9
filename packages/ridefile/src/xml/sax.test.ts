import { describe, expect, it } from 'vitest';
import { RideFileWarningCode } from '../errors.js';
import type { Warning } from '../model.js';
import { readXml } from './sax.js';

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

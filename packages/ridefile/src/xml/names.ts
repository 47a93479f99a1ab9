/**
 * XML names, apart from the parser: sniff.ts needs only this, and a FIT-only bundle must not pull in
 * saxes through it (issue 21, bench/size.ts).
 */

/** The name without its namespace prefix: `gpxtpx:hr` → `hr`. */
export function localName(qualifiedName: string): string {
  const colon = qualifiedName.indexOf(':');
  return colon < 0 ? qualifiedName : qualifiedName.slice(colon + 1);
}

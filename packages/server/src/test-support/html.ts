/**
 * What is wrong with a page's HTML, for tests that feed hostile text to the pages (issue 17): every `<`
 * begins a tag, a comment or the doctype (text that holds markup is escaped), and the elements nest
 * (each closing tag closes the innermost open element; void elements have none). No HTML parser is
 * among the dependencies, and the pages are written to this stricter shape anyway (pages/html.ts).
 */

const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);
/** Elements whose content is text up to their closing tag. */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'textarea', 'title']);

const TAG =
  /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*(\/?)>/;

export function htmlProblems(page: string): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  let at = 0;
  while (at < page.length) {
    const next = page.indexOf('<', at);
    if (next < 0) break;
    const rest = page.slice(next, next + 4096);
    if (rest.startsWith('<!--')) {
      const end = page.indexOf('-->', next);
      if (end < 0) return [...problems, `a comment at ${next} is never closed`];
      at = end + 3;
      continue;
    }
    if (/^<!doctype html>/i.test(rest)) {
      at = next + '<!doctype html>'.length;
      continue;
    }
    const tag = TAG.exec(rest);
    if (tag === null) {
      problems.push(`a "<" that begins no tag at ${next}: ${JSON.stringify(page.slice(next, next + 40))}`);
      at = next + 1;
      continue;
    }
    const [whole, closing, rawName] = tag;
    const name = rawName!.toLowerCase();
    at = next + whole.length;
    if (closing === '/') {
      const innermost = open.pop();
      if (innermost !== name) problems.push(`</${name}> at ${next} closes <${innermost ?? 'nothing'}>`);
    } else if (!VOID_ELEMENTS.has(name) && tag[4] !== '/') {
      if (RAW_TEXT_ELEMENTS.has(name)) {
        const end = page.toLowerCase().indexOf(`</${name}`, at);
        if (end < 0) return [...problems, `<${name}> at ${next} is never closed`];
        at = end;
      }
      open.push(name);
    }
  }
  if (open.length > 0) problems.push(`elements never closed: ${open.join(' > ')}`);
  return problems;
}

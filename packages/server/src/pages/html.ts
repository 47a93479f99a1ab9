/**
 * HTML for the server-rendered pages (docs/contributors/decisions.md §4): one tagged template, `html`, through which
 * every page is written. Every interpolated value is escaped by `escapeHtml` unless it is itself the
 * result of `html` (a SafeHtml), so nothing a user typed can become markup. Attribute values are
 * always written double-quoted in the templates; the escaping covers both quote kinds anyway.
 *
 * Escaping does not make a URL safe in `href`: the pages link only to their own paths, and show any
 * user-supplied URL (redirect URIs, webhook URLs) as text.
 */

/** Markup that has already been escaped: the only thing `html` interpolates as is. */
export class SafeHtml {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  toString(): string {
    return this.text;
  }
}

/** What a page template may interpolate; `false`, `null` and `undefined` render as nothing. */
export type HtmlValue = SafeHtml | string | number | false | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  if (value === false || value === null || value === undefined) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, index) => {
    out += render(value) + strings[index + 1]!;
  });
  return new SafeHtml(out);
}

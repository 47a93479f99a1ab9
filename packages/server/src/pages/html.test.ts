import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './html.js';

/** What a browser makes of escaped text (the five entities escapeHtml writes). */
function unescape(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}

describe('html', () => {
  it('escapes interpolated text, also inside attribute values', () => {
    const name = `<img src=x onerror="alert('1')"> & more`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; more">' +
        '&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; more</p>',
    );
  });

  it('nests html fragments as markup, renders lists, and nothing for false, null and undefined', () => {
    const items = ['a<b', 'c'].map((item) => html`<li>${item}</li>`);
    // The exact markup is what is tested; Prettier would lay the template out as HTML.
    // prettier-ignore
    const list = html`<ul>${items}</ul>${false}${null}${undefined}${0}`;
    expect(list.text).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
  });

  it('never lets any text through as markup (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        expect(escaped.replace(/&(amp|lt|gt|quot|#39);/g, '')).not.toContain('&');
        expect(unescape(escaped)).toBe(text);
        expect(html`<td>${text}</td>`.text).toBe(`<td>${escaped}</td>`);
      }),
    );
  });
});

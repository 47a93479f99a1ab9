/**
 * The one layout of the web pages (docs/contributors/decisions.md §4: plain HTML that works without JavaScript): a
 * header saying who is signed in with the sign-out button, the page, and headers that keep the pages
 * out of frames (the consent page must not be clickjacked) and out of caches (some pages show secrets).
 */
import type { FastifyReply } from 'fastify';
import type { UserRow } from '../db/schema.js';
import { csrfField } from './csrf.js';
import { FAVICON_PATH } from './favicon.js';
import { html, SafeHtml } from './html.js';

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** the signed-in user: the header names them and offers to sign out (which needs `csrfToken`) */
  user?: UserRow | undefined;
  csrfToken?: string | undefined;
  /** the navigation entry this page belongs to, marked with aria-current (issue 7) */
  current?: NavSection | undefined;
  /** more markup for <head>: the page's own stylesheets and scripts (dashboard/static-assets.ts) */
  head?: SafeHtml | undefined;
  /**
   * content as wide as the header, for tables and the ride page's map and charts; otherwise the header
   * is the same and the content keeps a reading width (issue 19: one layout for every page)
   */
  wide?: boolean | undefined;
  /** the Content-Security-Policy, when the page needs more than the default (no scripts at all) */
  contentSecurityPolicy?: string | undefined;
}

/** The sections of the signed-in navigation (issue 7). */
export type NavSection = 'overview' | 'rides' | 'routes' | 'sync' | 'preferences' | 'developer';

const NAVIGATION: ReadonlyArray<{ section: NavSection; href: string; label: string }> = [
  { section: 'overview', href: '/dashboard/overview', label: 'Overview' },
  { section: 'rides', href: '/dashboard/rides', label: 'Rides' },
  { section: 'routes', href: '/dashboard/routes', label: 'Routes' },
  { section: 'sync', href: '/dashboard/sync', label: 'Sync' },
  { section: 'preferences', href: '/dashboard/preferences', label: 'Preferences' },
  { section: 'developer', href: '/developer', label: 'Developer settings' },
];

/** No scripts at all (every page but the dashboard's ride and route pages). */
export const DEFAULT_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The fixed stylesheet: a constant of this file, not user input, so it goes in as markup. Names and
 * devices from files may be 255 letters without a space (issue 17): the elements that show them break
 * such a word where it would overflow, so it never widens the page. In a table cell that takes an
 * inline block of bounded width (`.cell-text`): `anywhere` on the cell would let the table squeeze
 * every name of the column mid-word, where `break-word` inside a bounded box breaks only a word
 * longer than the box; so does a file name or path in a table (`td code`), which breaks at its hyphens
 * and slashes like text rather than letter by letter. At phone width (issue 19) the page itself never
 * scrolls sideways: a table wider than the screen becomes a block that scrolls inside itself, its
 * caption and header row with it; it is positioned, so that what is hidden out of sight inside it
 * (`.visually-hidden`, absolutely positioned) scrolls with it instead of widening the page. A table
 * of long texts in few columns (`table.stacked`, the Sync page's) stacks instead: each row a block,
 * each cell on a line of its own after its column's name (`data-label`), its header row read by screen
 * readers only (the table's ARIA roles keep it a table for them, whatever its display); squeezed into
 * the screen, its messages were a letter wide (issue 36). A list of rides or routes (`table.cards`)
 * shows a card per row: its name and box first, then each cell after its column's name, side by side
 * as room allows (issue 40: the date took four lines and the distance was cut off). A table that may
 * scroll inside itself is focusable (`tabindex="0"`), so that a keyboard can scroll it too (issue 40,
 * axe-core's scrollable-region-focusable).
 */
const STYLESHEET = new SafeHtml(`
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 72rem; margin: 0 auto; padding: 0 1rem 3rem; color: #1d1d1f; }
  header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between;
    border-bottom: 1px solid #ddd; padding: .75rem 0; margin-bottom: 1.5rem; }
  header a.brand { font-weight: 700; text-decoration: none; color: inherit; }
  form.inline { display: inline; }
  label { display: block; font-weight: 600; margin-top: .75rem; }
  fieldset label { display: inline; font-weight: 400; margin-right: 1rem; }
  input[type=text], input[type=email], input[type=password], input[type=url], textarea { width: 100%; box-sizing: border-box; padding: .4rem; font: inherit; }
  button { font: inherit; padding: .4rem 1rem; margin-top: 1rem; }
  code, .secret { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
  h1, h2, p, li, dd, caption, header strong { overflow-wrap: anywhere; }
  .cell-text { display: inline-block; max-width: min(20rem, 25vw); overflow-wrap: break-word; }
  td code { display: inline-block; max-width: min(20rem, 60vw); overflow-wrap: break-word; }
  .error { color: #a40000; }
  .hint { margin: .1rem 0 .25rem; font-size: .9rem; color: #4d4d4d; }
  .notice { background: #f3f7ff; border: 1px solid #bcd; padding: .5rem 1rem; }
  .description { white-space: pre-line; }
  a.file-flag { display: block; font-size: .85rem; font-weight: 400; color: #a40000; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #eee; vertical-align: top; }
  th.number, td.number { text-align: right; }
  caption { text-align: left; font-weight: 600; padding: .25rem 0; }
  nav.pager { display: flex; gap: 1.5rem; margin-top: 1rem; }
  main { max-width: 46rem; }
  body.wide main { max-width: none; }
  a { color: #0b57a4; }
  a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible, [tabindex]:focus-visible {
    outline: 3px solid #0b57a4; outline-offset: 2px; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
    clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
  a.cancel { margin-left: 1.5rem; }
  ul.manage { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1.5rem; padding: 0; }
  .skip { position: absolute; left: -999rem; }
  .skip:focus { left: 1rem; top: .5rem; background: #fff; padding: .25rem .5rem; }
  nav.sections ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0; padding: 0; }
  nav.sections a[aria-current=page] { font-weight: 700; color: #1d1d1f; text-decoration-thickness: 3px; }
  @media (max-width: 48rem) {
    table { display: block; overflow-x: auto; position: relative; }
    .cell-text { max-width: 14rem; }
    table.stacked, table.stacked caption, table.stacked tbody, table.stacked tr, table.stacked td { display: block; }
    table.stacked { overflow-x: visible; }
    table.stacked caption { text-align: left; }
    table.stacked thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
    table.stacked tr { padding: .4rem 0; border-bottom: 1px solid #ddd; }
    table.stacked td { border-bottom: none; padding: .1rem 0; }
    table.stacked td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
    table.stacked td.links:not(:has(a)) { display: none; }
    table.stacked .cell-text, table.stacked td code { max-width: 100%; }
    table.cards, table.cards caption, table.cards tbody { display: block; overflow-x: visible; }
    table.cards caption { text-align: left; }
    table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
    table.cards tr { display: flex; flex-wrap: wrap; align-items: baseline; gap: .1rem 1rem; padding: .5rem 0; border-bottom: 1px solid #ddd; }
    table.cards th, table.cards td { display: block; min-width: 0; padding: 0; border-bottom: none; text-align: left; }
    table.cards th[scope=row] { order: -2; flex: 1 1 12rem; }
    table.cards td.choose { order: -1; }
    table.cards td[data-label]::before { content: attr(data-label) ": "; color: #4d4d4d; }
    table.cards .cell-text { max-width: 100%; overflow-wrap: anywhere; }
  }
`);

export function renderPage({ title, body, user, csrfToken, current, head, wide }: PageOptions): string {
  const sections =
    user === undefined
      ? html``
      : html`<nav class="sections" aria-label="Main">
          <ul>
            ${NAVIGATION.map(
              ({ section, href, label }) =>
                html`<li>
                  ${
                    section === current
                      ? html`<a href="${href}" aria-current="page">${label}</a>`
                      : html`<a href="${href}">${label}</a>`
                  }
                </li>`,
            )}
          </ul>
        </nav>`;
  const account =
    user === undefined
      ? html`<a href="/sign_in">Sign in</a>`
      : html`<span>Signed in as <strong>${user.name}</strong></span>
          <form class="inline" method="post" action="/sign_out">
            ${csrfToken === undefined ? '' : csrfField(csrfToken)}
            <button type="submit">Sign out</button>
          </form>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Rideport</title>
        <link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml" />
        <style>
          ${STYLESHEET}
        </style>
        ${head}
      </head>
      <body${wide === true ? html` class="wide"` : ''}>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <a class="brand" href="/">Rideport</a>
          ${sections}
          <div class="account">${account}</div>
        </header>
        <main id="main">${body}</main>
      </body>
    </html> `.text;
}

export function sendPage(reply: FastifyReply, statusCode: number, options: PageOptions): FastifyReply {
  return reply
    .code(statusCode)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      // By default no scripts at all; no form-action either, since approving on the consent page ends
      // in a redirect to the client's site, which some browsers would count against form-action.
      'content-security-policy': options.contentSecurityPolicy ?? DEFAULT_CONTENT_SECURITY_POLICY,
    })
    .send(renderPage(options));
}

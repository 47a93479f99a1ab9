/**
 * The rides list and the routes list (issue 7): 20 a page, with previous/next links. Rides newest
 * departure first, with date, name, distance, duration, elevation gain, device and sync source;
 * routes newest first, with name, distance, elevation gain and creation date. A row whose file had
 * problems says so under its name.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type AssetType,
  csrfToken,
  html,
  PAGE_RANGE,
  type Preferences,
  rideTimeZone,
  type RouteRow,
  type SafeHtml,
  sendPage,
  type ServerContext,
  storedWarnings,
  type TripRow,
  type UserRow,
  wholeNumberOr400,
} from '@rideport/server/web';
import { syncSources, WORDS } from './access.js';
import { changeNotice, deletePath } from './manage.js';
import { SYNC_PAGE } from './sync.js';
import { distance, duration, elevation, UNKNOWN, zonedTime } from './format.js';

export const LIST_PAGE_SIZE = 20;

/** `?page=N`, 1 when absent; anything but a whole number in PAGE_RANGE is a 400 (issue 17). */
export function pageNumber(request: FastifyRequest): number {
  const raw = (request.query as Record<string, unknown> | undefined)?.page;
  return raw === undefined || raw === '' ? 1 : wholeNumberOr400(raw, 'page', PAGE_RANGE, 1);
}

export async function listPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  type: AssetType,
): Promise<FastifyReply> {
  const page = pageNumber(request);
  const words = WORDS[type];
  const { rows, total } = await context.store.assets.listForDashboard(type, user.id, {
    offset: (page - 1) * LIST_PAGE_SIZE,
    limit: LIST_PAGE_SIZE,
  });
  const preferences = await context.store.preferences.get(user.id);
  const pageCount = Math.max(1, Math.ceil(total / LIST_PAGE_SIZE));
  const where = `page ${page} of ${pageCount}`;
  let table: SafeHtml;
  if (total === 0) {
    // Point a new rider to where rides come from (issue 19: "empty lists point to the Sync page").
    table = html`<p>
      You have no ${words.many} yet.
      ${
        type === 'trip'
          ? html`Rides appear here once they are synced from a device or a folder, or uploaded as a file, on
              the <a href="${SYNC_PAGE}">Sync page</a>.`
          : html`Routes appear here when a file without times (a planned GPX route or a KML path) is synced or
              uploaded on the <a href="${SYNC_PAGE}">Sync page</a>.`
      }
    </p>`;
  } else if (rows.length === 0) {
    table = html`<p>
      There are no ${words.many} on this page. <a href="${words.path}">Go to the first page</a>.
    </p>`;
  } else if (type === 'trip') {
    table = ridesTable(
      rows as TripRow[],
      syncSources(
        context,
        rows.map((row) => row.id),
      ),
      where,
      preferences,
    );
  } else {
    table = routesTable(rows, where, preferences);
  }
  return sendPage(reply, 200, {
    title: page === 1 ? words.titles : `${words.titles}, page ${page}`,
    user,
    csrfToken: csrfToken(request, reply),
    current: type === 'trip' ? 'rides' : 'routes',
    wide: true,
    body: html`${changeNotice(request, type)}
      <h1>${words.titles}</h1>
      <p>${total === 1 ? `1 ${words.one}` : `${total} ${words.many}`}${total > 0 && `, ${where}`}.</p>
      ${rows.length === 0 ? table : chooseToDelete(type, table, page)}
      ${pager(words.path, page, pageCount, words.many)}`,
  });
}

/**
 * The list as a form that asks to confirm deleting the rows chosen by their boxes (issue 19); GET, so
 * nothing changes until the confirmation page's POST (manage.ts). It carries the list's page, so that
 * the way back (nothing chosen, or Cancel) is to the same page.
 */
function chooseToDelete(type: AssetType, table: SafeHtml, page: number): SafeHtml {
  const words = WORDS[type];
  return html`<form method="get" action="${deletePath(type)}">
    ${page > 1 && html`<input type="hidden" name="page" value="${page}" />`} ${table}
    <button type="submit">Delete the chosen ${words.many}…</button>
  </form>`;
}

/** The first cell of a row: the box that chooses it for deleting, labelled by the row's name. */
function chooseCell(type: AssetType, row: { id: number; name: string }): SafeHtml {
  return html`<td role="cell" class="choose">
    <input type="checkbox" name="id" value="${row.id}" aria-label="Choose ${WORDS[type].one} ${row.name}" />
  </td>`;
}

function ridesTable(
  rows: readonly TripRow[],
  sources: Map<number, string>,
  where: string,
  { units, timeZone }: Preferences,
): SafeHtml {
  return cardsTable(
    `Your rides, newest first (${where})`,
    [
      ['Date'],
      ['Name'],
      ['Distance', 'number'],
      ['Duration', 'number'],
      ['Elevation gain', 'number'],
      ['Device'],
      ['Sync source'],
    ],
    rows.map(
      (row) =>
        html`<tr role="row">
          ${chooseCell('trip', row)}
          <td role="cell" data-label="Date">${dateCell(row.departed_at, rideTimeZone(row, timeZone))}</td>
          ${nameCell('trip', row)}
          <td role="cell" class="number" data-label="Distance">${distance(row.distance, units)}</td>
          <td role="cell" class="number" data-label="Duration">${duration(row.duration)}</td>
          <td role="cell" class="number" data-label="Elevation gain">
            ${elevation(row.elevation_gain, units)}
          </td>
          <td role="cell" data-label="Device"><span class="cell-text">${row.device ?? UNKNOWN}</span></td>
          <td role="cell" data-label="Sync source">${sources.get(row.id) ?? UNKNOWN}</td>
        </tr>`,
    ),
  );
}

function routesTable(rows: readonly RouteRow[], where: string, { units, timeZone }: Preferences): SafeHtml {
  return cardsTable(
    `Your routes, newest first (${where})`,
    [['Added'], ['Name'], ['Distance', 'number'], ['Elevation gain', 'number'], ['Points', 'number']],
    rows.map(
      (row) =>
        html`<tr role="row">
          ${chooseCell('route', row)}
          <td role="cell" data-label="Added">${dateCell(row.created_at, timeZone ?? 'UTC')}</td>
          ${nameCell('route', row)}
          <td role="cell" class="number" data-label="Distance">${distance(row.distance, units)}</td>
          <td role="cell" class="number" data-label="Elevation gain">
            ${elevation(row.elevation_gain, units)}
          </td>
          <td role="cell" class="number" data-label="Points">${row.point_count}</td>
        </tr>`,
    ),
  );
}

/**
 * A list's table: a column to choose rows by, then `columns` (a name, and `number` for figures); a
 * card per row at phone width (`table.cards`, pages/layout.ts), whose ARIA roles keep it a table
 * whatever its display.
 */
function cardsTable(
  caption: string,
  columns: ReadonlyArray<readonly [name: string, kind?: 'number']>,
  rows: readonly SafeHtml[],
): SafeHtml {
  return html`<table class="assets cards" role="table">
    <caption>
      ${caption}
    </caption>
    <thead role="rowgroup">
      <tr role="row">
        <th scope="col" role="columnheader"><span class="visually-hidden">Choose</span></th>
        ${columns.map(([name, kind]) =>
          kind === 'number'
            ? html`<th scope="col" role="columnheader" class="number">${name}</th>`
            : html`<th scope="col" role="columnheader">${name}</th>`,
        )}
      </tr>
    </thead>
    <tbody role="rowgroup">
      ${rows}
    </tbody>
  </table>`;
}

/**
 * The row's name, linked to its page; flagged when its file was damaged or cut off, as its page says
 * at the top (issue 40: the lists did not say so). The flag links to the page's notice.
 */
function nameCell(type: AssetType, row: RouteRow | TripRow): SafeHtml {
  const path = `${WORDS[type].path}/${row.id}`;
  const problems = storedWarnings(row.warnings).length;
  return html`<th scope="row" role="rowheader">
    <a class="cell-text" href="${path}">${row.name}</a>
    ${
      problems > 0 &&
      html`<a class="file-flag" href="${path}#file-notice-heading"
        >${problems === 1 ? 'A problem with the file' : `${problems} problems with the file`}</a
      >`
    }
  </th>`;
}

/** A ride's start in its zone, a route's creation in the rider's; each says its zone (issue 19). */
function dateCell(milliseconds: number | null, timeZone: string): SafeHtml | string {
  return milliseconds === null ? UNKNOWN : zonedTime(milliseconds, timeZone);
}

function pager(path: string, page: number, pageCount: number, many: string): SafeHtml {
  if (pageCount <= 1 && page === 1) return html``;
  return html`<nav class="pager" aria-label="Pages of ${many}">
    ${page > 1 && html`<a rel="prev" href="${path}?page=${Math.min(page - 1, pageCount)}">Previous page</a>`}
    ${page < pageCount && html`<a rel="next" href="${path}?page=${page + 1}">Next page</a>`}
  </nav>`;
}

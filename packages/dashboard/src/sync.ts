/**
 * The dashboard's sync page (issue 7, "Sync status page"): the host's sync engine as the server sees
 * it through LocalSync (api/v1/local-sync.ts): its state, sources, counts and per-ride history, with
 * "Sync now", pause and resume, retry, the first-run import question and "Add folder"; and, for every
 * signed-in user, "Upload a ride file" through the same upload queue as POST /trips.json.
 *
 * Plain HTML that works without JavaScript (docs/contributors/decisions.md §4): every button is a POST form with the
 * CSRF token that answers with a redirect back (303). live.js (sync-live.ts) refreshes the status
 * every 2 s from status.json and announces changes in an aria-live region.
 *
 * Only the account the engine uploads as (localSync.userId) sees and steers it, as over the API;
 * anyone else, and every user of a server without an engine, gets the upload form and a word on where
 * sync runs.
 *
 * Routes:
 *   GET  /dashboard/sync                 the page; ?task=<id> shows that upload's task
 *   GET  /dashboard/sync/status.json     the live part and the task, for live.js (session-authenticated)
 *   GET  /dashboard/sync/live.js         the enhancement script
 *   POST /dashboard/sync/now | /pause | /resume
 *   POST /dashboard/sync/retry           sha256=<hex> or sha256=all
 *   POST /dashboard/sync/import          source_id, window=all|new|days, days
 *   POST /dashboard/sync/folders         path, window=all|new|days, days
 *   GET  /dashboard/sync/remove          ?source_id=<id>: asks, in words, before a folder is removed
 *                                        or a device forgotten (issue 19)
 *   POST /dashboard/sync/remove          source_id
 *   POST /dashboard/sync/restore         source_id: a removed folder or forgotten device synced again
 *   POST /dashboard/sync/upload          multipart: _csrf, then one file or several (issue 40)
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  badRequest,
  csrfField,
  csrfToken,
  forbidden,
  FormFields,
  html,
  idParameter,
  inWords,
  isTooLong,
  type LocalSync,
  type LocalSyncStatus,
  notFound,
  type PluginOptions,
  redirectToSignIn,
  SafeHtml,
  sendPage,
  type ServerContext,
  signedInUser,
  storeUpload,
  type TaskObjectRecord,
  type TaskStatusRow,
  TEXT_MAX_CHARS,
  uploadIntake,
  type UserRow,
  wholeNumberOr400,
} from '@rideport/server/web';
import { zonedTime } from './format.js';
import { rideLinks } from './ride-links.js';
import { LIVE_SCRIPT } from './sync-live.js';

export const SYNC_PAGE = '/dashboard/sync';

/**
 * The page's Content-Security-Policy: layout.ts's, plus this origin's scripts (live.js) and fetches
 * (status.json). Forms only post to this site.
 */
const SYNC_PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * The file types the upload form offers: what ridefile reads, gzip-compressed too, KMZ (issue 20), and
 * ZIP archives of them, which the server has taken since issue 20 (the picker hid them, issue 40).
 */
const UPLOAD_ACCEPT = '.fit,.tcx,.gpx,.kml,.kmz,.gz,.zip';

/**
 * The most files one upload form carries (issue 40: several at once). Together they count against the
 * one upload limit; more is refused in words that suggest a ZIP archive, which holds up to 10,000.
 */
export const MAX_FILES_PER_FORM = 100;

/** The largest "last N days" answer (the engine's window text allows five digits). */
const MAX_IMPORT_DAYS = 99_999;

// The engine's status, as LocalSync declares it (api/v1/local-sync.ts).

type ShownStatus = LocalSyncStatus;
type ShownState = LocalSyncStatus['state'];
type ShownSource = LocalSyncStatus['sources'][number];

// ---------------------------------------------------------------------------------------------------
// Rendering

/** Notices after a redirect, by a fixed key (the query never carries text to show). */
const NOTICES: Record<string, string> = {
  now: 'A sync pass has started.',
  paused: 'Uploads are paused. Files are still collected and wait until you resume.',
  resumed: 'Uploads have resumed.',
  retried: 'The ride is queued to be uploaded again.',
  'retried-all': 'Every failed ride is queued to be uploaded again.',
  'nothing-to-retry': 'There was no failed ride to retry.',
  imported: 'The source will be imported as you chose.',
  'folder-added': 'The folder was added.',
  'folder-removed':
    'The folder was removed: it is not synced any more. The rides synced from it stay on your dashboard.',
  'device-forgotten':
    'The device was forgotten: it is not synced when it is plugged in. The rides synced from it stay on your dashboard.',
  restored: 'The source is synced again. Files it synced before are not uploaded again.',
};

/**
 * A time of the engine's (ISO text or Unix milliseconds) in the rider's zone, saying it (issue 40: the
 * page was in UTC while the rider had a zone).
 */
function at(time: string | number, zone: string): SafeHtml {
  const milliseconds = typeof time === 'string' ? Date.parse(time) : time;
  return Number.isFinite(milliseconds) ? zonedTime(milliseconds, zone, { seconds: true }) : html``;
}

/** The zone the rider chose, UTC when none. */
async function riderZone(context: ServerContext, user: UserRow): Promise<string> {
  return (await context.store.preferences.get(user.id)).timeZone ?? 'UTC';
}

/** The state in words (also what live.js announces when it changes). */
export function stateText(state: ShownState): string {
  switch (state.kind) {
    case 'idle':
      return 'Idle';
    case 'syncing':
      return `Syncing ${state.done} of ${state.total}`;
    case 'needs-sign-in':
      return 'Needs sign-in';
    case 'offline':
      return 'Offline';
    case 'server-full':
      return 'Server disk full';
    case 'disk-full':
      return 'Disk full';
    case 'paused':
      return 'Paused';
  }
}

function stateDetail(state: ShownState, zone: string): SafeHtml {
  switch (state.kind) {
    case 'idle':
      // Of the engine only: an upload made on this page has its own status above (issue 40: "Reading
      // the file (10%)" stood over "Nothing is being uploaded").
      return html`<p>No file from your devices or folders is waiting to be uploaded.</p>`;
    case 'syncing':
      return html`<p>
        <label for="sync-progress">Uploaded ${state.done} of ${state.total}</label>
        <progress id="sync-progress" max="${Math.max(state.total, 1)}" value="${state.done}">
          ${state.done} of ${state.total}
        </progress>
      </p>`;
    case 'needs-sign-in':
      return html`<p class="error">
        The server refused this desktop's sign-in: ${state.message}. Files keep being collected; uploads wait
        until it is signed in again.
      </p>`;
    case 'offline':
      return html`<p class="error">
        The server cannot be reached: ${state.message}. Next try at ${at(state.retryAtMs, zone)}, or press
        "Sync now".
      </p>`;
    case 'server-full':
      return html`<p class="error">
        The server cannot store rides now: ${state.message}. Nothing has failed: files keep being collected
        and wait in the inbox. Next try at ${at(state.retryAtMs, zone)}, or press "Sync now" once space is
        freed.
      </p>`;
    case 'disk-full':
      return html`<p class="error">
        Rides cannot be collected or recorded now: ${state.message}. Nothing has failed: files stay where they
        are and queued rides stay queued. Next try at ${at(state.retryAtMs, zone)}, or press "Sync now" once
        space is freed.
      </p>`;
    case 'paused':
      return html`<p>Uploads are paused. Files are still collected and wait until you resume.</p>`;
  }
}

/** A one-button POST form. `focus` names the button for live.js, which gives focus back after a refresh. */
function button(
  token: string,
  action: string,
  label: string,
  options: { focus: string; fields?: Record<string, string>; ariaLabel?: string },
): SafeHtml {
  return html`<form class="inline" method="post" action="${SYNC_PAGE}/${action}">
    ${csrfField(token)}
    ${Object.entries(options.fields ?? {}).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    )}
    <button
      type="submit"
      data-focus="${options.focus}"
      ${options.ariaLabel === undefined ? '' : html`aria-label="${options.ariaLabel}"`}
    >
      ${label}
    </button>
  </form>`;
}

/** The "how far back to import" choice, for a source or a new folder; `id` keeps labels unique. */
function windowChoice(id: string, legend: string): SafeHtml {
  return html`<fieldset>
    <legend>${legend}</legend>
    <input type="radio" id="${id}-all" name="window" value="all" checked />
    <label for="${id}-all">All rides</label>
    <input type="radio" id="${id}-new" name="window" value="new" />
    <label for="${id}-new">Only new rides (nothing before now)</label>
    <input type="radio" id="${id}-days" name="window" value="days" />
    <label for="${id}-days">The last</label>
    <input
      type="number"
      id="${id}-days-count"
      name="days"
      min="1"
      max="${MAX_IMPORT_DAYS}"
      value="30"
      aria-label="Number of days"
    />
    <label for="${id}-days-count">days</label>
  </fieldset>`;
}

function sourcesSection(token: string, status: ShownStatus): SafeHtml {
  return html`<section aria-labelledby="sync-sources-heading">
    <h2 id="sync-sources-heading">Sources</h2>
    ${
      status.sources.length === 0
        ? (status.removedSources ?? []).length === 0
          ? html`<p>No folders or devices yet. Plug in a GPS device, or add a folder below.</p>`
          : html`<p>No folder or device is synced now. Add a folder below, or sync a removed one again.</p>`
        : html`<table class="stacked" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Source</th>
                <th scope="col" role="columnheader">Kind</th>
                <th scope="col" role="columnheader">Present</th>
                <th scope="col" role="columnheader"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              ${status.sources.map(
                (source) =>
                  html`<tr role="row">
                    <td role="cell" data-label="Source"><code>${source.label}</code></td>
                    <td role="cell" data-label="Kind">${source.kind === 'device' ? 'Device' : 'Folder'}</td>
                    <td role="cell" data-label="Present">${source.present ? 'Present' : 'Not present'}</td>
                    <td role="cell">
                      <a
                        href="${SYNC_PAGE}/remove?source_id=${encodeURIComponent(source.id)}"
                        data-focus="remove:${source.id}"
                        aria-label="${removeWords(source).verb} ${source.label}"
                        >${removeWords(source).verb}</a
                      >
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${removedSection(token, status.removedSources ?? [])}
    ${status.sources
      .filter((source) => source.awaitingImportChoice)
      .map((source, index) => {
        const id = `import-${index + 1}`;
        return html`<form method="post" action="${SYNC_PAGE}/import" class="import-choice">
          ${csrfField(token)}
          <input type="hidden" name="source_id" value="${source.id}" />
          ${windowChoice(id, `How far back should the first sync of ${source.label} go?`)}
          <button type="submit" data-focus="import:${source.id}">Import from ${source.label}</button>
        </form>`;
      })}
  </section>`;
}

/** Every source's label by id, removed ones too: their rides stay in the history (issue 19). */
function sourceLabels(status: ShownStatus): Map<string, string> {
  return new Map(
    [...status.sources, ...(status.removedSources ?? [])].map((source) => [source.id, source.label]),
  );
}

/** "Remove" a folder, "Forget" a device (issue 19), and what that does, in words. */
function removeWords(source: ShownSource): { verb: string; title: string; consequence: string } {
  if (source.kind === 'device') {
    return {
      verb: 'Forget',
      title: 'Forget this device?',
      consequence:
        'It will not be synced when it is plugged in, until you choose "Sync again" for it on the Sync page.',
    };
  }
  return {
    verb: 'Remove',
    title: 'Stop syncing this folder?',
    consequence:
      'Rideport stops looking in it; files still being copied into it are not uploaded. Add it again on the Sync page to sync it again.',
  };
}

/** Removed folders and forgotten devices (issue 19), each with "Sync again". */
function removedSection(token: string, removed: readonly ShownSource[]): SafeHtml | string {
  if (removed.length === 0) return '';
  return html`<h3 id="sync-removed-heading">Removed folders and forgotten devices</h3>
    <p>These are not synced. The rides synced from them stay on your dashboard.</p>
    <ul class="removed-sources" aria-labelledby="sync-removed-heading">
      ${removed.map(
        (source) =>
          html`<li>
            ${source.kind === 'device' ? 'Device' : 'Folder'} <code>${source.label}</code>
            ${button(token, 'restore', 'Sync again', {
              focus: `restore:${source.id}`,
              fields: { source_id: source.id },
              ariaLabel: `Sync ${source.label} again`,
            })}
          </li>`,
      )}
    </ul>`;
}

const COUNT_LABELS: ReadonlyArray<[keyof ShownStatus['counts'], string]> = [
  ['found', 'Found'],
  ['waiting', 'Not complete yet'],
  ['queued', 'Queued'],
  ['uploading', 'Uploading'],
  ['synced', 'Synced'],
  ['failed', 'Failed'],
];

const RIDE_STATES: Record<string, string> = {
  queued: 'Queued',
  uploading: 'Uploading',
  synced: 'Synced',
  failed: 'Failed',
};

/** The names of the rides the history links to, by id (rides deleted since are left out). */
type RideNames = ReadonlyMap<number, string>;

async function historyRideNames(context: ServerContext, status: ShownStatus): Promise<RideNames> {
  const ids = status.recent.filter((ride) => ride.duplicate).flatMap((ride) => ride.tripIds);
  return context.store.assets.names('trip', ids);
}

/**
 * What the history says of a ride (issue 16): the server's message, except for a file the server had
 * already, which reads "Already on the platform as <ride>" with a link to that ride under its name now.
 * The server's own words follow when they say more (the file completed a cut-off copy, the same bytes
 * were sent before, the ride was renamed since).
 */
function historyMessage(ride: ShownStatus['recent'][number], names: RideNames): SafeHtml | string | null {
  const named = ride.tripIds.flatMap((id) => {
    const name = names.get(id);
    return name === undefined ? [] : [{ id, name }];
  });
  if (!ride.duplicate || named.length === 0) return ride.message;
  const sentence = `Already on the platform as ${inWords(named.map((each) => each.name))}`;
  return html`Already on the platform as
  ${rideLinks(named)}${
    ride.message !== null && ride.message !== sentence && html`<br /><small>${ride.message}</small>`
  }`;
}

function historySection(token: string, status: ShownStatus, names: RideNames): SafeHtml {
  const labels = sourceLabels(status);
  return html`<section aria-labelledby="sync-history-heading">
    <h2 id="sync-history-heading">History</h2>
    ${
      status.recent.length === 0
        ? html`<p>No rides found yet.</p>`
        : html`<table id="sync-history" class="stacked" role="table">
            <caption>
              The most recently changed rides, newest first
            </caption>
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">File</th>
                <th scope="col" role="columnheader">Source</th>
                <th scope="col" role="columnheader">State</th>
                <th scope="col" role="columnheader">Server's message</th>
                <th scope="col" role="columnheader">On the dashboard</th>
                <th scope="col" role="columnheader"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              ${status.recent.map(
                (ride) =>
                  html`<tr role="row" class="ride-${ride.state}" data-sha256="${ride.sha256}">
                    <td role="cell" data-label="File"><code>${ride.filename}</code></td>
                    <td role="cell" data-label="Source">
                      <span class="cell-text">${labels.get(ride.sourceId) ?? ride.sourceId}</span>
                    </td>
                    <td role="cell" class="state" data-label="State">
                      ${RIDE_STATES[ride.state] ?? ride.state}
                      ${ride.attempts > 1 ? html`<br /><small>${ride.attempts} attempts</small>` : ''}
                    </td>
                    <td
                      role="cell"
                      class="${ride.state === 'failed' ? 'error' : ''}"
                      data-label="Server's message"
                    >
                      ${historyMessage(ride, names)}
                    </td>
                    <td role="cell" class="links" data-label="On the dashboard">
                      ${ride.tripIds.map(
                        (id) =>
                          html`<a href="/dashboard/rides/${id}" data-focus="ride:${id}">Ride ${id}</a> `,
                      )}
                      ${ride.routeIds.map(
                        (id) =>
                          html`<a href="/dashboard/routes/${id}" data-focus="route:${id}">Route ${id}</a> `,
                      )}
                    </td>
                    <td role="cell">
                      ${
                        ride.state === 'failed' &&
                        button(token, 'retry', 'Retry', {
                          focus: `retry:${ride.sha256}`,
                          fields: { sha256: ride.sha256 },
                          ariaLabel: `Retry ${ride.filename}`,
                        })
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

/** The part of the page live.js refreshes; `names`: historyRideNames. */
export function liveFragment(token: string, status: ShownStatus, names: RideNames, zone: string): SafeHtml {
  const paused = status.state.kind === 'paused';
  return html`<section aria-labelledby="sync-state-heading">
      <h2 id="sync-state-heading">
        Devices and folders: <span id="sync-state">${stateText(status.state)}</span>
      </h2>
      ${stateDetail(status.state, zone)}
      ${status.lastPassAt === null ? '' : html`<p>Last looked for rides at ${at(status.lastPassAt, zone)}.</p>`}
      <div class="controls">
        ${button(token, 'now', 'Sync now', { focus: 'now' })}
        ${
          paused
            ? button(token, 'resume', 'Resume', { focus: 'pause' })
            : button(token, 'pause', 'Pause', { focus: 'pause' })
        }
        ${button(token, 'retry', 'Retry all failed', { focus: 'retry-all', fields: { sha256: 'all' } })}
      </div>
    </section>
    ${sourcesSection(token, status)}
    <section aria-labelledby="sync-counts-heading">
      <h2 id="sync-counts-heading">Counts</h2>
      <dl class="counts">
        ${COUNT_LABELS.map(
          ([key, label]) =>
            html`<div>
              <dt>${label}</dt>
              <dd>${status.counts[key]}</dd>
            </div>`,
        )}
      </dl>
    </section>
    ${waitingSection(status, zone)} ${historySection(token, status, names)} ${copiesSection(status)}`;
}

/**
 * Byte-identical copies of rides (issue 35: they were skipped without a word): each said once, with
 * the file it is the same as, as the history says a ride the server had already.
 */
function copiesSection(status: ShownStatus): SafeHtml | string {
  const copies = status.copies ?? [];
  if (copies.length === 0) return '';
  const labels = sourceLabels(status);
  return html`<section aria-labelledby="sync-copies-heading">
    <h2 id="sync-copies-heading">Copies not uploaded again</h2>
    <p>These files have the same bytes as a ride found before: that ride is uploaded once.</p>
    <table id="sync-copies" class="stacked" role="table">
      <thead role="rowgroup">
        <tr role="row">
          <th scope="col" role="columnheader">File</th>
          <th scope="col" role="columnheader">Source</th>
          <th scope="col" role="columnheader">The same as</th>
          <th scope="col" role="columnheader">On the dashboard</th>
        </tr>
      </thead>
      <tbody role="rowgroup">
        ${copies.map(
          (copy) =>
            html`<tr role="row">
              <td role="cell" data-label="File"><code>${copy.relativePath}</code></td>
              <td role="cell" data-label="Source">${labels.get(copy.sourceId) ?? copy.sourceId}</td>
              <td role="cell" data-label="The same as"><code>${copy.sameAs.relativePath}</code></td>
              <td role="cell" class="links" data-label="On the dashboard">
                ${copy.sameAs.tripIds.map((id) => html`<a href="/dashboard/rides/${id}">Ride ${id}</a> `)}
                ${copy.sameAs.routeIds.map((id) => html`<a href="/dashboard/routes/${id}">Route ${id}</a> `)}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/**
 * The files that are not whole yet, why, and until when they wait (issue 20: a file waiting up to 2
 * minutes said nothing of why or for how long).
 */
function waitingSection(status: ShownStatus, zone: string): SafeHtml | string {
  const files = status.waitingFiles ?? [];
  if (files.length === 0) return '';
  const labels = sourceLabels(status);
  const more = status.counts.waiting - files.length;
  return html`<section aria-labelledby="sync-waiting-heading">
    <h2 id="sync-waiting-heading">Not complete yet</h2>
    <p>
      These files are not whole yet: still being copied, or cut off. Each is uploaded as soon as it is whole,
      or as it is once it has not changed for 2 minutes.
    </p>
    <table class="stacked" role="table">
      <thead role="rowgroup">
        <tr role="row">
          <th scope="col" role="columnheader">File</th>
          <th scope="col" role="columnheader">Source</th>
          <th scope="col" role="columnheader">Why it waits</th>
          <th scope="col" role="columnheader">Taken as it is at</th>
        </tr>
      </thead>
      <tbody role="rowgroup">
        ${files.map(
          (file) =>
            html`<tr role="row">
              <td role="cell" data-label="File"><code>${file.relativePath}</code></td>
              <td role="cell" data-label="Source">${labels.get(file.sourceId) ?? file.sourceId}</td>
              <td role="cell" data-label="Why it waits">${file.reason}</td>
              <td role="cell" data-label="Taken as it is at">${at(file.takenBy, zone)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${more > 0 ? html`<p>And ${more} more.</p>` : ''}
  </section>`;
}

interface TaskView {
  id: number;
  ended: boolean;
  html: SafeHtml;
  /** the task in one line, for the list of the uploads of one form */
  line: SafeHtml;
  /** waiting, stored (ended well, a duplicate included) or failed: for the list's count */
  outcome: 'waiting' | 'stored' | 'failed';
  announce: string;
}

/**
 * The user's upload tasks among `taskIds`, in that order (others' and purged tasks are left out): two
 * queries however many there are, the statuses and the rides and routes of those that ended.
 */
async function taskViews(context: ServerContext, user: UserRow, taskIds: number[]): Promise<TaskView[]> {
  const rows = new Map((await context.store.tasks.statuses(user.id, taskIds)).map((row) => [row.id, row]));
  const ended = [...rows.values()].filter((row) => row.status !== 0).map((row) => row.id);
  const objects = new Map<number, TaskObjectRecord[]>();
  for (const object of await context.store.tasks.objectRecords(ended)) {
    objects.set(object.taskId, [...(objects.get(object.taskId) ?? []), object]);
  }
  return taskIds.flatMap((id) => {
    const row = rows.get(id);
    return row === undefined ? [] : [taskView(row, objects.get(id) ?? [])];
  });
}

/** The upload task of `?task=<id>`, if it is the user's (others' and purged tasks: undefined). */
async function oneTaskView(
  context: ServerContext,
  user: UserRow,
  taskId: number,
): Promise<TaskView | undefined> {
  return (await taskViews(context, user, [taskId]))[0];
}

function taskView(row: TaskStatusRow, objects: readonly TaskObjectRecord[]): TaskView {
  const ended = row.status !== 0;
  const links = objects.map((object) =>
    object.type === 'trip'
      ? html`<a href="/dashboard/rides/${object.id}">Ride ${object.id}</a> `
      : html`<a href="/dashboard/routes/${object.id}">Route ${object.id}</a> `,
  );
  const name = row.filename === null ? '' : html` (<code>${row.filename}</code>)`;
  if (row.status === 0) {
    return {
      id: row.id,
      ended,
      outcome: 'waiting',
      announce: `Upload ${row.id}: ${row.message}`,
      html: html`<p>Upload ${row.id}: ${row.message} (${row.progress}%).</p>
        <p><a href="${SYNC_PAGE}?task=${row.id}">Check again</a></p>`,
      line: html`Upload ${row.id}${name}: ${row.message} (${row.progress}%).`,
    };
  }
  if (row.status === -1) {
    return {
      id: row.id,
      ended,
      outcome: 'failed',
      announce: `Upload ${row.id} failed: ${row.message}`,
      html: html`<p class="error">Upload ${row.id} failed: ${row.message}</p>`,
      line: html`<span class="error">Upload ${row.id}${name} failed: ${row.message}</span>`,
    };
  }
  return {
    id: row.id,
    ended,
    outcome: 'stored',
    announce: `Upload ${row.id}: ${row.message}`,
    html: html`<p class="task-done">Upload ${row.id}: ${row.message}. ${links}</p>`,
    line: html`Upload ${row.id}${name}: ${row.message}. ${links}`,
  };
}

/** The engine the user may see and steer, or null (no engine here, or it syncs as someone else). */
function ownedSync(context: ServerContext, user: UserRow): LocalSync | null {
  const sync = context.options.localSync;
  return sync !== null && sync.userId === user.id ? sync : null;
}

function steeredSync(context: ServerContext, user: UserRow): LocalSync {
  const sync = ownedSync(context, user);
  if (sync === null) {
    throw forbidden(
      context.options.localSync === null
        ? 'Sync does not run in this server: it runs in the Rideport desktop app, or with `rideport up`.'
        : 'Only the account this desktop syncs as may steer its sync.',
    );
  }
  return sync;
}

const PAGE_STYLE = new SafeHtml(`<style>
  .controls { display: flex; flex-wrap: wrap; gap: .5rem; }
  .controls button, td button { margin-top: .25rem; }
  dl.counts { display: flex; flex-wrap: wrap; gap: 1rem 2rem; }
  dl.counts dt { font-weight: 600; } dl.counts dd { margin: 0; }
  progress { width: 100%; height: 1.25rem; }
  fieldset { margin-top: .75rem; }
  fieldset input[type=number] { width: 6rem; }
  tr.ride-failed td.state { color: #a40000; font-weight: 600; }
</style>`);

function uploadSection(token: string): SafeHtml {
  return html`<section aria-labelledby="upload-heading">
    <h2 id="upload-heading">Upload ride files</h2>
    <form method="post" action="${SYNC_PAGE}/upload" enctype="multipart/form-data">
      ${csrfField(token)}
      <label for="upload-file">Ride files</label>
      <p class="hint" id="upload-file-hint">
        FIT, TCX, GPX, KML or KMZ, also gzip-compressed, and ZIP archives of them; up to ${MAX_FILES_PER_FORM}
        files at once.
      </p>
      <input
        type="file"
        id="upload-file"
        name="file"
        accept="${UPLOAD_ACCEPT}"
        multiple
        required
        aria-describedby="upload-file-hint"
      />
      <button type="submit" data-focus="upload">Upload</button>
    </form>
  </section>`;
}

function addFolderSection(token: string): SafeHtml {
  return html`<section aria-labelledby="add-folder-heading">
    <h2 id="add-folder-heading">Add a folder</h2>
    <form method="post" action="${SYNC_PAGE}/folders">
      ${csrfField(token)}
      <label for="folder-path">Folder (absolute path on this computer)</label>
      <input type="text" id="folder-path" name="path" required autocomplete="off" />
      ${windowChoice('folder', 'How far back should its first sync go?')}
      <button type="submit">Add folder</button>
    </form>
  </section>`;
}

/** `?task=N` after an upload through the page: absent, or a task id (else 400 in words, issue 17). */
function uploadTaskId(request: FastifyRequest): number | undefined {
  const raw = (request.query as Record<string, unknown> | undefined)?.task;
  return raw === undefined || raw === '' ? undefined : idParameter(request.query, 'task', 'task');
}

/** The most uploads of one form the page lists (issue 20); the rest are on the Rides page. */
const MAX_LISTED_UPLOADS = 50;

/** The uploads of one form the page lists (a ZIP, issue 20; several files, issue 40). */
interface ListedUploads {
  /** the first MAX_LISTED_UPLOADS tasks */
  ids: number[];
  /** the tasks beyond them */
  more: number;
  /** the archives' entries that were not ride files */
  skipped: number;
  /** the files the form carried: 1 for one ZIP */
  files: number;
}

/**
 * After a ZIP or several files uploaded through the page: `?task=A,B,…` (the first MAX_LISTED_UPLOADS
 * tasks), `more=`, `skipped=` and `files=` as ListedUploads says (each 0, or 1 for files, when
 * absent). Undefined unless `task` lists more than one id; 400 in words when it is not a list of ids.
 */
function listedUploads(request: FastifyRequest): ListedUploads | undefined {
  const query = (request.query as Record<string, unknown> | undefined) ?? {};
  const raw = query['task'];
  if (typeof raw !== 'string' || !raw.includes(',')) return undefined;
  const parts = raw.split(',');
  if (parts.length > MAX_LISTED_UPLOADS) {
    throw badRequest(`task lists at most ${MAX_LISTED_UPLOADS} uploads, separated by commas`);
  }
  const ids = parts.map((part) => idParameter({ task: part }, 'task', 'each upload in task'));
  const count = (name: string, absent: number): number =>
    query[name] === undefined ? absent : wholeNumberOr400(query[name], name, COUNT_RANGE);
  return { ids, more: count('more', 0), skipped: count('skipped', 0), files: count('files', 1) };
}

const COUNT_RANGE = { min: 0, max: 1_000_000 };

/** "1 ride file", "3 ride files". */
const rideFiles = (count: number): string => `${count} ride file${count === 1 ? '' : 's'}`;

/** The uploads of one form, each in a line, with how many are stored, waiting and failed. */
async function listedUploadsSection(
  context: ServerContext,
  user: UserRow,
  listed: ListedUploads,
): Promise<SafeHtml> {
  const { ids, more, skipped, files } = listed;
  const views = await taskViews(context, user, ids);
  const tally = (outcome: TaskView['outcome']) => views.filter((view) => view.outcome === outcome).length;
  const waiting = tally('waiting');
  const rides = ids.length + more;
  const counts = [
    `${tally('stored')} done`,
    ...(waiting > 0 ? [`${waiting} waiting`] : []),
    ...(tally('failed') > 0 ? [`${tally('failed')} failed`] : []),
  ];
  const others = skipped > 0 ? `; ${skipped} other ${skipped === 1 ? 'file was' : 'files were'} skipped` : '';
  const sent =
    files > 1 ? `You sent ${files} files: ${rideFiles(rides)}` : `The archive holds ${rideFiles(rides)}`;
  return html`<section aria-labelledby="upload-task-heading">
    <h2 id="upload-task-heading">Your uploads</h2>
    <p id="upload-archive">
      ${sent}${others}. ${more > 0 ? `The first ${ids.length}: ` : ''}${counts.join(', ')}.
    </p>
    <ul id="upload-tasks">
      ${views.map((view) => html`<li data-task="${view.id}">${view.line}</li>`)}
    </ul>
    ${
      views.length < ids.length &&
      html`<p>
        ${ids.length - views.length} of them are no longer known (finished uploads are forgotten after a
        while).
      </p>`
    }
    ${more > 0 && html`<p>The other ${more} are read in turn: see them on the <a href="/dashboard/rides">Rides</a> page.</p>`}
    ${waiting > 0 && html`<p><a href="${SYNC_PAGE}?${listedQuery(listed).toString()}">Check again</a></p>`}
  </section>`;
}

/** The query of the page that lists the uploads of one form. */
function listedQuery({ ids, more, skipped, files }: ListedUploads): URLSearchParams {
  return new URLSearchParams({
    task: ids.join(','),
    ...(more > 0 ? { more: String(more) } : {}),
    ...(skipped > 0 ? { skipped: String(skipped) } : {}),
    ...(files > 1 ? { files: String(files) } : {}),
  });
}

async function syncPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
): Promise<FastifyReply> {
  const token = csrfToken(request, reply);
  const query = new FormFields(request.query);
  const notice = NOTICES[query.text('notice')];
  const listed = listedUploads(request);
  const taskId = listed === undefined ? uploadTaskId(request) : undefined;
  const task = taskId === undefined ? undefined : await oneTaskView(context, user, taskId);
  const sync = ownedSync(context, user);
  const status = sync === null ? null : sync.status();
  const zone = await riderZone(context, user);
  const body = html`<h1>Sync</h1>
    ${notice === undefined ? '' : html`<p class="notice" role="status">${notice}</p>`}
    ${listed !== undefined && (await listedUploadsSection(context, user, listed))}
    ${
      taskId !== undefined &&
      html`<section aria-labelledby="upload-task-heading">
        <h2 id="upload-task-heading">Your upload</h2>
        ${
          task === undefined
            ? html`<p class="error">
                There is no such upload (finished uploads are forgotten after a while).
              </p>`
            : html`<div
                id="upload-task"
                data-task="${task.id}"
                data-ended="${String(task.ended)}"
                data-announce="${task.announce}"
              >
                ${task.html}
              </div>`
        }
      </section>`
    }
    ${
      status === null
        ? html`<p id="sync-elsewhere">
            Syncing GPS devices and folders runs in the Rideport desktop app, or with
            <code>rideport up</code> on the computer they are plugged into; open the dashboard from there to
            see it. You can upload a ride file here.
          </p>`
        : html`<div id="sync-live" data-announce="${stateText(status.state)}">
              ${liveFragment(token, status, await historyRideNames(context, status), zone)}
            </div>
            ${addFolderSection(token)}`
    }
    ${uploadSection(token)}
    <p id="sync-announce" class="visually-hidden" role="status" aria-live="polite"></p>`;
  return sendPage(reply, 200, {
    title: 'Sync',
    body,
    user,
    csrfToken: token,
    current: 'sync',
    wide: true,
    head: html`${PAGE_STYLE}
      <script type="module" src="${SYNC_PAGE}/live.js"></script>`,
    contentSecurityPolicy: SYNC_PAGE_CSP,
  });
}

/**
 * The question before a folder is removed or a device forgotten (issue 19), as a page of its own so
 * that it works without JavaScript: what happens, in words, and a POST form with the CSRF token.
 */
function removePage(
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRow,
  source: ShownSource,
): FastifyReply {
  const token = csrfToken(request, reply);
  const words = removeWords(source);
  const body = html`<h1>${words.title}</h1>
    <p>${source.kind === 'device' ? 'Device' : 'Folder'}: <code>${source.label}</code></p>
    <p>${words.consequence}</p>
    <p>
      The rides already synced from it stay on your dashboard, and are not uploaded again if you add it back.
      Nothing is deleted from the ${source.kind === 'device' ? 'device' : 'folder'}.
    </p>
    <form method="post" action="${SYNC_PAGE}/remove" class="inline">
      ${csrfField(token)}
      <input type="hidden" name="source_id" value="${source.id}" />
      <button type="submit">${words.verb} ${source.kind === 'device' ? 'device' : 'folder'}</button>
    </form>
    <a href="${SYNC_PAGE}">Cancel</a>`;
  return sendPage(reply, 200, {
    title: words.title,
    body,
    user,
    csrfToken: token,
    current: 'sync',
  });
}

/** The source `source_id` names among those the engine syncs, or a 404 in words. */
function syncedSource(sync: LocalSync, sourceId: string): ShownSource {
  if (sourceId === '') throw badRequest('Say which folder or device to remove.');
  const source = sync.status().sources.find((each) => each.id === sourceId);
  if (source === undefined) throw notFound('No folder or device with that name is synced now.');
  return source;
}

/** `window` (all, new or days) and `days` of a form, as LocalSync takes it (`all`, `new`, `<N>d`). */
function windowOf(form: FormFields): string {
  const choice = form.text('window');
  if (choice === 'all' || choice === 'new') return choice;
  if (choice === 'days') {
    const days = form.text('days');
    if (/^\d{1,5}$/.test(days) && Number(days) >= 1) return `${Number(days)}d`;
    throw badRequest(`Enter a number of days from 1 to ${MAX_IMPORT_DAYS}.`);
  }
  throw badRequest('Choose how far back to import: all rides, only new ones, or the last N days.');
}

export async function syncPageRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  // File uploads in this scope only, with the upload limit of POST /trips (legacy/index.ts).
  await app.register(multipart, {
    // One file more than the form takes, so that storeUpload sees it and refuses the form in words.
    limits: {
      fileSize: context.options.limits.uploadBytes,
      files: MAX_FILES_PER_FORM + 1,
      fields: 100,
      parts: MAX_FILES_PER_FORM + 1 + 100,
    },
  });
  const hidden = { schema: { hide: true } };

  app.get(SYNC_PAGE, hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, request.url);
    return syncPage(request, reply, context, user);
  });
  app.get(`${SYNC_PAGE}/live.js`, hidden, (_request, reply) =>
    reply
      .headers({
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      })
      .send(LIVE_SCRIPT),
  );

  app.get(`${SYNC_PAGE}/status.json`, hidden, async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return reply.code(401).send({ errors: ['sign in to see the sync status'] });
    const sync = ownedSync(context, user);
    const status = sync === null ? null : sync.status();
    const taskId = uploadTaskId(request);
    const task = taskId === undefined ? undefined : await oneTaskView(context, user, taskId);
    return reply.send({
      // The fragments carry empty CSRF fields: live.js puts the page's token in (sync-live.ts).
      live:
        status === null
          ? null
          : liveFragment('', status, await historyRideNames(context, status), await riderZone(context, user))
              .text,
      announce: status === null ? '' : stateText(status.state),
      sync: status,
      task:
        task === undefined
          ? null
          : { id: task.id, ended: task.ended, announce: task.announce, html: task.html.text },
    });
  });

  const steer = (action: string, act: (sync: LocalSync, form: FormFields) => string): void => {
    app.post(`${SYNC_PAGE}/${action}`, hidden, async (request, reply) => {
      const user = await signedInUser(request, reply, context);
      if (user === undefined) return redirectToSignIn(reply, SYNC_PAGE);
      const notice = act(steeredSync(context, user), new FormFields(request.body));
      return reply.redirect(`${SYNC_PAGE}?notice=${notice}`, 303);
    });
  };
  steer('now', (sync) => {
    sync.syncNow();
    return 'now';
  });
  steer('pause', (sync) => {
    sync.pause();
    return 'paused';
  });
  steer('resume', (sync) => {
    sync.resume();
    return 'resumed';
  });
  steer('retry', (sync, form) => {
    const sha256 = form.text('sha256');
    if (sha256 === 'all') return sync.retryFailed() > 0 ? 'retried-all' : 'nothing-to-retry';
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw badRequest('Say which ride to retry.');
    return sync.retry(sha256) ? 'retried' : 'nothing-to-retry';
  });
  steer('import', (sync, form) => {
    const sourceId = form.text('source_id');
    if (sourceId === '') throw badRequest('Say which source to import.');
    if (!sync.chooseImport(sourceId, windowOf(form))) {
      throw badRequest('That source is not waiting for an answer any more.');
    }
    return 'imported';
  });
  steer('folders', (sync, form) => {
    const path = form.text('path');
    if (isTooLong(path, TEXT_MAX_CHARS.folderPath)) {
      throw badRequest(
        `The folder's path must be at most ${TEXT_MAX_CHARS.folderPath.toLocaleString('en-US')} characters.`,
      );
    }
    if (!path.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(path)) {
      throw badRequest('Enter the folder as an absolute path, such as /home/you/Rides.');
    }
    sync.addFolder(path, windowOf(form));
    return 'folder-added';
  });
  app.get(`${SYNC_PAGE}/remove`, hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, request.url);
    const source = syncedSource(steeredSync(context, user), new FormFields(request.query).text('source_id'));
    return removePage(request, reply, user, source);
  });
  steer('remove', (sync, form) => {
    const source = syncedSource(sync, form.text('source_id'));
    sync.removeSource(source.id);
    return source.kind === 'device' ? 'device-forgotten' : 'folder-removed';
  });
  steer('restore', (sync, form) => {
    const sourceId = form.text('source_id');
    if (sourceId === '') throw badRequest('Say which folder or device to sync again.');
    if (!sync.restoreSource(sourceId, undefined)) {
      throw notFound('That folder or device is not removed, so there is nothing to sync again.');
    }
    return 'restored';
  });

  // The upload (issue 7): the same intake and task as POST /trips.json (legacy/upload-intake.ts). The fields
  // before the file are read first and stand in for the body, so requireCsrfOnPosts (csrf.ts), which
  // reads the token from the body's `_csrf` only, checks it before a byte of the file is read: the
  // form sends its hidden `_csrf` field before the file input. (A query parameter would need csrf.ts
  // to read tokens from URLs, which it deliberately does not.)
  const intake = uploadIntake(context);
  app.post(
    `${SYNC_PAGE}/upload`,
    {
      ...hidden,
      preValidation: async (request) => {
        if (request.isMultipart()) request.body = await intake.fields(request);
      },
      onResponse: (request, _reply, done) => {
        intake.discard(request);
        done();
      },
    },
    async (request, reply) => {
      const user = await signedInUser(request, reply, context);
      if (user === undefined) return redirectToSignIn(reply, SYNC_PAGE);
      if (!request.isMultipart()) throw badRequest('Send the ride file with the upload form.');
      // No API client: the file comes from a signed-in browser, not through a client, so the task's
      // api_client_id is null (it only records which client sent an upload; nothing else reads it).
      const { taskIds, skipped, files } = await storeUpload(
        request,
        context,
        () => ({ userId: user.id, apiClientId: null }),
        { files: MAX_FILES_PER_FORM },
      );
      // One file, or a ZIP holding one ride file: that upload's view, followed live.
      if (skipped === null || taskIds.length === 1)
        return reply.redirect(`${SYNC_PAGE}?task=${taskIds[0]!}`, 303);
      // A ZIP (issue 20), or several files (issue 40): the page lists the uploads, the first
      // MAX_LISTED_UPLOADS of them.
      const listed = taskIds.slice(0, MAX_LISTED_UPLOADS);
      const query = listedQuery({
        ids: listed,
        more: taskIds.length - listed.length,
        skipped: skipped.count,
        files,
      });
      return reply.redirect(`${SYNC_PAGE}?${query.toString()}`, 303);
    },
  );
}

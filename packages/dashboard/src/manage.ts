/**
 * Managing one's rides and routes from the dashboard (issue 19, "Managing rides and sources"): edit a
 * ride's name, description and visibility; delete one, or several chosen on the list, after a page
 * that asks to confirm. Plain forms that work without JavaScript; every POST carries the CSRF token
 * (pages/csrf.ts), and only the owner reaches any of it (access.ts: someone else's is 403).
 *
 *   GET  /dashboard/rides/{id}/edit      the form          POST the same address: saves, back to the ride
 *   GET  /dashboard/rides/delete?id=…    asks to confirm   POST /dashboard/rides/delete: deletes, back to the list
 *   (and the same under /dashboard/routes)
 *
 * Deleting removes the ride from the platform only: the file stays on the device or in its folder, and
 * the sync engine, which remembers it as synced, does not upload it again.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type AssetRow,
  type AssetType,
  badRequest,
  csrfField,
  csrfToken,
  FormFields,
  html,
  ID_RANGE,
  PAGE_RANGE,
  isTooLong,
  radioGroup,
  readWholeNumber,
  type SafeHtml,
  sendPage,
  type ServerContext,
  TEXT_MAX_CHARS,
  tooLongWords,
  type UserRow,
  type Visibility,
  wholeNumberProblem,
} from '@rideport/server/web';
import { ownAsset, WORDS } from './access.js';

/** At most this many rides or routes are deleted at once: a page of the list is 20. */
export const MAX_DELETED_AT_ONCE = 200;

const VISIBILITIES: readonly { value: Visibility; label: string }[] = [
  { value: 'private', label: 'Private: only you' },
  { value: 'friends_only', label: 'Friends only' },
  { value: 'public', label: 'Public: anyone, and the public lists of the API' },
];

export const editPath = (type: AssetType, id: number): string => `${WORDS[type].path}/${id}/edit`;
export const deletePath = (type: AssetType): string => `${WORDS[type].path}/delete`;

/** The ride page's links to edit and to delete it. */
export function manageLinks(type: AssetType, id: number): SafeHtml {
  const words = WORDS[type];
  return html`<ul class="manage">
    <li><a href="${editPath(type, id)}">Edit ${words.one}</a></li>
    <li><a href="${deletePath(type)}?id=${id}">Delete ${words.one}…</a></li>
  </ul>`;
}

// No maxlength on the fields: browsers count UTF-16 units, the store characters (store/text-limits.ts),
// so the page would refuse names the server takes; the server says the maximum in words instead.
interface EditValues {
  name: string;
  description: string;
  visibility: string;
}

function editPage(
  reply: FastifyReply,
  statusCode: number,
  page: { user: UserRow; token: string; type: AssetType; row: AssetRow<AssetType> },
  values: EditValues,
  problems: readonly string[],
): FastifyReply {
  const { type, row } = page;
  const words = WORDS[type];
  return sendPage(reply, statusCode, {
    title: `Edit ${row.name}`,
    user: page.user,
    csrfToken: page.token,
    current: type === 'trip' ? 'rides' : 'routes',
    body: html`<p><a href="${words.path}/${row.id}">← Back to the ${words.one}</a></p>
      <h1>Edit ${words.one}</h1>
      ${problems.map((problem) => html`<p class="error" role="alert">${problem}</p>`)}
      <form method="post" action="${editPath(type, row.id)}">
        ${csrfField(page.token)}
        <label for="edit-name">Name</label>
        <input type="text" id="edit-name" name="name" value="${values.name}" required />
        <label for="edit-description">Description (optional)</label>
        <textarea id="edit-description" name="description" rows="5">${values.description}</textarea>
        ${radioGroup({
          legend: 'Who may see it',
          name: 'visibility',
          idPrefix: 'edit-visibility',
          choices: VISIBILITIES,
          checked: values.visibility,
        })}
        <button type="submit">Save</button>
      </form>`,
  });
}

export async function showEditForm(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  type: AssetType,
  id: number,
): Promise<FastifyReply> {
  const row = await ownAsset(context, user, type, id);
  return editPage(
    reply,
    200,
    { user, token: csrfToken(request, reply), type, row },
    { name: row.name, description: row.description ?? '', visibility: row.visibility },
    [],
  );
}

/** The problems of an edit form, in words; none when it can be saved. */
function editProblems(values: EditValues): string[] {
  const problems: string[] = [];
  if (values.name === '') problems.push('A name is needed.');
  else if (isTooLong(values.name, TEXT_MAX_CHARS.assetName)) {
    problems.push(`${tooLongWords('The name', TEXT_MAX_CHARS.assetName)}.`);
  }
  if (isTooLong(values.description, TEXT_MAX_CHARS.assetDescription)) {
    problems.push(`${tooLongWords('The description', TEXT_MAX_CHARS.assetDescription)}.`);
  }
  if (!VISIBILITIES.some(({ value }) => value === values.visibility)) {
    problems.push('Choose who may see it: private, friends only or public.');
  }
  return problems;
}

export async function saveEdit(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  type: AssetType,
  id: number,
): Promise<FastifyReply> {
  const row = await ownAsset(context, user, type, id);
  const form = new FormFields(request.body);
  const values: EditValues = {
    name: form.text('name'),
    // A browser sends a textarea's line breaks as CRLF (HTML's form encoding); kept as the LF the API
    // and the files use, so that a description reads the same through every door (issue 40).
    description: form.text('description').replace(/\r\n?/g, '\n'),
    visibility: form.text('visibility'),
  };
  const problems = editProblems(values);
  if (problems.length > 0) {
    return editPage(reply, 400, { user, token: csrfToken(request, reply), type, row }, values, problems);
  }
  await context.store.assets.update(type, id, user.id, {
    name: values.name,
    description: values.description,
    visibility: values.visibility as Visibility,
  });
  return reply.redirect(`${WORDS[type].path}/${id}?saved=1`, 303);
}

/** The `id` values of a query or form, none when absent. */
function idValues(source: unknown): unknown[] {
  const raw = (source as Record<string, unknown> | undefined)?.['id'];
  return raw === undefined ? [] : Array.isArray(raw) ? (raw as unknown[]) : [raw];
}

/**
 * The ids chosen (`id`, repeated; from the list's checkboxes or the ride page's link), each a whole
 * number, at least one and at most MAX_DELETED_AT_ONCE; a 400 in words otherwise.
 */
function chosenIds(source: unknown, type: AssetType): number[] {
  const values = idValues(source);
  const words = WORDS[type];
  if (values.length === 0) throw badRequest(`Choose the ${words.many} to delete first.`);
  if (values.length > MAX_DELETED_AT_ONCE) {
    throw badRequest(`At most ${MAX_DELETED_AT_ONCE} ${words.many} can be deleted at once.`);
  }
  const ids = values.map((value) => readWholeNumber(value, ID_RANGE));
  if (ids.some((id) => id === undefined)) throw badRequest(wholeNumberProblem('id', ID_RANGE));
  return [...new Set(ids as number[])];
}

export async function confirmDelete(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  type: AssetType,
): Promise<FastifyReply> {
  // The list's button pressed with no box ticked (issue 40): back to the same page of the list, which
  // says what to do, rather than an error page.
  if (idValues(request.query).length === 0) {
    const page = listPageOf(request.query);
    return reply.redirect(`${WORDS[type].path}?${page > 1 ? `page=${page}&` : ''}chosen=none`, 303);
  }
  const ids = chosenIds(request.query, type);
  const rows = [];
  for (const id of ids) rows.push(await ownAsset(context, user, type, id));
  const words = WORDS[type];
  const token = csrfToken(request, reply);
  const what = rows.length === 1 ? `this ${words.one}` : `these ${rows.length} ${words.many}`;
  const page = listPageOf(request.query);
  const back =
    rows.length === 1 ? `${words.path}/${rows[0]!.id}` : `${words.path}${page > 1 ? `?page=${page}` : ''}`;
  return sendPage(reply, 200, {
    title: `Delete ${what}?`,
    user,
    csrfToken: token,
    current: type === 'trip' ? 'rides' : 'routes',
    body: html`<h1>Delete ${what}?</h1>
      <ul>
        ${rows.map((row) => html`<li><a href="${words.path}/${row.id}">${row.name}</a></li>`)}
      </ul>
      <p>
        Deleting removes ${rows.length === 1 ? 'it' : 'them'} from Rideport with every point, and cannot be
        undone. The files stay on your device or in your folders, and syncing does not upload them again.
      </p>
      <form method="post" action="${deletePath(type)}">
        ${csrfField(token)} ${rows.map((row) => html`<input type="hidden" name="id" value="${row.id}" />`)}
        <button type="submit">Delete ${what}</button>
        <a class="cancel" href="${back}">Cancel</a>
      </form>`,
  });
}

export async function deleteChosen(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  type: AssetType,
): Promise<FastifyReply> {
  const ids = chosenIds(request.body, type);
  // Each is checked first, so that one that is someone else's deletes none (403 in words).
  for (const id of ids) await ownAsset(context, user, type, id);
  const deleted = await context.store.assets.deleteMany(type, ids, user.id, user.id);
  return reply.redirect(`${WORDS[type].path}?deleted=${deleted}`, 303);
}

/** The note a list or page shows after a change made here (`?deleted=N`, `?saved=1`), or nothing. */
export function changeNotice(request: FastifyRequest, type: AssetType): SafeHtml | '' {
  const query = request.query as Record<string, unknown> | undefined;
  const deleted = readWholeNumber(query?.['deleted'], { min: 0, max: MAX_DELETED_AT_ONCE });
  const words = WORDS[type];
  if (deleted !== undefined) {
    const what = deleted === 1 ? `1 ${words.one}` : `${deleted} ${words.many}`;
    return html`<p class="notice" role="status">Deleted ${what}.</p>`;
  }
  if (query?.['saved'] === '1') return html`<p class="notice" role="status">Saved.</p>`;
  if (query?.['chosen'] === 'none') {
    return html`<p class="notice" role="status">
      No ${words.many} were chosen, so nothing was deleted. Tick the box beside each ${words.one} to delete,
      then press “Delete the chosen ${words.many}…”.
    </p>`;
  }
  return '';
}

/** The page of the list the delete form was sent from (`page`), 1 when absent or not a page number. */
function listPageOf(query: unknown): number {
  return readWholeNumber((query as Record<string, unknown> | undefined)?.['page'], PAGE_RANGE) ?? 1;
}

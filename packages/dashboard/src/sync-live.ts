/**
 * The sync page's progressive enhancement (issue 7): a plain ES module, served as
 * GET /dashboard/sync/live.js, that refreshes the live part of the page (state, sources, counts,
 * history) and the upload's task every 2 s from GET /dashboard/sync/status.json, and says state
 * changes in the page's aria-live region. The page works without it: every button is a form.
 *
 * The server renders the fragments (the page's own templates, escaped there) with empty CSRF fields,
 * so that the same status gives the same text; the script fills in the page's token, which stays
 * valid for the session (csrf.ts). It leaves the part alone while someone types in one of its inputs,
 * and gives focus back to the same button after a refresh, so keyboard use is not disturbed.
 */
export const LIVE_SCRIPT = `// Rideport: live sync status (issue 7). The page works without this script.
const REFRESH_MS = 2000;
const live = document.getElementById('sync-live');
const taskBox = document.getElementById('upload-task');
const announcer = document.getElementById('sync-announce');
const tokenField = document.querySelector('input[name="_csrf"]');
const token = tokenField === null ? '' : tokenField.value;
const taskId = taskBox === null ? null : taskBox.getAttribute('data-task');
let taskEnded = taskBox === null || taskBox.getAttribute('data-ended') === 'true';
let lastLive = null;
let lastTask = null;
let lastAnnouncement = [live, taskBox]
  .map((element) => (element === null ? '' : element.getAttribute('data-announce') || ''))
  .join(' ');

function typingIn(container) {
  const active = document.activeElement;
  if (active === null || !container.contains(active)) return false;
  return ['INPUT', 'SELECT', 'TEXTAREA'].includes(active.tagName) && active.type !== 'hidden';
}

function replace(container, markup) {
  if (typingIn(container)) return false;
  const active = document.activeElement;
  const focusKey =
    active !== null && container.contains(active) ? active.getAttribute('data-focus') : null;
  container.innerHTML = markup;
  for (const field of container.querySelectorAll('input[name="_csrf"]')) field.value = token;
  if (focusKey !== null) {
    const again = container.querySelector('[data-focus="' + CSS.escape(focusKey) + '"]');
    if (again !== null) again.focus();
  }
  return true;
}

async function refresh() {
  const query = taskId !== null && !taskEnded ? '?task=' + encodeURIComponent(taskId) : '';
  try {
    const response = await fetch('/dashboard/sync/status.json' + query, {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    });
    if (response.ok) {
      const data = await response.json();
      if (live !== null && typeof data.live === 'string' && data.live !== lastLive) {
        if (replace(live, data.live)) lastLive = data.live;
      }
      if (taskBox !== null && data.task !== null && typeof data.task === 'object') {
        if (data.task.html !== lastTask && replace(taskBox, data.task.html)) lastTask = data.task.html;
        taskEnded = data.task.ended === true;
      }
      const announcement = [data.announce || '', data.task === null ? '' : data.task.announce || '']
        .join(' ')
        .trim();
      if (announcer !== null && announcement !== lastAnnouncement.trim()) {
        announcer.textContent = announcement;
        lastAnnouncement = announcement;
      }
    }
  } catch {
    // Offline or the server restarting: try again at the next tick.
  }
  if (live !== null || !taskEnded) setTimeout(refresh, REFRESH_MS);
}

if (live !== null || !taskEnded) setTimeout(refresh, REFRESH_MS);
`;

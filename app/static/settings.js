// The settings page (issue 7: "settings (server: embedded or remote URL with sign-in, folders,
// first-import window)"). It runs in a sandboxed, context-isolated window and talks to the main
// process only through window.rideport, the preload bridge (app/src/ipc-channels.ts lists its methods).
/* global window, document */
'use strict';

/** @type {any} the bridge; its types are RideportBridge in app/src/ipc-channels.ts */
const bridge = /** @type {any} */ (window).rideport;
/** @type {any} the last SettingsView */
let view = null;

const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

function checkedValue(name) {
  const checked = /** @type {HTMLInputElement | null} */ (
    document.querySelector(`input[name="${name}"]:checked`)
  );
  return checked === null ? null : checked.value;
}

function check(name, value) {
  for (const element of document.querySelectorAll(`input[name="${name}"]`)) {
    /** @type {HTMLInputElement} */ (element).checked =
      /** @type {HTMLInputElement} */ (element).value === value;
  }
}

function showList(id, items) {
  const list = byId(id);
  list.replaceChildren(
    ...items.map((text) => {
      const item = document.createElement('li');
      item.textContent = text;
      return item;
    }),
  );
  list.hidden = items.length === 0;
}

// Folders are added and removed at once, as on the dashboard's sync page, and the list is read again
// whenever the window comes back to the front: the sync page may have removed or restored one
// meanwhile (issue 19: one list of folders).
function renderFolders(folders) {
  byId('folders').replaceChildren(
    ...folders.map((folder) => {
      const item = document.createElement('li');
      item.textContent = folder;
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Remove';
      remove.addEventListener('click', () => void changeFolders(() => bridge.removeFolder({ folder })));
      item.append(remove);
      return item;
    }),
  );
  byId('no-folders').hidden = folders.length > 0;
}

/** Applies a folder change (or a fresh read) to the folder list only: other edits are not saved yet. */
async function changeFolders(call) {
  try {
    const next = await call();
    view.settings.folders = next.settings.folders;
    byId('folders-result').textContent = '';
    renderFolders(view.settings.folders);
  } catch (error) {
    byId('folders-result').textContent = String(error instanceof Error ? error.message : error);
  }
}

function render(next) {
  view = next;
  const { settings, credentials } = view;
  const warning = byId('plain-text-warning');
  // The visible warning of issue 7 when safeStorage falls back to plain text.
  warning.hidden = !credentials.plainText;
  warning.textContent = credentials.plainText ? `Warning: ${credentials.reason}.` : '';
  showList('problems', view.problems);
  byId('server-now').textContent =
    view.serverUrl === null ? 'Sync is not running.' : `Syncing to ${view.serverUrl}.`;
  check('server-mode', settings.server.mode);
  const form = /** @type {HTMLFormElement} */ (byId('sign-in'));
  form.hidden = settings.server.mode !== 'remote';
  if (settings.server.mode === 'remote') {
    form.elements.namedItem('url').value = settings.server.url;
    form.elements.namedItem('apiKey').value = settings.server.apiKey;
    form.elements.namedItem('email').value = settings.server.email;
  }
  byId('sign-out').hidden = settings.server.mode !== 'remote';
  input('devices').checked = settings.devices;
  renderFolders(settings.folders);
  check('first-import', settings.firstImport.kind);
  if (settings.firstImport.kind === 'days')
    input('first-import-days').value = String(settings.firstImport.days);
  input('start-at-login').checked = settings.startAtLogin;
  input('notifications').checked = settings.notifications;
  byId('data-folder').textContent = view.dataFolder;
}

function firstImport() {
  const kind = checkedValue('first-import');
  if (kind === 'days') return { kind: 'days', days: Number(input('first-import-days').value) };
  return { kind: kind === 'from-now' ? 'from-now' : 'all' };
}

async function save() {
  const settings = {
    ...view.settings,
    // Switching to another server happens by signing in to it; back to this computer, here.
    server: checkedValue('server-mode') === 'embedded' ? { mode: 'embedded' } : view.settings.server,
    devices: input('devices').checked,
    firstImport: firstImport(),
    startAtLogin: input('start-at-login').checked,
    notifications: input('notifications').checked,
  };
  try {
    render(await bridge.saveSettings(settings));
    byId('saved').textContent = 'Saved.';
  } catch (error) {
    byId('saved').textContent = String(error instanceof Error ? error.message : error);
  }
}

async function signIn(event) {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.target);
  const field = (name) => form.elements.namedItem(name).value;
  byId('sign-in-result').textContent = 'Signing in…';
  const result = await bridge.signIn({
    url: field('url'),
    apiKey: field('apiKey'),
    email: field('email'),
    password: field('password'),
  });
  form.elements.namedItem('password').value = '';
  if (result.ok) {
    render(result.view);
    byId('sign-in-result').textContent = 'Signed in.';
  } else {
    byId('sign-in-result').textContent = result.message;
  }
}

document.addEventListener('DOMContentLoaded', () => {
  for (const radio of document.querySelectorAll('input[name="server-mode"]')) {
    radio.addEventListener('change', () => {
      byId('sign-in').hidden = checkedValue('server-mode') !== 'remote';
    });
  }
  byId('sign-in').addEventListener('submit', (event) => void signIn(event));
  byId('sign-out').addEventListener('click', async () => render(await bridge.signOut()));
  byId('add-folder').addEventListener('click', () => void changeFolders(() => bridge.addFolder()));
  window.addEventListener('focus', () => {
    if (view !== null) void changeFolders(() => bridge.getSettings());
  });
  byId('save').addEventListener('click', () => void save());
  byId('open-dashboard').addEventListener('click', () => void bridge.openDashboard());
  bridge.getSettings().then(render, (error) => {
    showList('problems', [String(error instanceof Error ? error.message : error)]);
  });
});

/**
 * The desktop app's settings (issue 7: "settings (server: embedded or remote URL with sign-in,
 * folders, first-import window)"): one JSON file in Electron's userData folder, validated when read and
 * before it is written, and written atomically. Secrets are not here: credentials.ts keeps the remote
 * auth token through safeStorage.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { ImportWindow } from '@rideport/sync';
import { writeFileAtomically } from '@rideport/files';

export type ServerSetting =
  /** the server the app hosts on 127.0.0.1, with the local account */
  | { mode: 'embedded' }
  /** any server that speaks the API; the auth token for `email` is kept by credentials.ts */
  | { mode: 'remote'; url: string; apiKey: string; email: string };

export interface AppSettings {
  server: ServerSetting;
  /** folders synced besides the GPS devices detected */
  folders: string[];
  /** look for GPS devices as they are plugged in */
  devices: boolean;
  /** how far back the first sync of a new folder or device goes */
  firstImport: ImportWindow;
  startAtLogin: boolean;
  /** native notifications for new rides and failures */
  notifications: boolean;
}

export const DEFAULT_SETTINGS: AppSettings = {
  server: { mode: 'embedded' },
  folders: [],
  devices: true,
  firstImport: { kind: 'all' },
  startAtLogin: true,
  notifications: true,
};

export type Validated = { ok: true; settings: AppSettings } | { ok: false; errors: string[] };

const MAX_FOLDERS = 100;
const MAX_IMPORT_DAYS = 99_999;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A remote server URL as the client accepts it: http(s), no credentials or fragment in it. */
export function remoteUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'server.url must be a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'server.url must be an http or https URL';
  if (url.username !== '' || url.password !== '')
    return 'server.url must not contain a user name or password';
  if (url.hash !== '' || url.search !== '') return 'server.url must not have a query or fragment';
  return null;
}

function validateServer(value: unknown, errors: string[]): ServerSetting {
  if (!isRecord(value)) {
    errors.push('server must be an object');
    return { mode: 'embedded' };
  }
  if (value['mode'] === 'embedded') return { mode: 'embedded' };
  if (value['mode'] !== 'remote') {
    errors.push("server.mode must be 'embedded' or 'remote'");
    return { mode: 'embedded' };
  }
  const url = value['url'];
  const apiKey = value['apiKey'];
  const email = value['email'];
  if (typeof url !== 'string') errors.push('server.url must be a string');
  else {
    const problem = remoteUrlProblem(url);
    if (problem !== null) errors.push(problem);
  }
  if (typeof apiKey !== 'string' || apiKey.trim() === '')
    errors.push('server.apiKey must be a non-empty string');
  if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email))
    errors.push('server.email must be an email address');
  return {
    mode: 'remote',
    url: typeof url === 'string' ? url.replace(/\/+$/, '') : '',
    apiKey: typeof apiKey === 'string' ? apiKey.trim() : '',
    email: typeof email === 'string' ? email.trim() : '',
  };
}

function validateImportWindow(value: unknown, errors: string[]): ImportWindow {
  if (isRecord(value)) {
    if (value['kind'] === 'all') return { kind: 'all' };
    if (value['kind'] === 'from-now') return { kind: 'from-now' };
    const days = value['days'];
    if (
      value['kind'] === 'days' &&
      Number.isInteger(days) &&
      (days as number) > 0 &&
      (days as number) <= MAX_IMPORT_DAYS
    ) {
      return { kind: 'days', days: days as number };
    }
  }
  errors.push("firstImport must be {kind: 'all'}, {kind: 'from-now'} or {kind: 'days', days: 1…99999}");
  return { kind: 'all' };
}

function validateBoolean(value: unknown, name: string, errors: string[]): boolean {
  if (typeof value !== 'boolean') errors.push(`${name} must be true or false`);
  return value === true;
}

/** Checks every field; a missing field takes its default, so older settings files keep working. */
export function validateSettings(value: unknown): Validated {
  if (!isRecord(value)) return { ok: false, errors: ['settings must be an object'] };
  const input = { ...DEFAULT_SETTINGS, ...value } as Record<string, unknown>;
  const errors: string[] = [];
  const folders = input['folders'];
  const validFolders: string[] = [];
  if (!Array.isArray(folders)) errors.push('folders must be a list of folder paths');
  else {
    if (folders.length > MAX_FOLDERS) errors.push(`at most ${MAX_FOLDERS} folders`);
    for (const folder of folders) {
      if (typeof folder !== 'string' || !isAbsolute(folder))
        errors.push(`folders: '${String(folder)}' is not an absolute path`);
      else if (!validFolders.includes(folder)) validFolders.push(folder);
    }
  }
  const known = new Set(Object.keys(DEFAULT_SETTINGS));
  for (const key of Object.keys(value)) if (!known.has(key)) errors.push(`unknown setting '${key}'`);
  const settings: AppSettings = {
    server: validateServer(input['server'], errors),
    folders: validFolders,
    devices: validateBoolean(input['devices'], 'devices', errors),
    firstImport: validateImportWindow(input['firstImport'], errors),
    startAtLogin: validateBoolean(input['startAtLogin'], 'startAtLogin', errors),
    notifications: validateBoolean(input['notifications'], 'notifications', errors),
  };
  return errors.length === 0 ? { ok: true, settings } : { ok: false, errors };
}

export class SettingsError extends Error {
  constructor(readonly errors: string[]) {
    super(`invalid settings: ${errors.join('; ')}`);
    this.name = 'SettingsError';
  }
}

/** settings.json in the userData folder. */
export class SettingsFile {
  readonly path: string;

  constructor(userDataFolder: string) {
    this.path = join(userDataFolder, 'settings.json');
  }

  /**
   * The saved settings; the defaults when there are none yet. A file that is not valid JSON or not
   * valid settings also gives the defaults, with the problems, so the app starts and the settings page
   * can say what was wrong instead of the app refusing to start.
   */
  async load(): Promise<{ settings: AppSettings; problems: string[] }> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { settings: DEFAULT_SETTINGS, problems: [] };
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { settings: DEFAULT_SETTINGS, problems: [`${this.path} is not valid JSON`] };
    }
    const validated = validateSettings(parsed);
    return validated.ok
      ? { settings: validated.settings, problems: [] }
      : { settings: DEFAULT_SETTINGS, problems: validated.errors };
  }

  /** Validates and writes atomically; throws SettingsError (and writes nothing) when invalid. */
  async save(settings: unknown): Promise<AppSettings> {
    const validated = validateSettings(settings);
    if (!validated.ok) throw new SettingsError(validated.errors);
    await writeFileAtomically(this.path, `${JSON.stringify(validated.settings, null, 2)}\n`, {
      folderMode: 0o700,
    });
    return validated.settings;
  }
}

/**
 * The one list of IPC channels (issue 7: "a typed preload bridge with one list of channels"): each
 * channel's name, who may send it, its request and response types, and the check its request must
 * pass in the main process (a renderer is never trusted with the shape of what it sends).
 *
 * ipc.ts registers a handler for every channel here, and the preload exposes a method for every
 * channel here: a sandboxed preload cannot load our modules, so the main process hands it the names
 * (preloadArguments), and its types come from `RideportBridge` below.
 */
import type { ImportWindow, SyncStatus } from '@rideport/sync';
import type { CredentialProtection } from './credentials.js';
import type { AppSettings } from './settings.js';

/**
 * Who may send: 'settings' only the app's own settings page; 'app' the settings page and the
 * dashboard of the embedded server (never a remote server's pages).
 */
export type Audience = 'settings' | 'app';

export class RequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestError';
  }
}

export interface ChannelSpec<Request, Response> {
  audience: Audience;
  /** the request as sent, checked; throws RequestError */
  parse(request: unknown): Request;
  /** type only: what the handler answers */
  readonly response?: Response;
}

function channel<Request, Response>(
  audience: Audience,
  parse: (request: unknown) => Request,
): ChannelSpec<Request, Response> {
  return { audience, parse };
}

function none(request: unknown): undefined {
  if (request !== undefined && request !== null) throw new RequestError('this channel takes no request');
  return undefined;
}

function record(request: unknown): Record<string, unknown> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new RequestError('the request must be an object');
  }
  return request as Record<string, unknown>;
}

function text(input: Record<string, unknown>, key: string, maxLength = 2048): string {
  const value = input[key];
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw new RequestError(`${key} must be a non-empty string of at most ${maxLength} characters`);
  }
  return value;
}

export interface SettingsView {
  settings: AppSettings;
  /** what was wrong with the saved settings file, if anything */
  problems: string[];
  /** how credentials are kept: `plainText` is the visible warning */
  credentials: CredentialProtection & { signedIn: boolean };
  /** where the app keeps its data (userData) */
  dataFolder: string;
  /** the server the app syncs to now; null while it is not running */
  serverUrl: string | null;
}

export interface SignInRequest {
  url: string;
  apiKey: string;
  email: string;
  password: string;
}

export type SignInResult = { ok: true; view: SettingsView } | { ok: false; message: string };

export const CHANNELS = {
  getSettings: channel<undefined, SettingsView>('settings', none),
  /** validated again by settings.ts before anything is written */
  saveSettings: channel<unknown, SettingsView>('settings', (request) => record(request)),
  /** a folder chosen in the system dialog, synced at once (the settings page's "Add folder…") */
  addFolder: channel<undefined, SettingsView>('settings', none),
  /** a folder no longer synced, at once; what it synced stays synced */
  removeFolder: channel<{ folder: string }, SettingsView>('settings', (request) => ({
    folder: text(record(request), 'folder'),
  })),
  signIn: channel<SignInRequest, SignInResult>('settings', (request) => {
    const input = record(request);
    return {
      url: text(input, 'url'),
      apiKey: text(input, 'apiKey', 256),
      email: text(input, 'email', 320),
      password: text(input, 'password', 1024),
    };
  }),
  signOut: channel<undefined, SettingsView>('settings', none),
  openDashboard: channel<undefined, null>('settings', none),
  syncStatus: channel<undefined, SyncStatus | null>('app', none),
  syncNow: channel<undefined, null>('app', none),
  pause: channel<undefined, null>('app', none),
  resume: channel<undefined, null>('app', none),
  chooseImport: channel<{ sourceId: string; window: ImportWindow }, boolean>('app', (request) => {
    const input = record(request);
    const window = record(input['window']);
    const days = window['days'];
    const parsed: ImportWindow | null =
      window['kind'] === 'all'
        ? { kind: 'all' }
        : window['kind'] === 'from-now'
          ? { kind: 'from-now' }
          : window['kind'] === 'days' &&
              Number.isInteger(days) &&
              (days as number) > 0 &&
              (days as number) < 100_000
            ? { kind: 'days', days: days as number }
            : null;
    if (parsed === null) throw new RequestError('window must be all, from-now or a number of days');
    return { sourceId: text(input, 'sourceId'), window: parsed };
  }),
} satisfies Record<string, ChannelSpec<unknown, unknown>>;

export type ChannelName = keyof typeof CHANNELS;

export const CHANNEL_NAMES = Object.keys(CHANNELS) as ChannelName[];

export type RequestOf<K extends ChannelName> = ReturnType<(typeof CHANNELS)[K]['parse']>;
export type ResponseOf<K extends ChannelName> =
  (typeof CHANNELS)[K] extends ChannelSpec<unknown, infer Response> ? Response : never;

/** What the preload exposes as `window.rideport`: one method per channel. */
export type RideportBridge = {
  [K in ChannelName]: RequestOf<K> extends undefined
    ? () => Promise<ResponseOf<K>>
    : (request: RequestOf<K>) => Promise<ResponseOf<K>>;
};

/** The IPC channel of a bridge method (the preload builds the same names: preload.cts). */
export function ipcChannel(name: ChannelName): string {
  return `rideport:${name}`;
}

/** How the preload learns the names: `--rideport-channels=a,b,c` in its process.argv. */
export const CHANNELS_ARGUMENT = '--rideport-channels=';

export function preloadArguments(): string[] {
  return [`${CHANNELS_ARGUMENT}${CHANNEL_NAMES.join(',')}`];
}

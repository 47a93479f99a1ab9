/**
 * The app's windows (issue 7: "a window that loads the dashboard"; "context isolation on, sandboxed
 * renderer"): the dashboard window, opened through a one-time sign-in link so it shows the rides signed
 * in, and the settings window, a local page. Both: contextIsolation, sandbox, no Node integration, web
 * security on, the preload bridge. Navigation stays on the dashboard's origin (or the settings page);
 * other links open in the system browser, and nothing opens a new Electron window.
 */
import { fileURLToPath } from 'node:url';
import type { BrowserWindowLike, BrowserWindowOptions, ElectronApi } from './electron-api.js';
import { preloadArguments } from './ipc-channels.js';

/** Isolated, sandboxed, no Node; with the bridge only when `preloadPath` is given. */
export function secureWindowOptions(title: string, preloadPath: string | null): BrowserWindowOptions {
  return {
    width: 1100,
    height: 780,
    title,
    show: false,
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      ...(preloadPath === null ? {} : { preload: preloadPath, additionalArguments: preloadArguments() }),
    },
  };
}

/** Whether a URL may load in the window: `allowed` decides for http(s) and file URLs; nothing else. */
export type NavigationRule = (url: URL) => boolean;

export function sameOrigin(origin: string): NavigationRule {
  return (url) => url.origin === origin;
}

export function sameFile(path: string): NavigationRule {
  return (url) => {
    if (url.protocol !== 'file:') return false;
    try {
      return fileURLToPath(url) === path;
    } catch {
      return false;
    }
  };
}

function parse(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/**
 * Keeps the window on what `allowed` accepts: other navigations are stopped, and http(s) ones open in
 * the system browser instead; window.open never makes an Electron window.
 */
export function guardNavigation(
  window: BrowserWindowLike,
  allowed: () => NavigationRule,
  shell: ElectronApi['shell'],
): void {
  const external = (url: URL): void => {
    if (url.protocol === 'https:' || url.protocol === 'http:') void shell.openExternal(url.href);
  };
  const listener = (event: { url: string; preventDefault(): void }): void => {
    const url = parse(event.url);
    if (url !== null && allowed()(url)) return;
    event.preventDefault();
    if (url !== null) external(url);
  };
  window.webContents.on('will-navigate', listener);
  window.webContents.on('will-redirect', listener);
  window.webContents.setWindowOpenHandler(({ url }) => {
    const parsed = parse(url);
    if (parsed !== null) external(parsed);
    return { action: 'deny' };
  });
}

/** One window at a time: shown and focused if open, else made and loaded. */
export class SingleWindow {
  #window: BrowserWindowLike | null = null;

  constructor(
    private readonly electron: Pick<ElectronApi, 'createWindow' | 'shell'>,
    private readonly options: () => BrowserWindowOptions,
    private readonly allowed: () => NavigationRule,
    private readonly load: (window: BrowserWindowLike) => Promise<void>,
  ) {}

  get window(): BrowserWindowLike | null {
    return this.#window;
  }

  async show(): Promise<void> {
    const existing = this.#window;
    if (existing !== null && !existing.isDestroyed()) {
      existing.show();
      existing.focus();
      return;
    }
    const window = this.electron.createWindow(this.options());
    this.#window = window;
    window.on('closed', () => {
      if (this.#window === window) this.#window = null;
    });
    guardNavigation(window, this.allowed, this.electron.shell);
    await this.load(window);
    window.show();
    window.focus();
  }
}

export interface DashboardTarget {
  /** the dashboard's origin (embedded: http://127.0.0.1:<port>; remote: the server's) */
  origin: string;
  /** our own embedded server: its pages get the bridge; a remote server's never do */
  trusted: boolean;
  /** the URL to open: a one-time sign-in link where the server offers one */
  entryUrl(): Promise<string>;
}

export function dashboardWindow(
  electron: Pick<ElectronApi, 'createWindow' | 'shell'>,
  preloadPath: string,
  target: () => DashboardTarget | null,
): SingleWindow {
  return new SingleWindow(
    electron,
    () => secureWindowOptions('Rideport', target()?.trusted === true ? preloadPath : null),
    () => {
      const current = target();
      return current === null ? () => false : sameOrigin(current.origin);
    },
    async (window) => {
      const current = target();
      if (current === null) throw new Error('the server is not running');
      await window.loadURL(await current.entryUrl());
    },
  );
}

export function settingsWindow(
  electron: Pick<ElectronApi, 'createWindow' | 'shell'>,
  preloadPath: string,
  settingsPagePath: string,
): SingleWindow {
  return new SingleWindow(
    electron,
    () => ({ ...secureWindowOptions('Rideport settings', preloadPath), width: 720, height: 760 }),
    () => sameFile(settingsPagePath),
    (window) => window.loadFile(settingsPagePath),
  );
}

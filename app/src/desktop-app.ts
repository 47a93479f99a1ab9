/**
 * The main process, assembled (issue 7; docs/contributors/architecture.md: "main process assembled from small modules (single
 * instance, tray, window, settings, server host, sync host, notifications)"): when ready, take the
 * single-instance lock, read the settings, start the server and sync hosts, show the tray, tell new
 * rides and failures; on wake from sleep, sync now; on quit, stop the engine and close the server
 * before the process ends. Everything Electron does comes through the ElectronApi passed in.
 */
import { join } from 'node:path';
import {
  currentUser,
  defaultMountRoots,
  folderSourceId,
  type MountRoot,
  type SyncStatus,
} from '@rideport/sync';
import { setStartAtLogin } from './autostart.js';
import { CredentialStore } from './credentials.js';
import type { ElectronApi } from './electron-api.js';
import type { SettingsView, SignInResult } from './ipc-channels.js';
import { registerIpc, type IpcHandlers } from './ipc.js';
import { nativeNotifications, StatusNotifier } from './notifications.js';
import { remoteUrlProblem, SettingsError, SettingsFile, type AppSettings } from './settings.js';
import { claimSingleInstance } from './single-instance.js';
import {
  signInRemote,
  SignInError,
  startEmbeddedSync,
  startRemoteSync,
  type HostOptions,
  type SyncHost,
} from './sync-host.js';
import { chooseFolder, runTrayAction, TrayController } from './tray.js';
import { trayModel } from './tray-state.js';
import { dashboardWindow, settingsWindow, type SingleWindow } from './window.js';

/** Where the app's own files are, relative to its root (app/ here, resources/app.asar when packaged). */
export function appFiles(appRoot: string): { preload: string; settingsPage: string; trayIcons: string } {
  return {
    preload: join(appRoot, 'dist', 'preload.cjs'),
    settingsPage: join(appRoot, 'static', 'settings.html'),
    trayIcons: join(appRoot, 'static', 'tray'),
  };
}

export interface DesktopOptions {
  electron: ElectronApi;
  appRoot: string;
  argv: readonly string[];
  env: Record<string, string | undefined>;
  log: { info(message: string): void; warn(message: string): void };
  /** default: the platform's mount roots for the current user */
  deviceRoots?: readonly MountRoot[];
  /** for tests */
  engineOptions?: HostOptions['engineOptions'];
}

/** The folders the engine syncs or awaits an import choice for, as the settings file lists folders. */
function engineFolders(status: SyncStatus): string[] {
  return status.sources.filter((source) => source.kind === 'folder').map((source) => source.path);
}

function sameFolders(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((folder) => b.includes(folder));
}

export class DesktopApp {
  readonly #options: DesktopOptions;
  readonly #electron: ElectronApi;
  readonly #files: ReturnType<typeof appFiles>;
  #dataFolder = '';
  #settingsFile: SettingsFile | null = null;
  #settings: AppSettings | null = null;
  #problems: string[] = [];
  #credentials: CredentialStore | null = null;
  #host: SyncHost | null = null;
  #hostProblem: string | null = null;
  #stopHostListener: (() => void) | null = null;
  /** settings writes, one at a time: a page's save and the engine's folder list never interleave */
  #settingsWrites: Promise<unknown> = Promise.resolve();
  #tray: TrayController | null = null;
  #notifier: StatusNotifier | null = null;
  #unregisterIpc: (() => void) | null = null;
  #stopping: Promise<void> | null = null;
  #stopped = false;
  readonly dashboard: SingleWindow;
  readonly settingsWindow: SingleWindow;

  constructor(options: DesktopOptions) {
    this.#options = options;
    this.#electron = options.electron;
    this.#files = appFiles(options.appRoot);
    this.dashboard = dashboardWindow(this.#electron, this.#files.preload, () => {
      const host = this.#host;
      if (host === null) return null;
      return {
        origin: new URL(host.serverUrl).origin,
        trusted: host.server !== null,
        entryUrl: () => host.dashboardEntry(),
      };
    });
    this.settingsWindow = settingsWindow(this.#electron, this.#files.preload, this.#files.settingsPage);
  }

  get host(): SyncHost | null {
    return this.#host;
  }

  /** Runs the app; false when another instance runs (this one quits). */
  async start(): Promise<boolean> {
    const { app } = this.#electron;
    if (!claimSingleInstance(app, () => void this.#openSomething())) return false;
    // A tray app keeps running with no window open (Electron quits on window-all-closed otherwise).
    app.on('window-all-closed', () => undefined);
    app.on('before-quit', (event) => {
      if (this.#stopped) return;
      event.preventDefault();
      void this.quit();
    });
    await app.whenReady();
    this.#dataFolder = app.getPath('userData');
    this.#settingsFile = new SettingsFile(this.#dataFolder);
    const loaded = await this.#settingsFile.load();
    this.#settings = loaded.settings;
    this.#problems = loaded.problems;
    this.#credentials = new CredentialStore(this.#electron.safeStorage, this.#dataFolder);
    this.#tray = new TrayController(
      this.#electron,
      this.#files.trayIcons,
      (action) => {
        runTrayAction(action, {
          engine: this.#host?.engine ?? null,
          openDashboard: () => this.#openSomething(),
          openSettings: () => this.settingsWindow.show(),
          addFolder: () => this.#addFolder(),
          quit: () => void this.quit(),
        }).catch((error: unknown) => {
          this.#options.log.warn(`tray: ${action}: ${(error as Error).message}`);
        });
      },
      () => void this.#openSomething(),
    );
    this.#notifier = new StatusNotifier({
      show: nativeNotifications(this.#electron, () => void this.#openSomething()),
      enabled: () => this.#settings?.notifications ?? true,
    });
    this.#unregisterIpc = registerIpc(
      this.#electron.ipcMain,
      this.#ipcHandlers(),
      { settingsPagePath: this.#files.settingsPage, dashboardOrigin: () => this.#host?.server?.url ?? null },
      this.#options.log,
    );
    this.#electron.powerMonitor.on('resume', () => {
      // Devices and the network may have changed while the machine slept.
      this.#host?.engine.syncNow();
    });
    this.#updateTray();
    await this.#applyStartAtLogin();
    await this.#startHost();
    if (!this.#options.argv.includes('--hidden')) await this.#openSomething();
    return true;
  }

  /** The dashboard when the server runs, else the settings (where the problem is shown). */
  async #openSomething(): Promise<void> {
    if (this.#host === null) await this.settingsWindow.show();
    else await this.dashboard.show();
  }

  /** `status`: the engine's, when the caller has just been given it (no second read of the ledger). */
  #updateTray(status: SyncStatus | null = this.#host?.engine.status() ?? null): void {
    this.#tray?.show(
      trayModel({
        status,
        plainTextCredentials:
          this.#settings?.server.mode === 'remote' && (this.#credentials?.protection().plainText ?? false),
        problem: this.#hostProblem,
      }),
    );
  }

  async #startHost(): Promise<void> {
    const settings = this.#settings!;
    const options: HostOptions = {
      dataFolder: this.#dataFolder,
      settings,
      deviceRoots: this.#options.deviceRoots ?? defaultMountRoots(this.#electron.platform, currentUser()),
      ...(this.#options.engineOptions === undefined ? {} : { engineOptions: this.#options.engineOptions }),
    };
    try {
      this.#host =
        settings.server.mode === 'embedded'
          ? await startEmbeddedSync(options)
          : await startRemoteSync(options, this.#credentials!);
      this.#hostProblem = null;
      const engine = this.#host.engine;
      this.#stopHostListener = engine.onChange((status) => {
        this.#notifier?.update(status);
        this.#updateTray(status);
        this.#followEngineFolders(status);
      });
      this.#followEngineFolders(engine.status());
      // This engine's history is the baseline, not news.
      this.#notifier?.reset();
      this.#notifier?.update(engine.status());
      this.#options.log.info(`syncing to ${this.#host.serverUrl}`);
    } catch (error) {
      this.#host = null;
      this.#hostProblem =
        error instanceof SignInError ? error.message : `Sync could not start: ${(error as Error).message}`;
      this.#options.log.warn(this.#hostProblem);
    }
    this.#updateTray();
  }

  async #stopHost(): Promise<void> {
    this.#stopHostListener?.();
    this.#stopHostListener = null;
    const host = this.#host;
    this.#host = null;
    await host?.stop();
  }

  async #restartHost(): Promise<void> {
    await this.#stopHost();
    await this.#startHost();
  }

  async #applyStartAtLogin(): Promise<void> {
    try {
      await setStartAtLogin(this.#settings!.startAtLogin, this.#electron.app, {
        platform: this.#electron.platform,
        env: this.#options.env,
        homeFolder: this.#electron.app.getPath('home'),
        executable: this.#electron.app.getPath('exe'),
      });
    } catch (error) {
      this.#options.log.warn(`start at login: ${(error as Error).message}`);
    }
  }

  /** A folder chosen in the system dialog, added (nothing when the dialog is cancelled). */
  async #addFolder(): Promise<void> {
    const folder = await chooseFolder(this.#electron.dialog);
    if (folder === null) return;
    await this.#changeFolders((folders) => (folders.includes(folder) ? folders : [...folders, folder]));
  }

  /** The folder list changed from its state when the write runs, not when it was asked for. */
  #changeFolders(change: (folders: string[]) => string[]): Promise<void> {
    return this.#serially(() =>
      this.#applySettings({ ...this.#settings!, folders: change(this.#settings!.folders) }),
    );
  }

  /** Saves and applies: folders live; server, devices or first-import changes restart the host. */
  #saveSettings(next: unknown): Promise<void> {
    return this.#serially(() => this.#applySettings(next));
  }

  #serially(write: () => Promise<void>): Promise<void> {
    const done = this.#settingsWrites.then(write);
    this.#settingsWrites = done.catch(() => undefined);
    return done;
  }

  async #applySettings(next: unknown): Promise<void> {
    const before = this.#settings!;
    const saved = await this.#settingsFile!.save(next);
    this.#settings = saved;
    this.#problems = [];
    if (saved.startAtLogin !== before.startAtLogin) await this.#applyStartAtLogin();
    const restart =
      JSON.stringify([saved.server, saved.devices, saved.firstImport]) !==
      JSON.stringify([before.server, before.devices, before.firstImport]);
    if (restart || this.#host === null) {
      await this.#restartHost();
      return;
    }
    const engine = this.#host.engine;
    for (const folder of saved.folders) if (!before.folders.includes(folder)) engine.addFolder(folder);
    for (const folder of before.folders)
      if (!saved.folders.includes(folder)) engine.removeSource(folderSourceId(folder));
    this.#updateTray();
  }

  /**
   * One list of folders (issue 19): the engine's ledger is where a folder is synced or removed, and the
   * dashboard's sync page removes and restores folders there; the settings file follows, so the
   * settings page and the next start show what the engine syncs. Folders kept in their settings order,
   * new ones after them.
   */
  #followEngineFolders(status: SyncStatus): void {
    if (sameFolders(engineFolders(status), this.#settings!.folders)) return;
    this.#serially(async () => {
      const host = this.#host;
      if (host === null) return;
      const synced = engineFolders(host.engine.status());
      const current = this.#settings!.folders;
      if (sameFolders(synced, current)) return;
      const folders = [
        ...current.filter((folder) => synced.includes(folder)),
        ...synced.filter((folder) => !current.includes(folder)),
      ];
      this.#settings = await this.#settingsFile!.save({ ...this.#settings!, folders });
    }).catch((error: unknown) => {
      this.#options.log.warn(`settings: the folder list could not be saved: ${(error as Error).message}`);
    });
  }

  #view(): SettingsView {
    const protection = this.#credentials!.protection();
    return {
      settings: this.#settings!,
      problems: [...this.#problems, ...(this.#hostProblem === null ? [] : [this.#hostProblem])],
      credentials: {
        ...protection,
        signedIn: this.#settings!.server.mode === 'embedded' || this.#host !== null,
      },
      dataFolder: this.#dataFolder,
      serverUrl: this.#host?.serverUrl ?? null,
    };
  }

  #ipcHandlers(): IpcHandlers {
    const engine = (): NonNullable<SyncHost['engine']> => {
      if (this.#host === null) throw new Error(this.#hostProblem ?? 'sync is not running');
      return this.#host.engine;
    };
    return {
      getSettings: () => Promise.resolve(this.#view()),
      saveSettings: async (request) => {
        try {
          await this.#saveSettings(request);
        } catch (error) {
          // Only the message crosses IPC; SettingsError's lists every problem.
          if (error instanceof SettingsError) throw new Error(error.message);
          throw error;
        }
        return this.#view();
      },
      addFolder: async () => {
        await this.#addFolder();
        return this.#view();
      },
      removeFolder: async (request) => {
        await this.#changeFolders((folders) => folders.filter((folder) => folder !== request.folder));
        return this.#view();
      },
      signIn: async (request): Promise<SignInResult> => {
        const url = request.url.replace(/\/+$/, '');
        const problem = remoteUrlProblem(url);
        if (problem !== null) return { ok: false, message: problem };
        try {
          await signInRemote({ ...request, url }, this.#credentials!);
        } catch (error) {
          if (error instanceof SignInError) return { ok: false, message: error.message };
          throw error;
        }
        await this.#saveSettings({
          ...this.#settings!,
          server: { mode: 'remote', url, apiKey: request.apiKey, email: request.email },
        });
        return { ok: true, view: this.#view() };
      },
      signOut: async () => {
        await this.#credentials!.clear();
        await this.#saveSettings({ ...this.#settings!, server: { mode: 'embedded' } });
        return this.#view();
      },
      openDashboard: async () => {
        await this.#openSomething();
        return null;
      },
      syncStatus: () => Promise.resolve(this.#host?.engine.status() ?? null),
      syncNow: () => {
        engine().syncNow();
        return Promise.resolve(null);
      },
      pause: () => {
        engine().pause();
        return Promise.resolve(null);
      },
      resume: () => {
        engine().resume();
        return Promise.resolve(null);
      },
      chooseImport: (request) => Promise.resolve(engine().chooseImport(request.sourceId, request.window)),
    };
  }

  /** Stops the engine (an interrupted upload is queued again) and the server, then quits. */
  async quit(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#notifier?.stop();
      this.#unregisterIpc?.();
      this.#tray?.destroy();
      try {
        await this.#stopHost();
      } catch (error) {
        this.#options.log.warn(`stopping: ${(error as Error).message}`);
      }
      this.#stopped = true;
    })();
    await this.#stopping;
    this.#electron.app.quit();
  }
}

/**
 * A small fake of the Electron APIs the app uses (electron-api.ts), recording what the app asks of
 * them (issue 7: "the Electron edge is tested with a small fake of the APIs it uses"). No Electron
 * binary is needed, or ever downloaded.
 */
import type {
  AppLike,
  BrowserWindowLike,
  BrowserWindowOptions,
  ElectronApi,
  IpcInvokeEvent,
  LoginItemSettings,
  MenuItemTemplate,
  NativeImageLike,
  NavigationEvent,
  NotificationLike,
  NotificationOptions,
  SafeStorageLike,
  TrayLike,
} from '../electron-api.js';

export interface FakeImage {
  path: string;
}

export interface FakeMenu {
  template: MenuItemTemplate[];
}

export class FakeTray implements TrayLike {
  image: NativeImageLike;
  tooltip = '';
  menu: FakeMenu | null = null;
  destroyed = false;
  readonly clickListeners: (() => void)[] = [];
  constructor(image: NativeImageLike) {
    this.image = image;
  }
  setImage(image: NativeImageLike): void {
    this.image = image;
  }
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  setContextMenu(menu: object): void {
    this.menu = menu as FakeMenu;
  }
  on(_event: 'click', listener: () => void): void {
    this.clickListeners.push(listener);
  }
  destroy(): void {
    this.destroyed = true;
  }
  /** The menu item with this label, for clicking in tests. */
  item(label: string): MenuItemTemplate {
    const found = this.menu?.template.find((item) => item.label === label);
    if (found === undefined) throw new Error(`no menu item '${label}'`);
    return found;
  }
}

export class FakeWindow implements BrowserWindowLike {
  readonly loaded: string[] = [];
  readonly navigationListeners = new Map<string, ((event: NavigationEvent) => void)[]>();
  openHandler: ((details: { url: string }) => { action: 'deny' | 'allow' }) | null = null;
  shown = 0;
  focused = 0;
  destroyed = false;
  readonly closedListeners: (() => void)[] = [];
  readonly webContents = {
    on: (event: 'will-navigate' | 'will-redirect', listener: (event: NavigationEvent) => void): void => {
      this.navigationListeners.set(event, [...(this.navigationListeners.get(event) ?? []), listener]);
    },
    setWindowOpenHandler: (handler: (details: { url: string }) => { action: 'deny' | 'allow' }): void => {
      this.openHandler = handler;
    },
  };
  constructor(readonly options: BrowserWindowOptions) {}
  loadURL(url: string): Promise<void> {
    this.loaded.push(url);
    return Promise.resolve();
  }
  loadFile(path: string): Promise<void> {
    this.loaded.push(`file:${path}`);
    return Promise.resolve();
  }
  show(): void {
    this.shown++;
  }
  focus(): void {
    this.focused++;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  on(_event: 'closed', listener: () => void): void {
    this.closedListeners.push(listener);
  }
  /** What will-navigate does to `url`: true when the window let it through. */
  navigate(url: string, event: 'will-navigate' | 'will-redirect' = 'will-navigate'): boolean {
    let prevented = false;
    for (const listener of this.navigationListeners.get(event) ?? []) {
      listener({
        url,
        preventDefault: () => {
          prevented = true;
        },
      });
    }
    return !prevented;
  }
  close(): void {
    this.destroyed = true;
    for (const listener of this.closedListeners) listener();
  }
}

export interface FakeNotification extends NotificationOptions {
  clickListeners: (() => void)[];
}

/** safeStorage with a reversible "encryption" and a switch for the plain-text fallback. */
export class FakeSafeStorage implements SafeStorageLike {
  available = true;
  backend: string | undefined = undefined;
  isEncryptionAvailable(): boolean {
    return this.available;
  }
  encryptString(plainText: string): Buffer {
    if (!this.available) throw new Error('Error while encrypting the text provided to safeStorage');
    return Buffer.from(`enc:${Buffer.from(plainText, 'utf8').toString('hex')}`, 'utf8');
  }
  decryptString(encrypted: Buffer): string {
    const text = encrypted.toString('utf8');
    if (!text.startsWith('enc:')) throw new Error('Error while decrypting the ciphertext');
    return Buffer.from(text.slice(4), 'hex').toString('utf8');
  }
  getSelectedStorageBackend?(): string;
}

type IpcListener = (event: IpcInvokeEvent, ...args: unknown[]) => Promise<unknown>;

export class FakeElectron implements ElectronApi {
  readonly calls: string[] = [];
  readonly trays: FakeTray[] = [];
  readonly windows: FakeWindow[] = [];
  readonly notifications: FakeNotification[] = [];
  readonly loginItems: LoginItemSettings[] = [];
  readonly appListeners = new Map<string, ((event: { preventDefault(): void }) => void)[]>();
  readonly powerListeners: (() => void)[] = [];
  readonly handlers = new Map<string, IpcListener>();
  readonly opened: string[] = [];
  readonly safeStorage: FakeSafeStorage;
  /** what the next folder dialog answers (null: cancelled) */
  nextFolder: string | null = null;
  notificationsSupported = true;
  singleInstanceLock = true;
  quitCalls = 0;
  /** true once app.quit() went through (before-quit not prevented) */
  quitDone = false;
  readonly app: AppLike;

  constructor(
    readonly platform: NodeJS.Platform = 'linux',
    readonly paths: Record<'userData' | 'home' | 'exe', string> = {
      userData: '/tmp/rideport-fake/userData',
      home: '/tmp/rideport-fake/home',
      exe: '/opt/Rideport/rideport',
    },
  ) {
    this.safeStorage = new FakeSafeStorage();
    if (platform === 'linux') {
      this.safeStorage.backend = 'gnome_libsecret';
      this.safeStorage.getSelectedStorageBackend = function (this: FakeSafeStorage) {
        return this.backend ?? 'unknown';
      };
    }
    this.app = {
      requestSingleInstanceLock: () => {
        this.calls.push('app.requestSingleInstanceLock');
        return this.singleInstanceLock;
      },
      on: (event, listener) => {
        this.appListeners.set(event, [...(this.appListeners.get(event) ?? []), listener]);
      },
      setLoginItemSettings: (settings) => {
        this.loginItems.push(settings);
      },
      getPath: (name) => this.paths[name],
      whenReady: () => Promise.resolve(),
      quit: () => {
        this.quitCalls++;
        // As Electron does: before-quit first, and a prevented one does not quit.
        if (!this.emitApp('before-quit')) this.quitDone = true;
      },
    };
  }

  /** Fires an app event as Electron would; true when a listener prevented its default. */
  emitApp(event: string): boolean {
    let prevented = false;
    for (const listener of this.appListeners.get(event) ?? []) {
      listener({
        preventDefault: () => {
          prevented = true;
        },
      });
    }
    return prevented;
  }

  createTray(image: NativeImageLike): FakeTray {
    const tray = new FakeTray(image);
    this.trays.push(tray);
    return tray;
  }

  buildMenu(template: MenuItemTemplate[]): FakeMenu {
    return { template };
  }

  createWindow(options: BrowserWindowOptions): FakeWindow {
    const window = new FakeWindow(options);
    this.windows.push(window);
    return window;
  }

  createNotification(options: NotificationOptions): NotificationLike | null {
    if (!this.notificationsSupported) return null;
    const notification: FakeNotification = { ...options, clickListeners: [] };
    return {
      on: (_event, listener) => {
        notification.clickListeners.push(listener);
      },
      show: () => {
        this.notifications.push(notification);
      },
    };
  }

  readonly ipcMain = {
    handle: (channel: string, listener: IpcListener): void => {
      if (this.handlers.has(channel))
        throw new Error(`Attempted to register a second handler for '${channel}'`);
      this.handlers.set(channel, listener);
    },
    removeHandler: (channel: string): void => {
      this.handlers.delete(channel);
    },
  };

  /** Sends an invoke on `channel` from a frame at `senderUrl`, as ipcRenderer.invoke would. */
  invoke(channel: string, senderUrl: string | null, ...args: unknown[]): Promise<unknown> {
    const listener = this.handlers.get(channel);
    if (listener === undefined) return Promise.reject(new Error(`No handler registered for '${channel}'`));
    return listener({ senderFrame: senderUrl === null ? null : { url: senderUrl } }, ...args);
  }

  readonly shell = {
    openExternal: (url: string): Promise<void> => {
      this.opened.push(url);
      return Promise.resolve();
    },
  };

  readonly dialog = {
    showOpenDialog: (): Promise<{ canceled: boolean; filePaths: string[] }> =>
      Promise.resolve(
        this.nextFolder === null
          ? { canceled: true, filePaths: [] }
          : { canceled: false, filePaths: [this.nextFolder] },
      ),
  };

  readonly nativeImage = {
    createFromPath: (path: string): FakeImage => ({ path }),
  };

  readonly powerMonitor = {
    on: (_event: 'resume', listener: () => void): void => {
      this.powerListeners.push(listener);
    },
  };
}

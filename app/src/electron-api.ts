/**
 * Exactly the parts of Electron the desktop app uses (issue 7: "the Electron edge is tested with a
 * small fake of the APIs it uses"). electron-real.ts implements it over the real module; the tests use
 * test-support/fake-electron.ts. Every other module takes this interface (or a narrower piece of it) as
 * a parameter, so nothing but electron-real.ts imports `electron` at run time.
 */

/** An image handed back by nativeImage; opaque to the app. */
export type NativeImageLike = object;

/** A menu item as Menu.buildFromTemplate takes it (the subset the tray uses). */
export interface MenuItemTemplate {
  label?: string;
  type?: 'normal' | 'separator';
  enabled?: boolean;
  click?: () => void;
}

/** A built menu; opaque to the app. */
export type MenuLike = object;

export interface TrayLike {
  setImage(image: NativeImageLike): void;
  setToolTip(text: string): void;
  setContextMenu(menu: MenuLike): void;
  on(event: 'click', listener: () => void): void;
  destroy(): void;
}

export interface WebPreferences {
  contextIsolation: boolean;
  sandbox: boolean;
  nodeIntegration: boolean;
  webSecurity: boolean;
  /** absent for pages that get no bridge (a remote server's dashboard) */
  preload?: string;
  /** handed to the preload as process.argv entries (a sandboxed preload can require nothing of ours) */
  additionalArguments?: string[];
}

export interface BrowserWindowOptions {
  width: number;
  height: number;
  title: string;
  show: boolean;
  webPreferences: WebPreferences;
}

/** The event of will-navigate / will-redirect. */
export interface NavigationEvent {
  url: string;
  preventDefault(): void;
}

export interface WebContentsLike {
  on(event: 'will-navigate' | 'will-redirect', listener: (event: NavigationEvent) => void): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' | 'allow' }): void;
}

export interface BrowserWindowLike {
  readonly webContents: WebContentsLike;
  loadURL(url: string): Promise<void>;
  loadFile(path: string): Promise<void>;
  show(): void;
  focus(): void;
  isDestroyed(): boolean;
  on(event: 'closed', listener: () => void): void;
}

export interface NotificationOptions {
  title: string;
  body: string;
  silent?: boolean;
}

export interface NotificationLike {
  on(event: 'click', listener: () => void): void;
  show(): void;
}

/** What an ipcMain.handle listener receives, as far as the sender checks need it. */
export interface IpcInvokeEvent {
  /** the frame that sent the message; null once it navigated away or was destroyed */
  readonly senderFrame: { readonly url: string } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEvent, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/** safeStorage as credentials.ts needs it (getSelectedStorageBackend exists on Linux only). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  getSelectedStorageBackend?(): string;
}

export interface LoginItemSettings {
  openAtLogin: boolean;
  /** macOS: start without a window */
  openAsHidden?: boolean;
  /** Windows: the arguments the login item starts the app with */
  args?: string[];
}

export type AppPathName = 'userData' | 'home' | 'exe';

export interface AppLike {
  requestSingleInstanceLock(): boolean;
  /** the listener's event can be prevented (before-quit: to finish stopping first) */
  on(
    event: 'second-instance' | 'window-all-closed' | 'before-quit',
    listener: (event: { preventDefault(): void }) => void,
  ): void;
  setLoginItemSettings(settings: LoginItemSettings): void;
  getPath(name: AppPathName): string;
  whenReady(): Promise<void>;
  quit(): void;
}

export interface ElectronApi {
  readonly platform: NodeJS.Platform;
  readonly app: AppLike;
  createTray(image: NativeImageLike): TrayLike;
  buildMenu(template: MenuItemTemplate[]): MenuLike;
  createWindow(options: BrowserWindowOptions): BrowserWindowLike;
  /** null where the platform cannot show notifications (Notification.isSupported() false) */
  createNotification(options: NotificationOptions): NotificationLike | null;
  readonly safeStorage: SafeStorageLike;
  readonly ipcMain: IpcMainLike;
  readonly shell: { openExternal(url: string): Promise<void> };
  readonly dialog: {
    showOpenDialog(options: {
      title: string;
      properties: ('openDirectory' | 'createDirectory')[];
    }): Promise<{ canceled: boolean; filePaths: string[] }>;
  };
  readonly nativeImage: { createFromPath(path: string): NativeImageLike };
  readonly powerMonitor: { on(event: 'resume', listener: () => void): void };
}

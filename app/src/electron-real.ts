/**
 * The ElectronApi over the real `electron` module: the only module that imports it at run time
 * (docs/contributors/architecture.md: "Only `app` imports `electron`"; inside the app, only this file). Each member is a thin
 * pass-through, so what it does is Electron's behaviour, not ours; the rest is tested with the fake.
 */
import * as electron from 'electron';
import type { ElectronApi } from './electron-api.js';

export function realElectron(): ElectronApi {
  const { app, BrowserWindow, Menu, Notification, Tray } = electron;
  return {
    platform: process.platform,
    app: {
      requestSingleInstanceLock: () => app.requestSingleInstanceLock(),
      on: (event, listener) => {
        // Electron types each event separately; every event used here takes a listener we can ignore
        // the arguments of.
        app.on(event as 'second-instance', listener);
      },
      setLoginItemSettings: (settings) => {
        app.setLoginItemSettings(settings);
      },
      getPath: (name) => app.getPath(name),
      whenReady: () => app.whenReady(),
      quit: () => {
        app.quit();
      },
    },
    createTray: (image) => {
      // The images come from nativeImage below, so they are NativeImages.
      const tray = new Tray(image as electron.NativeImage);
      return {
        setImage: (next) => {
          tray.setImage(next as electron.NativeImage);
        },
        setToolTip: (text) => {
          tray.setToolTip(text);
        },
        setContextMenu: (menu) => {
          tray.setContextMenu(menu as electron.Menu);
        },
        on: (event, listener) => {
          tray.on(event, listener);
        },
        destroy: () => {
          tray.destroy();
        },
      };
    },
    buildMenu: (template) => Menu.buildFromTemplate(template),
    createWindow: (options) => {
      const window = new BrowserWindow(options);
      return {
        webContents: {
          on: (event, listener) => {
            window.webContents.on(event as 'will-navigate', listener);
          },
          setWindowOpenHandler: (handler) => {
            window.webContents.setWindowOpenHandler(handler);
          },
        },
        loadURL: (url) => window.loadURL(url),
        loadFile: (path) => window.loadFile(path),
        show: () => {
          window.show();
        },
        focus: () => {
          window.focus();
        },
        isDestroyed: () => window.isDestroyed(),
        on: (event, listener) => {
          window.on(event, listener);
        },
      };
    },
    createNotification: (options) => (Notification.isSupported() ? new Notification(options) : null),
    safeStorage: {
      isEncryptionAvailable: () => electron.safeStorage.isEncryptionAvailable(),
      encryptString: (text) => electron.safeStorage.encryptString(text),
      decryptString: (data) => electron.safeStorage.decryptString(data),
      ...(process.platform === 'linux'
        ? { getSelectedStorageBackend: () => electron.safeStorage.getSelectedStorageBackend() }
        : {}),
    },
    ipcMain: {
      handle: (channel, listener) => {
        electron.ipcMain.handle(channel, listener);
      },
      removeHandler: (channel) => {
        electron.ipcMain.removeHandler(channel);
      },
    },
    shell: { openExternal: (url) => electron.shell.openExternal(url) },
    dialog: { showOpenDialog: (options) => electron.dialog.showOpenDialog(options) },
    nativeImage: { createFromPath: (path) => electron.nativeImage.createFromPath(path) },
    powerMonitor: {
      on: (event, listener) => {
        electron.powerMonitor.on(event, listener);
      },
    },
  };
}

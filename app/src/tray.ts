/**
 * The tray icon (issue 7): applies a TrayModel (tray-state.ts) to Electron's Tray and Menu, changing
 * only what changed, and turns menu clicks into actions on the sync engine and the windows.
 */
import { join } from 'node:path';
import type { SyncEngine } from '@rideport/sync';
import type { ElectronApi, MenuItemTemplate, NativeImageLike, TrayLike } from './electron-api.js';
import type { TrayAction, TrayIconName, TrayModel } from './tray-state.js';

/**
 * The tray image of a state: `tray-<state>.png` (16 px; 32 px on the Linux panels that scale) with
 * `tray-<state>@2x.png` beside it, which Electron picks on high-density screens by itself.
 */
export function trayIconPath(iconFolder: string, name: TrayIconName): string {
  return join(iconFolder, `tray-${name}.png`);
}

export class TrayController {
  #tray: TrayLike | null = null;
  #shown: { icon: TrayIconName; tooltip: string; menu: string } | null = null;
  readonly #images = new Map<TrayIconName, NativeImageLike>();

  constructor(
    private readonly electron: Pick<ElectronApi, 'createTray' | 'buildMenu' | 'nativeImage'>,
    private readonly iconFolder: string,
    private readonly onAction: (action: TrayAction) => void,
    private readonly onClick: () => void = () => undefined,
  ) {}

  #image(name: TrayIconName): NativeImageLike {
    let image = this.#images.get(name);
    if (image === undefined) {
      image = this.electron.nativeImage.createFromPath(trayIconPath(this.iconFolder, name));
      this.#images.set(name, image);
    }
    return image;
  }

  /** Shows the model: creates the tray the first time, then changes only what differs. */
  show(model: TrayModel): void {
    const menuKey = JSON.stringify(model.menu);
    let tray = this.#tray;
    if (tray === null) {
      tray = this.electron.createTray(this.#image(model.icon));
      tray.on('click', this.onClick);
      this.#tray = tray;
    } else if (this.#shown?.icon !== model.icon) {
      tray.setImage(this.#image(model.icon));
    }
    if (this.#shown?.tooltip !== model.tooltip) tray.setToolTip(model.tooltip);
    if (this.#shown?.menu !== menuKey) tray.setContextMenu(this.electron.buildMenu(this.#template(model)));
    this.#shown = { icon: model.icon, tooltip: model.tooltip, menu: menuKey };
  }

  #template(model: TrayModel): MenuItemTemplate[] {
    return model.menu.map((entry): MenuItemTemplate => {
      switch (entry.kind) {
        case 'separator':
          return { type: 'separator' };
        case 'label':
          return { label: entry.label, enabled: false };
        case 'action':
          return {
            label: entry.label,
            enabled: entry.enabled,
            click: () => {
              this.onAction(entry.action);
            },
          };
      }
    });
  }

  destroy(): void {
    this.#tray?.destroy();
    this.#tray = null;
    this.#shown = null;
  }
}

/** What the tray's actions act on. */
export interface TrayActionTargets {
  /** null while the engine is not running */
  engine: Pick<SyncEngine, 'syncNow' | 'pause' | 'resume'> | null;
  openDashboard(): Promise<void>;
  openSettings(): Promise<void>;
  /** asks for a folder and adds it (settings and engine) */
  addFolder(): Promise<void>;
  quit(): void;
}

export async function runTrayAction(action: TrayAction, targets: TrayActionTargets): Promise<void> {
  switch (action) {
    case 'open-dashboard':
      return targets.openDashboard();
    case 'settings':
      return targets.openSettings();
    case 'add-folder':
      return targets.addFolder();
    case 'sync-now':
      targets.engine?.syncNow();
      return;
    case 'pause':
      targets.engine?.pause();
      return;
    case 'resume':
      targets.engine?.resume();
      return;
    case 'quit':
      targets.quit();
      return;
  }
}

/** The folder dialog: the chosen folder, or null when cancelled. */
export async function chooseFolder(dialog: ElectronApi['dialog']): Promise<string | null> {
  const answer = await dialog.showOpenDialog({
    title: 'Add a folder to sync',
    properties: ['openDirectory', 'createDirectory'],
  });
  return answer.canceled ? null : (answer.filePaths[0] ?? null);
}

/**
 * What the tray shows (issue 7: "tray icon whose image and tooltip show the state (idle, syncing n of
 * m, needs attention, paused, offline) with a context menu (open dashboard, sync now, pause/resume,
 * add folder, settings, quit)"). Pure: the sync status and a little context in, a model out; tray.ts
 * applies it to Electron's Tray and Menu.
 */
import type { SyncStatus } from '@rideport/sync';

export type TrayIconName = 'idle' | 'syncing' | 'attention' | 'paused' | 'offline';

export const TRAY_ICON_NAMES: readonly TrayIconName[] = ['idle', 'syncing', 'attention', 'paused', 'offline'];

export type TrayAction =
  'open-dashboard' | 'sync-now' | 'pause' | 'resume' | 'add-folder' | 'settings' | 'quit';

export type TrayMenuEntry =
  | { kind: 'label'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; action: TrayAction; label: string; enabled: boolean };

export interface TrayModel {
  icon: TrayIconName;
  tooltip: string;
  menu: TrayMenuEntry[];
}

export interface TrayContext {
  /** the engine's status; null while it is starting (or could not start: `problem` says why) */
  status: SyncStatus | null;
  /** the credentials are kept as plain text (credentials.ts): always shown */
  plainTextCredentials: boolean;
  /** why the engine is not running, e.g. "Sign in to rides.example.com in Settings" */
  problem: string | null;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Why the user should look, most urgent first; empty when nothing needs them. */
export function attentionReasons(context: TrayContext): string[] {
  const reasons: string[] = [];
  if (context.problem !== null) reasons.push(context.problem);
  const status = context.status;
  if (status === null) return reasons;
  if (status.state.kind === 'needs-sign-in') reasons.push(`Needs sign-in: ${status.state.message}`);
  if (status.state.kind === 'server-full') reasons.push(`Server disk full: ${status.state.message}`);
  if (status.state.kind === 'disk-full') reasons.push(`Disk full: ${status.state.message}`);
  if (status.counts.failed > 0) reasons.push(`${plural(status.counts.failed, 'ride')} failed`);
  const awaiting = status.sources.filter((source) => source.awaitingImportChoice);
  for (const source of awaiting) reasons.push(`${source.label}: choose how far back to import`);
  return reasons;
}

function stateOf(context: TrayContext): { icon: TrayIconName; headline: string } {
  const status = context.status;
  if (status === null) {
    return context.problem === null
      ? { icon: 'idle', headline: 'Starting…' }
      : { icon: 'attention', headline: 'Needs attention' };
  }
  switch (status.state.kind) {
    case 'needs-sign-in':
      return { icon: 'attention', headline: 'Needs sign-in' };
    case 'paused':
      return { icon: 'paused', headline: 'Paused' };
    case 'offline':
      return { icon: 'offline', headline: `Offline: ${status.state.message}` };
    case 'server-full':
      return { icon: 'attention', headline: 'Server disk full: rides wait' };
    case 'disk-full':
      return { icon: 'attention', headline: 'Disk full: rides wait' };
    case 'syncing':
      return { icon: 'syncing', headline: `Syncing ${status.state.done} of ${status.state.total}` };
    case 'idle':
      return attentionReasons(context).length > 0
        ? { icon: 'attention', headline: 'Needs attention' }
        : { icon: 'idle', headline: `Up to date (${plural(status.counts.synced, 'ride')} synced)` };
  }
}

export function trayModel(context: TrayContext): TrayModel {
  const { icon, headline } = stateOf(context);
  const reasons = attentionReasons(context);
  const warning = context.plainTextCredentials ? ['Warning: credentials are stored as plain text'] : [];
  const paused = context.status?.state.kind === 'paused';
  const running = context.status !== null;
  const tooltip = [
    'Rideport',
    headline,
    ...reasons.filter((reason) => !headline.includes(reason)),
    ...warning,
  ];
  const menu: TrayMenuEntry[] = [
    { kind: 'label', label: headline },
    ...reasons.map((label): TrayMenuEntry => ({ kind: 'label', label })),
    ...warning.map((label): TrayMenuEntry => ({ kind: 'label', label })),
    { kind: 'separator' },
    { kind: 'action', action: 'open-dashboard', label: 'Open dashboard', enabled: true },
    { kind: 'action', action: 'sync-now', label: 'Sync now', enabled: running && !paused },
    paused
      ? { kind: 'action', action: 'resume', label: 'Resume syncing', enabled: running }
      : { kind: 'action', action: 'pause', label: 'Pause syncing', enabled: running },
    { kind: 'action', action: 'add-folder', label: 'Add folder…', enabled: running },
    { kind: 'action', action: 'settings', label: 'Settings…', enabled: true },
    { kind: 'separator' },
    { kind: 'action', action: 'quit', label: 'Quit Rideport', enabled: true },
  ];
  // Tooltips are cut short on some platforms (Windows: 127 characters); the first lines matter most.
  return { icon, tooltip: [...new Set(tooltip)].join('\n'), menu };
}

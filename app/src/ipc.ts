/**
 * The main side of the bridge (issue 7: "sender checks on every message"): one handler per channel of
 * ipc-channels.ts, and before any handler runs, a check that the message comes from a frame the
 * channel allows — the app's own settings page, or (for 'app' channels) the embedded server's
 * dashboard. Anything else (a remote page, a frame that navigated elsewhere, a subframe from another
 * origin) is refused and logged; its request is not even parsed.
 */
import { fileURLToPath } from 'node:url';
import type { IpcMainLike } from './electron-api.js';
import {
  CHANNEL_NAMES,
  CHANNELS,
  ipcChannel,
  type Audience,
  type ChannelName,
  type RequestOf,
  type ResponseOf,
} from './ipc-channels.js';

export type IpcHandlers = {
  [K in ChannelName]: (request: RequestOf<K>) => Promise<ResponseOf<K>>;
};

export interface SenderPolicy {
  /** the settings page's file path */
  settingsPagePath: string;
  /** the embedded dashboard's origin (http://127.0.0.1:<port>); null in remote mode or before it listens */
  dashboardOrigin(): string | null;
}

export interface IpcLog {
  warn(message: string): void;
}

/** Whether a frame at `senderUrl` may send on a channel for `audience`. */
export function senderAllowed(senderUrl: string | null, audience: Audience, policy: SenderPolicy): boolean {
  if (senderUrl === null) return false;
  let url: URL;
  try {
    url = new URL(senderUrl);
  } catch {
    return false;
  }
  if (url.protocol === 'file:') {
    try {
      return fileURLToPath(url) === policy.settingsPagePath;
    } catch {
      return false;
    }
  }
  if (audience !== 'app') return false;
  const dashboard = policy.dashboardOrigin();
  return dashboard !== null && url.origin === dashboard;
}

export class IpcRefused extends Error {
  constructor(channel: string) {
    super(`Rideport refused a message on ${channel} from a page it does not trust`);
    this.name = 'IpcRefused';
  }
}

/** Registers every channel's handler; returns the function that removes them. */
export function registerIpc(
  ipcMain: IpcMainLike,
  handlers: IpcHandlers,
  policy: SenderPolicy,
  log: IpcLog,
): () => void {
  for (const name of CHANNEL_NAMES) {
    const spec = CHANNELS[name];
    const handler = handlers[name] as (request: unknown) => Promise<unknown>;
    ipcMain.handle(ipcChannel(name), async (event, request) => {
      const senderUrl = event.senderFrame?.url ?? null;
      if (!senderAllowed(senderUrl, spec.audience, policy)) {
        log.warn(`ipc: refused ${name} from ${senderUrl ?? 'a destroyed frame'}`);
        throw new IpcRefused(name);
      }
      return handler(spec.parse(request));
    });
  }
  return () => {
    for (const name of CHANNEL_NAMES) ipcMain.removeHandler(ipcChannel(name));
  };
}

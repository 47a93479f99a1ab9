/**
 * The preload of every window (issue 7: "a typed preload bridge with one list of channels"). It runs
 * in a sandboxed renderer, where preloads are plain CommonJS scripts (Electron's ESM support matrix:
 * "Renderer (Sandboxed): ESM loader in preload: unsupported") that may require only `electron` and a
 * few built-ins, not our modules. So this file imports only types, and the channel names come from
 * the main process in process.argv (ipc-channels.ts, preloadArguments): the list exists once.
 *
 * It exposes `window.rideport`, one method per channel, each an ipcRenderer.invoke on that channel
 * only; ipcRenderer itself is never exposed.
 */
import type { RideportBridge } from './ipc-channels.js';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS is what a sandboxed preload runs
import electron = require('electron');

/** Must match CHANNELS_ARGUMENT in ipc-channels.ts (preload.test.ts checks). */
const CHANNELS_ARGUMENT = '--rideport-channels=';

/** The bridge for the names in argv; names that are not plain identifiers are ignored. */
function bridgeFor(
  argv: readonly string[],
  invoke: (channel: string, request: unknown) => Promise<unknown>,
): RideportBridge {
  const names =
    argv
      .find((argument) => argument.startsWith(CHANNELS_ARGUMENT))
      ?.slice(CHANNELS_ARGUMENT.length)
      .split(',')
      .filter((name) => /^[a-zA-Z]{1,64}$/.test(name)) ?? [];
  const bridge: Record<string, (request?: unknown) => Promise<unknown>> = {};
  for (const name of names) {
    bridge[name] = (request?: unknown) => invoke(`rideport:${name}`, request);
  }
  // The names come from the main process's one list (ipc-channels.ts), so this is that list's bridge.
  return Object.freeze(bridge) as unknown as RideportBridge;
}

electron.contextBridge.exposeInMainWorld(
  'rideport',
  bridgeFor(process.argv, (channel, request) => electron.ipcRenderer.invoke(channel, request)),
);

/**
 * The preload as Electron's sandbox runs it: the compiled CommonJS text, wrapped in a function whose
 * `require` knows only 'electron' (a sandboxed preload can load nothing of ours), with a fake
 * contextBridge and ipcRenderer. Checks that the preload and ipc.ts cover exactly the same channels,
 * the ones of ipc-channels.ts.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CHANNEL_NAMES, CHANNELS_ARGUMENT, ipcChannel, preloadArguments } from './ipc-channels.js';
import { registerIpc, type IpcHandlers } from './ipc.js';
import { FakeElectron } from './test-support/fake-electron.js';

interface Sandbox {
  exposed: Map<string, Record<string, (request?: unknown) => Promise<unknown>>>;
  required: string[];
}

async function runPreload(
  argv: string[],
  invoke: (channel: string, request: unknown) => Promise<unknown>,
): Promise<Sandbox> {
  const source = await readFile(join(import.meta.dirname, 'preload.cts'), 'utf8');
  const compiled = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const sandbox: Sandbox = { exposed: new Map(), required: [] };
  const electron = {
    contextBridge: {
      exposeInMainWorld: (key: string, api: Record<string, (request?: unknown) => Promise<unknown>>) => {
        sandbox.exposed.set(key, api);
      },
    },
    ipcRenderer: { invoke },
  };
  const require = (name: string): unknown => {
    sandbox.required.push(name);
    if (name !== 'electron') throw new Error(`module not found: ${name}`);
    return electron;
  };
  const module = { exports: {} };
  // The shape of Electron's sandboxed preload wrapper: CommonJS names and a limited process.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- running the preload as the sandbox does
  (new Function('exports', 'require', 'module', 'process', compiled) as (...args: unknown[]) => void)(
    module.exports,
    require,
    module,
    {
      argv,
    },
  );
  return sandbox;
}

describe('preload', () => {
  it('is CommonJS that requires nothing but electron', async () => {
    const sandbox = await runPreload(['electron', ...preloadArguments()], () => Promise.resolve(null));
    expect(sandbox.required).toEqual(['electron']);
    expect([...sandbox.exposed.keys()]).toEqual(['rideport']);
  });

  it('exposes one method per channel of the list, and nothing else (no ipcRenderer)', async () => {
    const sandbox = await runPreload(preloadArguments(), () => Promise.resolve(null));
    const bridge = sandbox.exposed.get('rideport')!;
    expect(Object.keys(bridge).sort()).toEqual([...CHANNEL_NAMES].sort());
    expect(Object.isFrozen(bridge)).toBe(true);
    expect(Object.values(bridge).every((method) => typeof method === 'function')).toBe(true);
  });

  it('uses the argument name of ipc-channels.ts, and ignores names that are not identifiers', async () => {
    const source = await readFile(join(import.meta.dirname, 'preload.cts'), 'utf8');
    expect(source).toContain(`const CHANNELS_ARGUMENT = '${CHANNELS_ARGUMENT}';`);
    const sandbox = await runPreload([`${CHANNELS_ARGUMENT}syncNow,__proto__,a-b,constructor x`], () =>
      Promise.resolve(null),
    );
    expect(Object.keys(sandbox.exposed.get('rideport')!)).toEqual(['syncNow']);
  });

  it('and ipc.ts cover exactly the same channels: every bridge method reaches its handler', async () => {
    const electron = new FakeElectron();
    const settingsPagePath = join('/opt', 'Rideport', 'static', 'settings.html');
    const reached: string[] = [];
    const handlers = Object.fromEntries(
      CHANNEL_NAMES.map((name) => [
        name,
        () => {
          reached.push(name);
          return Promise.resolve(null);
        },
      ]),
    ) as unknown as IpcHandlers;
    registerIpc(
      electron.ipcMain,
      handlers,
      { settingsPagePath, dashboardOrigin: () => null },
      { warn: () => undefined },
    );
    const sender = pathToFileURL(settingsPagePath).href;
    const invoked: string[] = [];
    const sandbox = await runPreload(preloadArguments(), (channel, request) => {
      invoked.push(channel);
      return electron.invoke(channel, sender, request);
    });
    const bridge = sandbox.exposed.get('rideport')!;
    // A request each channel takes; the others take none.
    const requests: Partial<Record<string, unknown>> = {
      signIn: { url: 'https://x.example', apiKey: 'k', email: 'a@b.c', password: 'p' },
      saveSettings: {},
      removeFolder: { folder: '/home/rider/Rides' },
      chooseImport: { sourceId: 's', window: { kind: 'all' } },
    };
    for (const name of CHANNEL_NAMES) {
      await bridge[name]!(Object.hasOwn(requests, name) ? requests[name] : undefined);
    }
    expect(invoked).toEqual(CHANNEL_NAMES.map(ipcChannel));
    expect(reached).toEqual(CHANNEL_NAMES);
  });
});

/**
 * One list of folders (issue 19): the settings page in Debian's Chromium, wired to the real main
 * process (DesktopApp over FakeElectron: each bridge method is an IPC invoke from the settings page's
 * own URL), and the dashboard of the embedded server on a real socket. A folder removed on the
 * dashboard's Sync page leaves the settings page and the settings file, and does not come back at the
 * next start; one added or removed on the settings page is synced or not at once, and the Sync page
 * says so. Screenshots at 1280 and 390 px go to test-results/screenshots.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CHROMIUM_SKIP_REASON,
  chromiumAvailable,
  launchChromium,
  screenshot,
} from '../../test/support/chromium.js';
import { appFiles, DesktopApp } from './desktop-app.js';
import { CHANNEL_NAMES, ipcChannel } from './ipc-channels.js';
import { FakeElectron } from './test-support/fake-electron.js';

const appRoot = join(import.meta.dirname, '..');
const settingsUrl = pathToFileURL(appFiles(appRoot).settingsPage).href;
const sampleRide = join(appRoot, '..', 'fixtures', 'gpx', 'sample-ride.gpx');

let browser: Browser;
let root: string;
let electron: FakeElectron;
let desktop: DesktopApp | null = null;
let first: string;
let second: string;

function start(): Promise<boolean> {
  desktop = new DesktopApp({
    electron,
    appRoot,
    argv: ['--hidden'],
    env: {},
    log: { info: () => undefined, warn: () => undefined },
    deviceRoots: [],
  });
  return desktop.start();
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let waited = 0; !(await check()); waited += 50) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function savedFolders(): Promise<string[]> {
  return (
    JSON.parse(await readFile(join(root, 'userData', 'settings.json'), 'utf8')) as { folders: string[] }
  ).folders;
}

function engineFolders(): string[] {
  return desktop!
    .host!.engine.status()
    .sources.filter((source) => source.kind === 'folder')
    .map((source) => source.path);
}

/** The settings page with `window.rideport` doing what the preload does: an invoke per method. */
async function openSettings(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.exposeFunction('rideportInvoke', (name: string, request: unknown) =>
    electron.invoke(ipcChannel(name as never), settingsUrl, ...(request === undefined ? [] : [request])),
  );
  await page.addInitScript((names: string[]) => {
    const { rideportInvoke: invoke } = window as unknown as {
      rideportInvoke: (name: string, request: unknown) => Promise<unknown>;
    };
    (window as unknown as { rideport: unknown }).rideport = Object.fromEntries(
      names.map((name) => [name, (request?: unknown) => invoke(name, request)]),
    );
  }, CHANNEL_NAMES);
  await page.goto(settingsUrl);
  await page.locator('#data-folder').filter({ hasText: /\S/ }).waitFor();
  return page;
}

async function listedFolders(page: Page): Promise<string[]> {
  return page
    .locator('#folders li')
    .evaluateAll((items) => items.map((item) => item.firstChild?.textContent ?? ''));
}

/** What the page does when its window comes to the front again. */
async function focus(page: Page): Promise<void> {
  await page.bringToFront();
  // Headless Chromium does not move window focus between pages: the event the page listens for.
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
}

const title = 'settings page and Sync page: one list of folders (issue 19)';
describe.skipIf(!chromiumAvailable)(chromiumAvailable ? title : `${title}: ${CHROMIUM_SKIP_REASON}`, () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser.close();
  });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'rideport-settings-folders-'));
    electron = new FakeElectron('linux', {
      userData: join(root, 'userData'),
      home: join(root, 'home'),
      exe: '/opt/Rideport/rideport',
    });
    first = join(root, 'Rides');
    second = join(root, 'Trainer rides');
    for (const folder of [first, second]) await mkdir(folder);
    await copyFile(sampleRide, join(first, 'ride.gpx'));
    await mkdir(join(root, 'userData'), { recursive: true });
    await writeFile(join(root, 'userData', 'settings.json'), JSON.stringify({ folders: [first, second] }));
  });
  afterEach(async () => {
    await desktop?.quit();
    desktop = null;
    await rm(root, { recursive: true, force: true });
  });

  it('a folder removed on the Sync page leaves the settings; one added or removed in the settings is synced or not at once', async () => {
    await start();
    await until(() => desktop!.host!.engine.status().counts.synced === 1, 'the ride in the first folder');
    const settings = await openSettings();
    expect(await listedFolders(settings)).toEqual([first, second]);

    // Removed on the dashboard's Sync page, as a rider does it.
    const dashboard = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await dashboard.goto(await desktop!.host!.dashboardEntry());
    await dashboard.goto(`${desktop!.host!.serverUrl}/dashboard/sync`);
    await Promise.all([
      dashboard.waitForURL(/\/dashboard\/sync\/remove\?/),
      dashboard.getByRole('link', { name: `Remove ${first}` }).click(),
    ]);
    await Promise.all([
      dashboard.waitForURL(/notice=folder-removed$/),
      dashboard.getByRole('button', { name: 'Remove folder' }).click(),
    ]);
    expect(engineFolders()).toEqual([second]);
    await until(async () => (await savedFolders()).length === 1, 'the settings file to follow');
    expect(await savedFolders()).toEqual([second]);
    await focus(settings);
    await until(async () => (await listedFolders(settings)).length === 1, 'the settings page to follow');
    expect(await listedFolders(settings)).toEqual([second]);
    for (const width of [1280, 390]) {
      await settings.setViewportSize({ width, height: 900 });
      expect(await settings.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshot(settings, `app-settings-folder-removed-on-sync-page-${width}`);
    }
    await settings.setViewportSize({ width: 1280, height: 900 });

    // Added back on the settings page: synced at once, without uploading its ride again.
    electron.nextFolder = first;
    await settings.getByRole('button', { name: 'Add folder…' }).click();
    await until(async () => (await listedFolders(settings)).length === 2, 'the added folder on the page');
    expect(await listedFolders(settings)).toEqual([second, first]);
    expect(await savedFolders()).toEqual([second, first]);
    expect(engineFolders().sort()).toEqual([first, second].sort());
    expect(desktop!.host!.engine.status().removedSources).toEqual([]);

    // Removed on the settings page: the Sync page lists it among the removed folders.
    await settings
      .locator('#folders li', { hasText: second })
      .getByRole('button', { name: 'Remove' })
      .click();
    await until(async () => (await listedFolders(settings)).length === 1, 'the removal on the page');
    expect(engineFolders()).toEqual([first]);
    expect(await savedFolders()).toEqual([first]);
    await dashboard.goto(`${desktop!.host!.serverUrl}/dashboard/sync`);
    expect(await dashboard.locator('.removed-sources li', { hasText: second }).count()).toBe(1);
    expect(desktop!.host!.engine.status().counts.synced).toBe(1);
    for (const width of [1280, 390]) {
      await settings.setViewportSize({ width, height: 900 });
      await screenshot(settings, `app-settings-folders-${width}`);
    }
    await settings.close();
    await dashboard.close();

    // The next start syncs what the list says, and the list still says it.
    await desktop!.quit();
    await start();
    expect(engineFolders()).toEqual([first]);
    expect(await savedFolders()).toEqual([first]);
  });

  it('a folder the settings file lists but the Sync page removed earlier is dropped from the file at start', async () => {
    await start();
    desktop!.host!.engine.removeSource(
      desktop!.host!.engine.status().sources.find((s) => s.path === second)!.id,
    );
    await until(async () => (await savedFolders()).length === 1, 'the settings file to follow');
    await desktop!.quit();
    // An older settings file (a backup, an edit by hand) names the removed folder again.
    await writeFile(join(root, 'userData', 'settings.json'), JSON.stringify({ folders: [first, second] }));
    await start();
    expect(engineFolders()).toEqual([first]);
    await until(async () => (await savedFolders()).length === 1, 'the settings file to follow');
    expect(await savedFolders()).toEqual([first]);
  });
});

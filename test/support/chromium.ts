/**
 * Debian's Chromium driven by playwright-core, for the page tests (issue 7): never a downloaded
 * browser. Tests skip, saying why, when /usr/bin/chromium is missing (`.ci/install-system-tools`
 * installs it). Screenshots go to test-results/screenshots, kept as test artifacts. In a Vitest run the
 * page tests share one Chromium (chromium-global-setup.ts, issue 35).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPOSITORY_ROOT } from './corpus.js';

export const CHROMIUM_PATH = process.env['RIDEPORT_CHROMIUM'] ?? '/usr/bin/chromium';

export const chromiumAvailable = existsSync(CHROMIUM_PATH);

export const CHROMIUM_SKIP_REASON = `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium): browser tests skipped`;

if (!chromiumAvailable) console.warn(`[rideport] ${CHROMIUM_SKIP_REASON}`);

export const SCREENSHOT_DIR = join(REPOSITORY_ROOT, 'test-results', 'screenshots');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];

declare module 'vitest' {
  export interface ProvidedContext {
    /** the run's Chromium (chromium-global-setup.ts); missing in a project that does not start it */
    chromiumWsEndpoint: string | undefined;
  }
}

/**
 * A browser for one test file or benchmark. In a Vitest run whose project starts the run's Chromium
 * (vitest.config.ts), a connection to it: the file's pages and contexts are its own, and `close()`
 * ends them and the connection, not the browser. Elsewhere (a benchmark) a Chromium of its own.
 */
export async function launchChromium(): Promise<Browser> {
  if (process.env['VITEST'] !== undefined) {
    const { inject } = await import('vitest');
    const endpoint = inject('chromiumWsEndpoint');
    if (endpoint !== undefined) return chromium.connect(endpoint);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** Saves a full-page screenshot as test-results/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

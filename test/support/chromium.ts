/**
 * Debian's Chromium driven by playwright-core, for the page tests (issue 7): never a downloaded
 * browser. Tests skip, saying why, when /usr/bin/chromium is missing (`.ci/install-system-tools`
 * installs it). Screenshots go to test-results/screenshots, kept as test artifacts.
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

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Saves a full-page screenshot as test-results/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

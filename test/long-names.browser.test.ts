/**
 * Names from files are bounded to 255 characters (issue 17), and 255 letters without a space must not
 * widen a page: in Debian's Chromium, at 1280 and 390 pixels, the rides list with such a name is no
 * wider than the same list without it, and the ride page no wider than the window. Screenshots go to
 * test-results/screenshots.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trackFromPoints, type TrackPoint } from '@rideport/ridefile';
import { buildServer } from '@rideport/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, screenshot } from './support/chromium.js';
import { dashboardPages } from '@rideport/dashboard';

const EMAIL = 'long.names@example.com';
const PASSWORD = 'correct horse long names';
const LONG_NAME = 'x'.repeat(255);

/** Thirty points a minute apart near Zürich, starting `hours` after 2024-06-01 08:00 UTC. */
function ride(hours: number): TrackPoint[] {
  const start = Date.parse('2024-06-01T08:00:00Z') / 1000 + hours * 3600;
  return Array.from({ length: 30 }, (_, i) => ({
    x: 8.54 + i * 1e-3,
    y: 47.37 + i * 1e-3,
    t: start + i * 60,
  }));
}

describe.skipIf(!chromiumAvailable)('a name of 255 letters without a space, in Chromium', () => {
  let directory: string;
  let app: Awaited<ReturnType<typeof buildServer>> | undefined;
  let url: string;
  let browser: Browser | undefined;
  let longId: number;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'rideport-long-names-'));
    app = await buildServer({
      pages: [dashboardPages],
      databasePath: join(directory, 'rideport.sqlite'),
      baseUrl: 'http://127.0.0.1',
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    const { store } = app.rideport;
    const user = await store.users.createPerson({ email: EMAIL, password: PASSWORD, name: 'Long Names' });
    const device = { sport: 'cycling', device: 'Garmin Edge 530' };
    await store.assets.createFromTrack(
      user.id,
      trackFromPoints(ride(0), { name: 'Morning ride to the lake', ...device }),
    );
    await store.assets.createFromTrack(user.id, trackFromPoints(ride(3), { name: 'Evening lap', ...device }));
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('widens neither the rides list nor the ride page, at 1280 and at 390 pixels', async () => {
    const { store } = app!.rideport;
    const widths = async (width: number, shots: boolean): Promise<{ list: number; ride: number | null }> => {
      const context = await browser!.newContext({ viewport: { width, height: 900 } });
      try {
        const page = await context.newPage();
        await page.route('https://tile.openstreetmap.org/**', (route) => route.abort());
        await page.goto(`${url}/dashboard`);
        await page.getByLabel('Email').fill(EMAIL);
        await page.getByLabel('Password').fill(PASSWORD);
        await Promise.all([
          page.waitForURL(`${url}/dashboard/rides`),
          page.getByRole('button', { name: 'Sign in' }).click(),
        ]);
        const scrollWidth = (): Promise<number> => page.evaluate(() => document.documentElement.scrollWidth);
        const list = await scrollWidth();
        if (!shots) return { list, ride: null };
        await screenshot(page, `long-name-rides-${width}`);
        await page.goto(`${url}/dashboard/rides/${longId}`);
        await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(LONG_NAME);
        await screenshot(page, `long-name-ride-${width}`);
        return { list, ride: await scrollWidth() };
      } finally {
        await context.close();
      }
    };
    const before = { 1280: await widths(1280, false), 390: await widths(390, false) };
    const user = await store.users.findByEmail(EMAIL);
    longId = (await store.assets.createFromTrack(user!.id, trackFromPoints(ride(6), { name: LONG_NAME }))).row
      .id;
    for (const width of [1280, 390] as const) {
      const after = await widths(width, true);
      // The list may already scroll sideways on a phone (seven columns); the long name adds at most
      // a narrow column's worth.
      expect(after.list, `list at ${width}`).toBeLessThanOrEqual(before[width].list + 0.15 * width);
      expect(after.ride, `ride page at ${width}`).toBe(width);
    }
  }, 120_000);
});

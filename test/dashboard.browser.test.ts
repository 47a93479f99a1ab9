/**
 * The dashboard in Debian's Chromium (issue 7): a real server on a real socket, signed in through the
 * sign-in page; the rides list shows a corpus ride and a synthetic 50,000-point ride; each ride page
 * draws its track on the map with OpenStreetMap's tiles blocked (so the outline is proven to draw
 * offline) and its charts; the downloads answer; the keyboard reaches the navigation and the
 * time/distance toggle. A cut-off copy of a real ride, uploaded through the API, shows its notice in
 * words at the top of its page (issue 16). Screenshots go to test-results/screenshots.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RideportClient, undiciTransport } from '@rideport/client';
import { parseRideFile, trackFromPoints } from '@rideport/ridefile';
import { buildServer } from '@rideport/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, screenshot, SCREENSHOT_DIR } from './support/chromium.js';
import { CORPUS_SKIP_REASON, corpusAvailable, readCorpus, readFixture } from './support/corpus.js';
import { longRide } from './support/long-ride.js';
import { zoneAbbreviation } from '../packages/dashboard/src/format.js';
import { dashboardPages } from '@rideport/dashboard';

const CORPUS_RIDE = 'fit-parser__road-with-power.fit';
/** Another ride for the cut-off copy: a copy of CORPUS_RIDE, stored whole above, is the same recording. */
const CUT_OFF_RIDE = 'fit-parser__batt.fit';
const EMAIL = 'dashboard.rider@example.com';
const PASSWORD = 'correct horse dashboard';
const LONG_RIDE_POINTS = 50_000;

if (!corpusAvailable) console.warn(`[dashboard browser] ${CORPUS_SKIP_REASON}`);

/** A synthetic ride of `count` points a second apart, with elevation, heart rate, cadence and power. */
describe.skipIf(!chromiumAvailable)('the dashboard in Chromium', () => {
  let directory: string | undefined;
  let app: Awaited<ReturnType<typeof buildServer>> | undefined;
  let url: string;
  let browser: Browser | undefined;
  let page: Page;
  let longRideId: number;
  let corpusRideId: number | null = null;
  let client: RideportClient | undefined;
  let tileRequests = 0;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'rideport-dashboard-'));
    app = await buildServer({
      pages: [dashboardPages],
      databasePath: join(directory, 'rideport.sqlite'),
      baseUrl: 'http://127.0.0.1',
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    url = `http://127.0.0.1:${address.port}`;
    const { store } = app.rideport;
    const user = await store.users.createPerson({
      email: EMAIL,
      password: PASSWORD,
      name: 'Dashboard Rider',
    });
    const long = trackFromPoints(longRide(LONG_RIDE_POINTS), {
      name: 'Fifty thousand points',
      sport: 'cycling',
    });
    longRideId = (await store.assets.createFromTrack(user.id, long)).row.id;
    if (corpusAvailable) {
      const [track] = parseRideFile(readCorpus(CORPUS_RIDE), { filename: CORPUS_RIDE }).tracks;
      if (track !== undefined) corpusRideId = (await store.assets.createFromTrack(user.id, track)).row.id;
    }
    const apiClient = await store.apiClients.create(user.id, { name: 'Dashboard test', redirectUris: [] });
    const issued = await store.authTokens.issue(user.id, apiClient.id);
    client = new RideportClient({
      baseUrl: url,
      credentials: { kind: 'auth-token', apiKey: apiClient.apiKey, authToken: issued.token },
      transport: undiciTransport(),
    });

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    // No tiles: the track's outline must draw without them (offline, the desktop app).
    await page.route('https://tile.openstreetmap.org/**', (route) => {
      tileRequests++;
      return route.abort();
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await app?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  it('signs in through the sign-in page and lands on the rides list', async () => {
    await page.goto(`${url}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/sign_in');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([
      page.waitForURL(`${url}/dashboard/rides`),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Rides');
    const names = await page.locator('table.assets tbody th[scope=row]').allTextContents();
    expect(names.map((name) => name.trim())).toContain('Fifty thousand points');
    if (corpusRideId !== null) expect(names.length).toBe(2);
    await screenshot(page, 'dashboard-rides');
  });

  it('reaches the navigation links with the keyboard', async () => {
    const reached = await tabThrough(page, 20);
    for (const label of ['Rides', 'Routes', 'Sync', 'Developer settings'])
      expect(reached).toContain(`A:${label}`);
  });

  async function expectRidePageDraws(id: number, name: string): Promise<void> {
    await page.goto(`${url}/dashboard/rides/${id}`);
    // The outline: an SVG path in Leaflet's overlay pane with a real `d`, with every tile refused.
    const path = page.locator('.leaflet-overlay-pane path').first();
    await path.waitFor({ state: 'attached' });
    const d = (await path.getAttribute('d')) ?? '';
    expect(d.length).toBeGreaterThan(100);
    expect(d).toMatch(/^M-?\d+ -?\d+L/);
    // Start and end markers are vector circles beside the line.
    expect(await page.locator('.leaflet-overlay-pane path').count()).toBeGreaterThanOrEqual(3);
    // The charts: one uPlot per channel, each canvas with the series' coloured pixels on it.
    await page.locator('.chart .uplot canvas').first().waitFor({ state: 'attached' });
    const coloured = await colouredPixelsPerChart(page);
    expect(Object.keys(coloured).length).toBeGreaterThan(0);
    for (const [chart, count] of Object.entries(coloured)) expect(count, chart).toBeGreaterThan(50);
    await screenshot(page, name);
    expect(pageErrors).toEqual([]);
  }

  it('draws the 50,000-point ride: map outline offline, charts, summary', async () => {
    await expectRidePageDraws(longRideId, 'dashboard-ride-50k');
    const charts = await page.locator('.chart .uplot').count();
    expect(charts).toBe(5);
    await expect(page.locator('#chart-axis').isVisible()).resolves.toBe(true);
    expect(tileRequests).toBeGreaterThan(0);
  });

  it('switches the charts to distance with the keyboard', async () => {
    const reached = await tabThrough(page, 80);
    expect(reached).toContain('INPUT:time');
    await page.locator('input[name="chart-axis"][value="time"]').focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.locator('input[name="chart-axis"][value="distance"]').isChecked()).resolves.toBe(true);
    await page.waitForFunction(
      () => document.querySelector('#chart-e')?.getAttribute('data-axis') === 'distance',
    );
    const coloured = await colouredPixelsPerChart(page);
    for (const count of Object.values(coloured)) expect(count).toBeGreaterThan(50);
    await screenshot(page, 'dashboard-ride-50k-distance');
  });

  it.skipIf(!corpusAvailable)(`draws a corpus ride (${CORPUS_RIDE})`, async () => {
    expect(corpusRideId).not.toBeNull();
    await expectRidePageDraws(corpusRideId!, 'dashboard-ride-corpus');
  });

  it('says at the top of the page of a cut-off ride where it stops, at 1280 and 390 px', async () => {
    // A real ride cut off at 60 % of its bytes (the corpus is read in place, never copied), else the
    // project's own cut-off fixture.
    const whole = corpusAvailable ? readCorpus(CUT_OFF_RIDE) : readFixture('fit', 'truncated.fit');
    const cut = corpusAvailable ? whole.subarray(0, Math.floor(whole.length * 0.6)) : whole;
    const uploaded = await client!.uploadRide({ bytes: cut, filename: 'cut-off-ride.fit' });
    const [trip] = uploaded.trips;
    expect(trip).toBeDefined();
    // The words, worked out here from the parsed points and the trip's time zone.
    const [track] = parseRideFile(cut, { filename: 'cut-off-ride.fit' }).tracks;
    const lastTime = track!.points.findLast((point) => point.t !== undefined)!.t!;
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: trip!.time_zone ?? 'UTC',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(lastTime * 1000));
    const readUpTo = `the ride was read up to ${local}${trip!.time_zone === null ? ' UTC' : ''}`;
    const words = `This file ends early: ${readUpTo}.`;
    expect(uploaded.message).toBe(`Created 1 ride from a file that ends early: ${readUpTo}`);
    expect(trip!.warnings).toEqual([{ code: 'RIDEFILE_TRUNCATED', message: words }]);

    await page.goto(`${url}/dashboard/rides/${trip!.id}`);
    const notice = page.getByRole('region', { name: 'A problem with the file' });
    await expect(notice.isVisible()).resolves.toBe(true);
    // The page names the zone after the time (issue 40); the API's words leave it to the record's zone.
    const zone = trip!.time_zone === null ? '' : ` ${zoneAbbreviation(lastTime * 1000, trip!.time_zone)}`;
    expect((await notice.textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      `A problem with the file ${words.replace(/\.$/, `${zone}.`)}`,
    );
    // Near the top: above the summary, inside the first screen.
    const noticeBox = (await notice.boundingBox())!;
    const summaryBox = (await page.locator('#summary-heading').boundingBox())!;
    expect(noticeBox.y).toBeLessThan(summaryBox.y);
    expect(noticeBox.y + noticeBox.height).toBeLessThan(900);
    // The numbers people see agree with each other (issue 16): none from the whole ride's session.
    const shown = await page.evaluate(() =>
      Object.fromEntries(
        Array.from(document.querySelectorAll('dt')).map((term) => [
          term.textContent.trim(),
          term.nextElementSibling?.textContent.trim(),
        ]),
      ),
    );
    const number = (text: string | undefined): number => Number.parseFloat((text ?? '').replace(/,/g, ''));
    const seconds = (text: string | undefined): number =>
      (text ?? '').split(':').reduce((total, part) => total * 60 + Number(part), 0);
    expect(number(shown['Average speed'])).toBeLessThanOrEqual(number(shown['Maximum speed']));
    expect(seconds(shown['Moving time'])).toBeLessThanOrEqual(seconds(shown['Elapsed time']));
    expect(number(shown['Distance']) * 1000).toBeCloseTo(track!.summary.distanceMeters!, -2);
    if (corpusAvailable) {
      // The device wrote one lap for the whole ride; the page gives the lap of the points it holds.
      await expect(page.locator('table.laps caption').textContent()).resolves.toContain(
        'computed from the points read',
      );
    }
    await screenshot(page, 'dashboard-ride-cut-off-1280');

    // A phone, signed in as the same rider.
    const narrow = await browser!.newContext({
      viewport: { width: 390, height: 844 },
      storageState: await page.context().storageState(),
    });
    try {
      const phone = await narrow.newPage();
      await phone.route('https://tile.openstreetmap.org/**', (route) => route.abort());
      await phone.goto(`${url}/dashboard/rides/${trip!.id}`);
      const small = phone.getByRole('region', { name: 'A problem with the file' });
      await expect(small.isVisible()).resolves.toBe(true);
      const box = (await small.boundingBox())!;
      // The whole notice fits the width: nothing runs off the side of a phone.
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      await screenshot(phone, 'dashboard-ride-cut-off-390');
      // The first screen as the rider sees it (the full page is wider: the laps table overflows).
      await phone.screenshot({ path: join(SCREENSHOT_DIR, 'dashboard-ride-cut-off-390-first-screen.png') });
    } finally {
      await narrow.close();
    }
    expect(pageErrors).toEqual([]);
  });

  it('answers the downloads with the right content types', async () => {
    const types: Record<string, string> = {
      gpx: 'application/gpx+xml',
      tcx: 'application/vnd.garmin.tcx+xml',
      geojson: 'application/geo+json',
      csv: 'text/csv',
    };
    for (const [extension, type] of Object.entries(types)) {
      const response = await page.request.get(`${url}/dashboard/rides/${longRideId}/download.${extension}`);
      expect(response.status(), extension).toBe(200);
      expect(response.headers()['content-type']).toContain(type);
      expect(response.headers()['content-disposition']).toContain(`Fifty-thousand-points.${extension}`);
    }
  });
});

/** Presses Tab `times` times from the top of the page; what had focus each time, as `TAG:text`. */
async function tabThrough(page: Page, times: number): Promise<string[]> {
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  const reached: string[] = [];
  for (let i = 0; i < times; i++) {
    await page.keyboard.press('Tab');
    reached.push(
      await page.evaluate(() => {
        const element = document.activeElement;
        if (element === null) return '';
        const text = element instanceof HTMLInputElement ? element.value : element.textContent.trim();
        return `${element.tagName}:${text}`;
      }),
    );
  }
  return reached;
}

/** For each chart, how many pixels of its canvas are clearly coloured (not the grey of axes and grid). */
async function colouredPixelsPerChart(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => {
    const counts: Record<string, number> = {};
    // No DOM.Iterable in the checked libraries: NodeLists are walked by index.
    const charts = document.querySelectorAll<HTMLElement>('.chart');
    for (let k = 0; k < charts.length; k++) {
      const chart = charts[k]!;
      const canvas = chart.querySelector('canvas');
      const context = canvas === null ? null : canvas.getContext('2d');
      if (canvas === null || context === null) continue;
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let coloured = 0;
      for (let i = 0; i < data.length; i += 4) {
        const r = data[i]!;
        const g = data[i + 1]!;
        const b = data[i + 2]!;
        const alpha = data[i + 3]!;
        if (alpha > 128 && Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
      }
      counts[chart.id] = coloured;
    }
    return counts;
  });
}

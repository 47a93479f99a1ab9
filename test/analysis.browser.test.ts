/**
 * Preferences, time zones and the ride analysis in Debian's Chromium over a real socket (issue 19):
 * the preferences form without JavaScript (units, time zone, FTP, heart rates; refusals in words that
 * keep what was typed; CSRF); the lists and ride pages in the chosen units, every time with its zone
 * (a ride's own zone from its positions, the rider's for a ride without positions and for a virtual
 * ride); the analysis of real corpus rides with and without an FTP; an indoor ride without an empty
 * map or a speed chart of zeros; the charts' distance axis in miles; the overview's weekly and monthly
 * totals and the best power over all rides. Screenshots at 1280 and 390 px go
 * to test-results/screenshots, and no page scrolls sideways.
 */
import { parseRideFile, trackFromPoints } from '@rideport/ridefile';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, screenshot } from './support/chromium.js';
import { CORPUS_SKIP_REASON, corpusAvailable, readCorpus } from './support/corpus.js';
import { type PageServer, signedInPage, startPageServer } from './support/page-server.js';

const PASSWORD = 'correct horse analysis';
const RIDER = 'analysis.rider@example.com';
/** Positions near Athens, power, heart rate, one lap. */
const OUTDOOR = 'fit-parser__road-with-power.fit';
/** Power and heart rate, no positions: a trainer ride with five laps. */
const INDOOR = 'fitparse__sample-activity-indoor-trainer.fit';
/** Zwift: positions in a made-up world. */
const VIRTUAL = 'fitfilefaker__zwift_20250401.fit';

if (!corpusAvailable) console.warn(`[analysis browser] ${CORPUS_SKIP_REASON}`);

describe.skipIf(!chromiumAvailable || !corpusAvailable)('preferences and analysis in Chromium', () => {
  let server: PageServer | undefined;
  let url: string;
  let browser: Browser | undefined;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    server = await startPageServer('analysis');
    url = server.url;
    const { users, assets } = server.app.rideport.store;
    const rider = await users.createPerson({ email: RIDER, password: PASSWORD, name: 'Analyst' });
    for (const [key, name] of [
      ['outdoor', OUTDOOR],
      ['indoor', INDOOR],
      ['virtual', VIRTUAL],
    ] as const) {
      const [track] = parseRideFile(readCorpus(name), { filename: name }).tracks;
      ids[key] = (await assets.createFromTrack(rider.id, track!, { name: `${key} ride` })).row.id;
    }
    // No positions, no power: 2025-01-15 12:00 UTC.
    const start = Date.parse('2025-01-15T12:00:00Z') / 1000;
    const points = Array.from({ length: 120 }, (_, i) => ({ t: start + i * 10, h: 120 + (i % 30) }));
    const plain = trackFromPoints(points, { name: 'Run without GPS', sport: 'running' });
    ids['plain'] = (await assets.createFromTrack(rider.id, plain)).row.id;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const signedIn = async (width: number, javaScriptEnabled = true): Promise<Page> =>
    (
      await signedInPage(
        browser!,
        server!,
        { email: RIDER, password: PASSWORD },
        { width, javaScriptEnabled },
      )
    ).page;

  const overflow = (page: Page): Promise<number> =>
    page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  const text = async (page: Page, selector: string): Promise<string> =>
    ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

  it('shows metric units, UTC for rides without a zone, and asks for an FTP before the preferences are set', async () => {
    const page = await signedIn(1280);
    await page.goto(`${url}/dashboard/rides/${ids['outdoor']}`);
    const summary = await text(page, 'dl.summary');
    expect(summary).toMatch(/Distance\s*[\d.]+ km/);
    expect(summary).toMatch(/\(Europe\/Athens\)/);
    // Normalized power the same as `rideport inspect`'s: the ridefile summary's.
    const [track] = parseRideFile(readCorpus(OUTDOOR), { filename: OUTDOOR }).tracks;
    expect(await text(page, '#power-analysis')).toContain(
      `Normalized power ${Math.round(track!.summary.powerWatts!.normalized!)} W`,
    );
    await expect(page.locator('#ftp-missing a').getAttribute('href')).resolves.toBe('/dashboard/preferences');
    await expect(page.locator('#power-zones').count()).resolves.toBe(0);
    await expect(page.locator('#heart-rate-missing').count()).resolves.toBe(1);
    await page.goto(`${url}/dashboard/rides/${ids['plain']}`);
    expect(await text(page, 'dl.summary')).toContain('2025-01-15 12:00 UTC (UTC)');
    await page.context().close();
  }, 60_000);

  it('saves preferences through the form without JavaScript, refusing bad values in words', async () => {
    const page = await signedIn(1280, false);
    await page.goto(`${url}/dashboard/preferences`);
    await page.getByLabel(/^Imperial/).check();
    await page.getByLabel('Time zone').fill('Mars/Olympus_Mons');
    await page.getByLabel('Functional threshold power (W)').fill('two hundred');
    await page.getByLabel('Threshold heart rate (bpm)').fill('180');
    await page.getByLabel('Maximum heart rate (bpm)').fill('170');
    await page.getByRole('button', { name: 'Save' }).click();
    const errors = await page.getByRole('alert').allTextContents();
    expect(errors).toEqual([
      '"Mars/Olympus_Mons" is not a time zone this server knows; write one such as Europe/Zurich.',
      'The FTP must be a whole number of watts from 1 to 2000.',
      'The threshold heart rate cannot be above the maximum heart rate.',
    ]);
    // What was typed comes back, so nothing is lost.
    await expect(page.getByLabel('Time zone').inputValue()).resolves.toBe('Mars/Olympus_Mons');
    await expect(page.getByLabel(/^Imperial/).isChecked()).resolves.toBe(true);
    await screenshot(page, 'preferences-errors-1280');

    await page.getByLabel('Time zone').fill('europe/zurich');
    await page.getByLabel('Functional threshold power (W)').fill('250');
    await page.getByLabel('Maximum heart rate (bpm)').fill('190');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Saved.');
    await expect(page.getByLabel('Time zone').inputValue()).resolves.toBe('Europe/Zurich');
    const riderId = (await server!.app.rideport.store.users.findByEmail(RIDER))!.id;
    const stored = await server!.app.rideport.store.preferences.get(riderId);
    expect(stored).toEqual({
      units: 'imperial',
      timeZone: 'Europe/Zurich',
      ftpWatts: 250,
      thresholdHeartRate: 180,
      maxHeartRate: 190,
    });
    await screenshot(page, 'preferences-1280');

    // A post without the form's CSRF token changes nothing.
    const forged = await page.request.post(`${url}/dashboard/preferences`, {
      form: { units: 'metric', time_zone: 'UTC' },
    });
    expect(forged.status()).toBe(403);
    await expect(server!.app.rideport.store.preferences.get(riderId)).resolves.toEqual(stored);
    await page.context().close();
  }, 60_000);

  it('shows every page in miles and feet, each time with its zone, and the analysis from the FTP', async () => {
    const page = await signedIn(1280);
    await page.goto(`${url}/dashboard/rides`);
    const rows = await page.locator('table.assets tbody tr').allTextContents();
    const row = (name: string): string => rows.find((found) => found.includes(name))!.replace(/\s+/g, ' ');
    expect(row('outdoor ride')).toMatch(/ 2026-01-19 14:57 EET .* [\d.]+ mi .* [\d,]+ ft/);
    // No positions, and a virtual world: the rider's zone (Europe/Zurich, CET in January).
    expect(row('Run without GPS')).toContain('2025-01-15 13:00 CET');
    expect(row('virtual ride')).toMatch(/ CES?T /);
    await expect(page.locator('table.assets time').first().getAttribute('title')).resolves.toMatch(/\//);
    await screenshot(page, 'analysis-rides-1280');

    await page.goto(`${url}/dashboard/rides/${ids['virtual']}`);
    expect(await text(page, 'dl.summary')).toContain('(Europe/Zurich)');

    await page.goto(`${url}/dashboard/rides/${ids['outdoor']}`);
    await page.waitForSelector('#chart-p .uplot');
    const summary = await text(page, 'dl.summary');
    expect(summary).toMatch(/Distance [\d.]+ mi/);
    expect(summary).toMatch(/Elevation gain [\d,]+ ft/);
    expect(summary).toMatch(/Average speed [\d.]+ mph/);
    const analysis = await text(page, '#power-analysis');
    expect(analysis).toMatch(/Intensity factor 0\.\d\d/);
    expect(analysis).toMatch(/Training stress score \d+/);
    expect(analysis).toMatch(/Work [\d,]+ kJ/);
    await expect(page.locator('#ftp-missing').count()).resolves.toBe(0);
    expect(await page.locator('#power-zones tbody tr').count()).toBe(7);
    // Heart-rate zones from the threshold heart rate, as saved.
    expect(await text(page, '#heart-rate-zones caption')).toContain('threshold heart rate');
    expect(await text(page, '#power-curve')).toMatch(/5 s\s*1 min\s*5 min\s*20 min\s*1 h\s*[\d,]+ W/);
    expect(await text(page, '#chart-e-caption')).toMatch(/Elevation \(ft\)/);
    // The chart's average is the summary's (issue 19: 73 rpm in one, 68.5 in the other).
    const cadence = summary.match(/Cadence (\d+) rpm average/)![1]!;
    expect(Math.round(Number((await text(page, '#chart-c-caption')).match(/average ([\d.]+) rpm/)![1]))).toBe(
      Number(cadence),
    );
    await page.getByLabel('Distance').check();
    await expect(page.locator('#chart-e').getAttribute('data-axis')).resolves.toBe('distance');
    expect(await page.locator('#chart-e').textContent()).toContain('Distance (mi)');
    // One cursor: pointing at the elevation chart shows that moment's heart rate and its place on the map.
    const over = page.locator('#chart-e .u-over');
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await expect(page.locator('path.chart-cursor').getAttribute('stroke-opacity')).resolves.toBe('1');
    const heartRate = await page.locator('#chart-h .u-legend .u-series').nth(1).textContent();
    expect(heartRate).toMatch(/\d+(\.\d)? bpm/);
    expect(await overflow(page)).toBe(0);
    await screenshot(page, 'analysis-ride-1280');
    // The laps table carries normalized power and work where the points have power.
    await expect(page.getByRole('columnheader', { name: 'Normalized power' }).count()).resolves.toBe(1);
    await page.context().close();
  }, 60_000);

  it('draws no empty map and no speed chart of zeros for an indoor ride, and shows its laps with power', async () => {
    const page = await signedIn(1280);
    await page.goto(`${url}/dashboard/rides/${ids['indoor']}`);
    await page.waitForSelector('#chart-p .uplot');
    await expect(page.locator('#map').count()).resolves.toBe(0);
    await expect(page.locator('#chart-s').count()).resolves.toBe(0);
    const laps = await page.locator('table.laps tbody tr').allTextContents();
    expect(laps.length).toBe(5);
    for (const lap of laps) expect(lap.replace(/\s+/g, ' ')).toMatch(/\d+ W \d+ W [\d,]+ kJ/);
    await screenshot(page, 'analysis-indoor-1280');
    await page.context().close();
  }, 60_000);

  it('adds up the last weeks and months and shows the best power over all rides, each computed once', async () => {
    const { store } = server!.app.rideport;
    const riderId = (await store.users.findByEmail(RIDER))!.id;
    // A ride of this week: ten minutes at 250 W with a 5-second sprint at 1,500 W, 5 km.
    const start = Math.floor(Date.now() / 1000) - 20 * 60;
    const points = Array.from({ length: 600 }, (_, i) => ({
      x: 8.5 + i * 1e-4,
      y: 47.37,
      t: start + i,
      p: i >= 100 && i < 105 ? 1500 : 250,
    }));
    const sprint = trackFromPoints(points, { name: 'Sprint ride', sport: 'cycling' });
    ids['sprint'] = (await store.assets.createFromTrack(riderId, sprint)).row.id;

    const page = await signedIn(1280);
    await page.getByRole('link', { name: 'Overview' }).click();
    await expect(page.getByRole('heading', { name: 'Overview' }).count()).resolves.toBe(1);
    const weekly = await page
      .locator('#week-totals-heading + .bar-charts + table tbody tr')
      .allTextContents();
    expect(weekly).toHaveLength(12);
    // Only the sprint ride lies in the last twelve weeks; its distance in miles, as preferred.
    const rides = await page
      .locator('#week-totals-heading ~ table tbody tr td:nth-of-type(1)')
      .allTextContents();
    expect(rides.map(Number).reduce((a, b) => a + b, 0)).toBe(1);
    expect(await text(page, '#week-totals-distance figcaption')).toBe('Distance (mi)');
    await expect(page.locator('#week-totals-rides rect').count()).resolves.toBe(12);
    await expect(page.locator('#month-totals-rides rect').count()).resolves.toBe(12);
    const best = await page.locator('#best-power tbody tr').first().textContent();
    // With the day it was ridden, in its own zone (issue 40: every row read "Morning Ride", undated).
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Zurich' }).format(
      new Date(start * 1000),
    );
    expect(best?.replace(/\s+/g, ' ').trim()).toBe(`5 s 1,500 W Sprint ride ${day}`);
    // Months and weeks in words, not as "2026-01-01".
    const months = await page.locator('#month-totals-heading ~ table tbody th').allTextContents();
    for (const month of months) expect(month.trim()).toMatch(/^[A-Z][a-z]+ \d{4}$/);
    const weeks = await page.locator('#week-totals-heading ~ table tbody th').allTextContents();
    for (const week of weeks) expect(week.trim()).toMatch(/^\d{1,2} [A-Z][a-z]{2,3} \d{4}$/);
    await expect(page.locator('#best-power a').first().getAttribute('href')).resolves.toBe(
      `/dashboard/rides/${ids['sprint']}`,
    );
    expect(await overflow(page)).toBe(0);
    await screenshot(page, 'analysis-overview-1280');
    // Every ride's curve is stored once; the page reads those rows.
    const stored = await server!.app.rideport.store.powerCurves.ofRider(riderId);
    expect(stored.pending).toBe(0);
    expect(stored.rides.map((ride) => ride.name).sort()).toEqual(
      ['Sprint ride', 'indoor ride', 'outdoor ride', 'virtual ride'].sort(),
    );
    await page.context().close();
  }, 60_000);

  it('keeps every changed page within a 390-pixel phone', async () => {
    const page = await signedIn(390);
    const wide: string[] = [];
    for (const [name, path] of [
      ['preferences', '/dashboard/preferences'],
      ['overview', '/dashboard/overview'],
      ['rides', '/dashboard/rides'],
      ['ride', `/dashboard/rides/${ids['outdoor']}`],
      ['indoor', `/dashboard/rides/${ids['indoor']}`],
    ] as const) {
      await page.goto(`${url}${path}`);
      await page.waitForLoadState('load');
      await screenshot(page, `analysis-${name}-390`);
      const beyond = await overflow(page);
      if (beyond > 0) wide.push(`${name} by ${beyond} px`);
    }
    expect(wide).toEqual([]);
    await page.context().close();
  }, 90_000);
});

/**
 * Every page at phone width (issue 19, "Pages"): in Debian's Chromium at 390 pixels no page scrolls
 * sideways (a table wider than the screen scrolls inside itself), and at 1280 pixels neither; `/` leads
 * to the dashboard or to signing in first; every page names the favicon, which the server answers;
 * empty lists point to the Sync page; the used sign-in link page shows no literal backticks.
 * Screenshots of every page at both widths go to test-results/screenshots (phone-*.png).
 */
import { parseRideFile, trackFromPoints, type TrackPoint } from '@rideport/ridefile';
import type { LocalSync, LocalSyncStatus } from '@rideport/server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from './support/axe.js';
import { chromiumAvailable, launchChromium, screenshot } from './support/chromium.js';
import { corpusAvailable, readCorpus } from './support/corpus.js';
import { type PageServer, signedInPage, startPageServer } from './support/page-server.js';

const EMAIL = 'phone.rider@example.com';
const PASSWORD = 'correct horse phone';
const EMPTY_EMAIL = 'new.rider@example.com';
const CORPUS_RIDE = 'fit-parser__road-with-power.fit';

/** `count` points `stepSeconds` apart near Bern, with every channel the ride page charts. */
function ride(
  count: number,
  stepSeconds: number,
): Required<Pick<TrackPoint, 'x' | 'y' | 'e' | 't' | 'h' | 'c' | 'p'>>[] {
  const start = Date.parse('2025-05-03T06:00:00Z') / 1000;
  return Array.from({ length: count }, (_, i) => ({
    x: 7.44 + i * 2e-4,
    y: 46.95 + Math.sin(i / 40) * 1e-3,
    e: 540 + 20 * Math.sin(i / 60),
    t: start + i * stepSeconds,
    h: 120 + (i % 30),
    c: 80 + (i % 10),
    p: 180 + (i % 50),
  }));
}

/** A sync engine with a long history and sources with long paths, as a phone would show them. */
function historySync(userId: () => number | null): LocalSync {
  const recent: LocalSyncStatus['recent'] = Array.from({ length: 6 }, (_, i) => ({
    sha256: String(i).repeat(64),
    filename: `2025-05-0${i + 1}-06-00-00-a-rather-long-file-name-from-the-device.fit`,
    sourceId: 'folder:/home/rider/Documents/Cycling/Garmin Edge 1040 backups',
    relativePath: `Activity/2025-05-0${i + 1}-06-00-00.fit`,
    state: i === 0 ? 'failed' : 'synced',
    message:
      i === 0
        ? 'Could not read the file: the FIT file header is missing or damaged'
        : 'Created 1 ride from upload',
    tripIds: i === 0 ? [] : [i],
    routeIds: [],
    duplicate: false,
    attempts: 1,
    foundAt: '2025-05-03T06:00:00.000Z',
    updatedAt: '2025-05-03T06:01:00.000Z',
  }));
  return {
    get userId() {
      return userId();
    },
    status: () => ({
      state: { kind: 'idle' },
      sources: [
        {
          id: 'folder:/home/rider/Documents/Cycling/Garmin Edge 1040 backups',
          kind: 'folder',
          label: '/home/rider/Documents/Cycling/Garmin Edge 1040 backups',
          path: '/home/rider/Documents/Cycling/Garmin Edge 1040 backups',
          present: true,
          awaitingImportChoice: false,
        },
      ],
      counts: { found: 6, waiting: 0, queued: 0, uploading: 0, synced: 5, failed: 1 },
      recent,
      lastPassAt: '2025-05-03T06:02:00.000Z',
    }),
    syncNow: () => undefined,
    pause: () => undefined,
    resume: () => undefined,
    retry: () => false,
    removeSource: () => false,
    restoreSource: () => false,
    retryFailed: () => 0,
    chooseImport: () => false,
    addFolder: () => undefined,
    tripSources: () => new Map(),
  };
}

describe.skipIf(!chromiumAvailable)('the pages at phone width, in Chromium', () => {
  let server: PageServer | undefined;
  let url: string;
  let browser: Browser | undefined;
  let riderId: number | null = null;
  const paths: Record<string, string> = {};
  let usedLink: string;

  beforeAll(async () => {
    server = await startPageServer('phone', {
      localSync: historySync(() => riderId),
      // Quick deliveries, so that the client's page has a line in its delivery log.
      webhooks: { pollIntervalMs: 20, batchWindowMs: 50 },
    });
    const { app } = server;
    url = server.url;
    const { store } = app.rideport;
    const rider = await store.users.createPerson({ email: EMAIL, password: PASSWORD, name: 'Phone Rider' });
    riderId = rider.id;
    // A webhook to loopback, which the server refuses: its delivery log gets a long line in words.
    const client = await store.apiClients.create(rider.id, {
      name: 'Phone test client',
      redirectUris: ['https://app.example.com/oauth/callback/with/a/long/path'],
      webhookUrl: 'http://127.0.0.1:9/rideport/webhooks/with/a/long/path',
    });
    await store.authTokens.issue(rider.id, client.id);
    paths['client'] = `/developer/api_clients/${client.id}`;
    await store.users.createPerson({ email: EMPTY_EMAIL, password: PASSWORD, name: 'New Rider' });
    // The corpus ride has laps and every channel; without the corpus a synthetic ride stands in.
    const track = corpusAvailable
      ? parseRideFile(readCorpus(CORPUS_RIDE), { filename: CORPUS_RIDE }).tracks[0]!
      : trackFromPoints(ride(3600, 1), { name: 'Morning ride', sport: 'cycling', device: 'Garmin Edge 530' });
    paths['ride'] = `/dashboard/rides/${(await store.assets.createFromTrack(rider.id, track)).row.id}`;
    await store.assets.createFromTrack(
      rider.id,
      trackFromPoints(ride(120, 30), { name: 'Evening loop', sport: 'cycling', device: 'Garmin Edge 530' }),
    );
    const route = trackFromPoints(
      ride(200, 1).map(({ x, y, e }) => ({ x, y, e })),
      { name: 'Lake route' },
    );
    paths['route'] = `/dashboard/routes/${(await store.assets.createFromTrack(rider.id, route)).row.id}`;
    const link = new URL(await app.rideport.signInLink(rider.id, '/dashboard'));
    usedLink = `${url}${link.pathname}${link.search}`;
    for (let tries = 0; (await store.webhooks.recentAttempts(client.id, 1)).length === 0; tries++) {
      if (tries > 500) throw new Error('no webhook delivery was attempted');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const signedIn = (width: number, email: string): Promise<{ context: BrowserContext; page: Page }> =>
    signedInPage(browser!, server!, { email, password: PASSWORD }, { width });

  /** The page's width beyond the window: 0 when nothing scrolls sideways. */
  const overflow = (page: Page): Promise<number> =>
    page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  /** What sticks out of the window, outermost first, to say in a failure where the page is too wide. */
  const widest = (page: Page): Promise<string[]> =>
    page.evaluate(() =>
      Array.from(document.body.querySelectorAll('*'))
        .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
        .filter((element) => !element.parentElement?.closest('[data-outside]'))
        .map((element) => {
          element.setAttribute('data-outside', '');
          const id = element.id === '' ? '' : `#${element.id}`;
          return `${element.tagName.toLowerCase()}${id} to ${Math.round(element.getBoundingClientRect().right)} px`;
        })
        .slice(0, 3),
    );

  for (const width of [390, 1280]) {
    it(`scrolls no page sideways at ${width} pixels`, async () => {
      const { context, page } = await signedIn(width, EMAIL);
      try {
        const pages: [string, string][] = [
          ['rides', '/dashboard/rides'],
          ['ride', paths['ride']!],
          ['routes', '/dashboard/routes'],
          ['route', paths['route']!],
          ['sync', '/dashboard/sync'],
          ['developer', '/developer'],
          ['client', paths['client']!],
        ];
        const wide: string[] = [];
        for (const [name, path] of pages) {
          await page.goto(`${url}${path}`);
          await page.waitForLoadState('load');
          await screenshot(page, `phone-${name}-${width}`);
          const beyond = await overflow(page);
          if (beyond > 0) wide.push(`${name} by ${beyond} px (${(await widest(page)).join(', ')})`);
          await expect(page.locator('link[rel=icon]').getAttribute('href')).resolves.toBe('/favicon.svg');
        }
        expect(wide).toEqual([]);
      } finally {
        await context.close();
      }
    }, 120_000);
  }

  // Issue 40: "the axe-core audit clean". WCAG 2.1 A and AA rules, every page of the dashboard and the
  // developer settings, at both widths (a rule may fail at one only: a table turned into cards).
  for (const width of [1280, 390]) {
    it(`passes the axe-core audit on every page at ${width} pixels`, async () => {
      const { context, page } = await signedIn(width, EMAIL);
      try {
        const found: string[] = [];
        for (const path of [
          '/dashboard/overview',
          '/dashboard/rides',
          paths['ride']!,
          '/dashboard/routes',
          paths['route']!,
          '/dashboard/sync',
          '/dashboard/preferences',
          '/developer',
          paths['client']!,
        ]) {
          await page.goto(`${url}${path}`);
          await page.waitForLoadState('load');
          for (const violation of await axeViolations(page)) found.push(`${path}: ${violation}`);
        }
        expect(found).toEqual([]);
      } finally {
        await context.close();
      }
    }, 120_000);
  }

  it.skipIf(!corpusAvailable)(
    'keeps a table wider than the phone scrollable inside itself, every cell still reachable',
    async () => {
      const { context, page } = await signedIn(390, EMAIL);
      try {
        // The laps of the corpus ride: nine columns of figures.
        await page.goto(`${url}${paths['ride']!}`);
        const table = page.locator('table.laps');
        const sizes = await table.evaluate((element) => ({
          scrollWidth: element.scrollWidth,
          clientWidth: element.clientWidth,
          overflowX: getComputedStyle(element).overflowX,
        }));
        expect(sizes.clientWidth).toBeLessThanOrEqual(390);
        expect(sizes.scrollWidth).toBeGreaterThan(sizes.clientWidth);
        expect(sizes.overflowX).toBe('auto');
        await table.evaluate((element) => {
          element.scrollBy({ left: 10_000 });
        });
        const last = table.getByRole('columnheader').last();
        await expect(last.isVisible()).resolves.toBe(true);
      } finally {
        await context.close();
      }
    },
    60_000,
  );

  it('shows the rides list as a card per ride at phone width, and as a table on a wide screen (issue 40)', async () => {
    for (const width of [390, 1280]) {
      const { context, page } = await signedIn(width, EMAIL);
      try {
        await page.goto(`${url}/dashboard/rides`);
        const table = page.locator('table.assets');
        const shape = await table.evaluate((element) => {
          const row = element.querySelector('tbody tr')!;
          const name = row.querySelector('th')!.getBoundingClientRect();
          const date = row.querySelector<HTMLElement>('td[data-label="Date"]')!;
          const distance = row.querySelector<HTMLElement>('td[data-label="Distance"]')!;
          return {
            display: getComputedStyle(element).display,
            scrollWidth: element.scrollWidth,
            clientWidth: element.clientWidth,
            nameAboveDate: name.bottom <= date.getBoundingClientRect().top + 1,
            // one line of text: the date was wrapped on four
            dateLines: Math.round(
              date.getBoundingClientRect().height / parseFloat(getComputedStyle(date).lineHeight),
            ),
            distanceInside: distance.getBoundingClientRect().right <= element.getBoundingClientRect().right,
            label: getComputedStyle(distance, '::before').content,
          };
        });
        if (width === 390) {
          expect(shape).toMatchObject({
            display: 'block',
            nameAboveDate: true,
            dateLines: 1,
            distanceInside: true,
            label: '"Distance: "',
          });
          expect(shape.scrollWidth).toBeLessThanOrEqual(shape.clientWidth);
        } else {
          expect(shape).toMatchObject({ display: 'table', label: 'none' });
        }
        // A table to assistive technology at either width.
        await expect(table.getByRole('columnheader', { name: 'Sync source' }).count()).resolves.toBe(1);
        await expect(table.getByRole('rowheader').count()).resolves.toBeGreaterThan(0);
        await screenshot(page, `phone-rides-cards-${width}`);
      } finally {
        await context.close();
      }
    }
  }, 60_000);

  it("stacks the Sync page's tables at phone width, each cell readable after its column's name", async () => {
    for (const width of [390, 1280]) {
      const { context, page } = await signedIn(width, EMAIL);
      try {
        await page.goto(`${url}/dashboard/sync`);
        const history = page.locator('table#sync-history');
        const shape = await history.evaluate((table) => ({
          display: getComputedStyle(table).display,
          scrollWidth: table.scrollWidth,
          clientWidth: table.clientWidth,
          // the narrowest message cell: squeezed, the failed ride's message was a letter wide
          messageWidth: Math.min(
            ...Array.from(
              table.querySelectorAll<HTMLElement>('td[data-label="Server\'s message"]'),
              (cell) => cell.getBoundingClientRect().width,
            ),
          ),
          label: getComputedStyle(table.querySelector('td[data-label="State"]')!, '::before').content,
        }));
        if (width === 390) {
          expect(shape.display).toBe('block');
          expect(shape.scrollWidth).toBeLessThanOrEqual(shape.clientWidth);
          expect(shape.messageWidth).toBeGreaterThan(300);
          expect(shape.label).toBe('"State: "');
        } else {
          expect(shape.display).toBe('table');
          expect(shape.label).toBe('none');
        }
        // A table to assistive technology at either width: its header names its cells.
        await expect(history.getByRole('columnheader', { name: 'State' }).count()).resolves.toBe(1);
        await expect(history.getByRole('row').count()).resolves.toBe(7);
        await screenshot(page, `phone-sync-stacked-${width}`);
      } finally {
        await context.close();
      }
    }
  }, 60_000);

  it('points a rider with no rides and no routes to the Sync page', async () => {
    const { context, page } = await signedIn(390, EMPTY_EMAIL);
    try {
      for (const [name, path] of [
        ['rides', '/dashboard/rides'],
        ['routes', '/dashboard/routes'],
      ] as const) {
        await page.goto(`${url}${path}`);
        await screenshot(page, `phone-empty-${name}-390`);
        const link = page.getByRole('main').getByRole('link', { name: 'Sync page' });
        await expect(link.getAttribute('href')).resolves.toBe('/dashboard/sync');
        expect(await overflow(page), (await widest(page)).join(', ')).toBeLessThanOrEqual(0);
      }
    } finally {
      await context.close();
    }
  }, 60_000);

  it('shows the used sign-in link page in plain words, without backticks', async () => {
    const context = await browser!.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      const first = await page.goto(usedLink);
      expect(new URL(page.url()).pathname).toBe('/dashboard/rides');
      expect(first?.ok()).toBe(true);
      await context.clearCookies();
      const again = await page.goto(usedLink);
      expect(again?.status()).toBe(400);
      const text = await page.getByRole('main').innerText();
      expect(text).toContain('This sign-in link has expired or has already been used');
      expect(text).not.toContain('`');
      await screenshot(page, 'phone-used-link-390');
      expect(await overflow(page)).toBeLessThanOrEqual(0);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('leads from / to signing in, and back to the dashboard', async () => {
    const root = await fetch(`${url}/`, { redirect: 'manual' });
    expect(root.status).toBe(303);
    expect(root.headers.get('location')).toBe('/sign_in?return_to=%2F');
  });

  it('answers the favicon at both addresses browsers ask for', async () => {
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/svg+xml');
      expect(await response.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
  });
});

/**
 * Managing rides from the dashboard (issue 19, "Managing rides and sources"), in Debian's Chromium
 * over a real socket, with JavaScript switched off (every form must work without it): edit a ride's
 * name, description and visibility; refuse a blank or too long name in words, keeping what was typed;
 * delete one ride after a confirmation, and several chosen on the list; never another rider's ride,
 * not even one of several chosen, and never without the form's CSRF token. Screenshots of the edit
 * form, the confirmation and the list at 1280 and 390 pixels go to test-results/screenshots.
 */
import { trackFromPoints } from '@rideport/ridefile';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, screenshot } from './support/chromium.js';
import { type PageServer, signedInPage, startPageServer } from './support/page-server.js';

const PASSWORD = 'correct horse manage';
const RIDER = 'manager@example.com';
const OTHER = 'other.rider@example.com';

/** Forty points a minute apart near Lucerne, `hours` after 2025-06-01 06:00 UTC. */
function ride(name: string, hours: number) {
  const start = Date.parse('2025-06-01T06:00:00Z') / 1000 + hours * 3600;
  const points = Array.from({ length: 40 }, (_, i) => ({
    x: 8.3 + i * 1e-3,
    y: 47.05 + i * 5e-4,
    t: start + i * 60,
  }));
  return trackFromPoints(points, { name, sport: 'cycling', device: 'Garmin Edge 540' });
}

describe.skipIf(!chromiumAvailable)('managing rides on the dashboard, without JavaScript', () => {
  let server: PageServer | undefined;
  let app: PageServer['app'] | undefined;
  let url: string;
  let browser: Browser | undefined;
  let riderId: number;
  let otherId: number;

  beforeAll(async () => {
    server = await startPageServer('manage');
    ({ app, url } = server);
    const { users } = app.rideport.store;
    riderId = (await users.createPerson({ email: RIDER, password: PASSWORD, name: 'Manager' })).id;
    otherId = (await users.createPerson({ email: OTHER, password: PASSWORD, name: 'Other' })).id;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const rides = new Map<string, number>();
  beforeEach(async () => {
    const { assets } = app!.rideport.store;
    for (const [name, id] of rides) {
      await assets.delete('trip', id, riderId);
      rides.delete(name);
    }
    for (const [index, name] of ['Lake loop', 'Hill repeats', 'Commute home'].entries()) {
      rides.set(name, (await assets.createFromTrack(riderId, ride(name, index))).row.id);
    }
  });

  async function signedIn(email: string, width = 1280): Promise<Page> {
    const options = { width, javaScriptEnabled: false, path: '/sign_in' };
    return (await signedInPage(browser!, server!, { email, password: PASSWORD }, options)).page;
  }

  const stored = (id: number) => app!.rideport.store.assets.find('trip', id);

  it('edits the name, description and visibility, and says it saved', async () => {
    const page = await signedIn(RIDER);
    const id = rides.get('Lake loop')!;
    await page.goto(`${url}/dashboard/rides/${id}`);
    await page.getByRole('link', { name: 'Edit ride' }).click();
    await expect(page.getByLabel('Name').inputValue()).resolves.toBe('Lake loop');
    await expect(page.getByLabel('Private: only you').isChecked()).resolves.toBe(true);
    await page.getByLabel('Name').fill('  Lake loop with Anna  ');
    await page
      .getByLabel('Description (optional)')
      .fill('Windy <b>but</b> sunny\nBack by the lake\n\nNo flats');
    await page.getByLabel(/^Public/).check();
    await page.getByRole('button', { name: 'Save' }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/rides/${id}`);
    await expect(page.getByRole('status').innerText()).resolves.toBe('Saved.');
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Lake loop with Anna');
    // Its line breaks kept (issue 40), its markup shown as typed.
    await expect(page.locator('p.description').innerText()).resolves.toBe(
      'Windy <b>but</b> sunny\nBack by the lake\n\nNo flats',
    );
    await screenshot(page, 'manage-saved-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'manage-saved-390');
    expect(await stored(id)).toMatchObject({
      name: 'Lake loop with Anna',
      description: 'Windy <b>but</b> sunny\nBack by the lake\n\nNo flats',
      visibility: 'public',
    });
    await page.context().close();
  });

  it('refuses a blank or too long name in words, keeping what was typed, and changes nothing', async () => {
    for (const width of [1280, 390]) {
      const page = await signedIn(RIDER, width);
      const id = rides.get('Hill repeats')!;
      await page.goto(`${url}/dashboard/rides/${id}/edit`);
      await page.getByLabel('Name').fill('   ');
      await page.getByLabel('Description (optional)').fill('kept as typed');
      const blank = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'POST'),
        page.getByRole('button', { name: 'Save' }).click(),
      ]);
      expect(blank[0].status()).toBe(400);
      await expect(page.getByRole('alert').innerText()).resolves.toBe('A name is needed.');
      await expect(page.getByLabel('Description (optional)').inputValue()).resolves.toBe('kept as typed');
      await screenshot(page, `manage-edit-refused-${width}`);
      await page.getByLabel('Name').fill('🚲'.repeat(256));
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(page.getByRole('alert').innerText()).resolves.toBe(
        'The name must be at most 255 characters.',
      );
      await page.getByLabel('Name').fill('🚲'.repeat(255));
      await page.getByRole('button', { name: 'Save' }).click();
      expect(new URL(page.url()).pathname).toBe(`/dashboard/rides/${id}`);
      expect((await stored(id))!.name).toBe('🚲'.repeat(255));
      await page.context().close();
    }
  });

  it('deletes one ride after asking, from its page', async () => {
    const page = await signedIn(RIDER);
    const id = rides.get('Commute home')!;
    await page.goto(`${url}/dashboard/rides/${id}`);
    await page.getByRole('link', { name: 'Delete ride…' }).click();
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Delete this ride?');
    // Cancel leads back to the ride, which is still there.
    await page.getByRole('link', { name: 'Cancel' }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/rides/${id}`);
    expect(await stored(id)).toBeDefined();
    await page.getByRole('link', { name: 'Delete ride…' }).click();
    await page.getByRole('button', { name: 'Delete this ride' }).click();
    expect(new URL(page.url()).pathname).toBe('/dashboard/rides');
    await expect(page.getByRole('status').innerText()).resolves.toBe('Deleted 1 ride.');
    expect(await stored(id)).toBeUndefined();
    await expect(page.getByRole('link', { name: 'Commute home' }).count()).resolves.toBe(0);
    const again = await page.goto(`${url}/dashboard/rides/${id}`);
    expect(again?.status()).toBe(404);
    await page.context().close();
  });

  it('deletes the rides chosen on the list, and only those', async () => {
    for (const width of [1280, 390]) {
      if (width === 390) {
        // Put the three rides back for the phone's round.
        for (const [name, id] of rides) if ((await stored(id)) === undefined) rides.delete(name);
        for (const [index, name] of ['Lake loop', 'Hill repeats', 'Commute home'].entries()) {
          if (!rides.has(name)) {
            rides.set(
              name,
              (await app!.rideport.store.assets.createFromTrack(riderId, ride(name, index))).row.id,
            );
          }
        }
      }
      const page = await signedIn(RIDER, width);
      await page.getByLabel('Choose ride Lake loop').check();
      await page.getByLabel('Choose ride Commute home').check();
      await screenshot(page, `manage-list-${width}`);
      await page.getByRole('button', { name: 'Delete the chosen rides…' }).click();
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(
        'Delete these 2 rides?',
      );
      // In the list's order, newest first.
      await expect(page.getByRole('main').getByRole('listitem').allInnerTexts()).resolves.toEqual([
        'Commute home',
        'Lake loop',
      ]);
      await screenshot(page, `manage-confirm-${width}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.getByRole('button', { name: 'Delete these 2 rides' }).click();
      await expect(page.getByRole('status').innerText()).resolves.toBe('Deleted 2 rides.');
      expect(await stored(rides.get('Lake loop')!)).toBeUndefined();
      expect(await stored(rides.get('Commute home')!)).toBeUndefined();
      expect(await stored(rides.get('Hill repeats')!)).toBeDefined();
      await page.context().close();
    }
  });

  it('stays on the list and says what to do when nothing is chosen (issue 40)', async () => {
    // A ride of a damaged file among them: the list flags it (issue 40).
    const damaged = ride('Cut short', 3);
    damaged.warnings = [{ code: 'RIDEFILE_BAD_CRC', message: 'the file CRC does not match' }];
    rides.set('Cut short', (await app!.rideport.store.assets.createFromTrack(riderId, damaged)).row.id);
    for (const width of [1280, 390]) {
      const page = await signedIn(RIDER, width);
      const rows = await page.locator('table.assets tbody tr').count();
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url().includes('/dashboard/rides/delete')),
        page.getByRole('button', { name: 'Delete the chosen rides…' }).click(),
      ]);
      expect(answer.status()).toBe(303);
      await page.waitForURL(/\/dashboard\/rides\?chosen=none$/);
      await expect(page.getByRole('status').innerText()).resolves.toBe(
        'No rides were chosen, so nothing was deleted. Tick the box beside each ride to delete, then press “Delete the chosen rides…”.',
      );
      await expect(page.locator('table.assets tbody tr').count()).resolves.toBe(rows);
      await expect(page.locator('a.file-flag').allInnerTexts()).resolves.toEqual(['A problem with the file']);
      await screenshot(page, `manage-nothing-chosen-${width}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.context().close();
    }
  });

  it("never edits or deletes another rider's ride, nor deletes any of several when one is not one's own", async () => {
    const othersRide = (await app!.rideport.store.assets.createFromTrack(otherId, ride('Not yours', 5))).row
      .id;
    const own = rides.get('Lake loop')!;
    const page = await signedIn(OTHER);
    for (const path of [`/dashboard/rides/${own}/edit`, `/dashboard/rides/delete?id=${own}`]) {
      expect((await page.goto(`${url}${path}`))?.status()).toBe(403);
    }
    // The other rider's own confirmation page gives a valid form token for their session.
    await page.goto(`${url}/dashboard/rides/delete?id=${othersRide}`);
    const token = await page.locator('main input[name=_csrf]').getAttribute('value');
    const post = (form: URLSearchParams) =>
      page.request.post(`${url}/dashboard/rides/delete`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        data: form.toString(),
        maxRedirects: 0,
      });
    const mixed = await post(
      new URLSearchParams([
        ['_csrf', token!],
        ['id', String(othersRide)],
        ['id', String(own)],
      ]),
    );
    expect(mixed.status()).toBe(403);
    const edit = await page.request.post(`${url}/dashboard/rides/${own}/edit`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      data: new URLSearchParams({ _csrf: token!, name: 'Taken over', visibility: 'public' }).toString(),
      maxRedirects: 0,
    });
    expect(edit.status()).toBe(403);
    const noToken = await post(new URLSearchParams([['id', String(othersRide)]]));
    expect(noToken.status()).toBe(403);
    expect(await stored(othersRide)).toBeDefined();
    expect(await stored(own)).toMatchObject({ name: 'Lake loop', visibility: 'private' });
    // With the token, their own ride goes.
    expect(
      (
        await post(
          new URLSearchParams([
            ['_csrf', token!],
            ['id', String(othersRide)],
          ]),
        )
      ).status(),
    ).toBe(303);
    expect(await stored(othersRide)).toBeUndefined();
    await page.context().close();
  });
});

/**
 * Sharing routes with clubs on the dashboard (issue 20, "Clubs"), in Debian's Chromium over a real
 * socket with JavaScript switched off (the forms must work without it): a member shares a route from
 * its page with one of their clubs and unshares it; the club's administrator takes a shared route out
 * on the club's page; a member who is not an administrator gets no such button; someone outside the
 * club is refused its page in words. Screenshots at 1280 and 390 pixels go to test-results/screenshots.
 */
import { trackFromPoints } from '@rideport/ridefile';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, screenshot } from './support/chromium.js';
import { type PageServer, signedInPage, startPageServer } from './support/page-server.js';

const PASSWORD = 'correct horse clubs';
const ADMIN = 'club.admin@example.com';
const MEMBER = 'club.member@example.com';

/** An untimed track, so a route. */
function course(name: string) {
  const points = Array.from({ length: 30 }, (_, i) => ({ x: 8.3 + i * 1e-3, y: 47.05 + i * 5e-4 }));
  return trackFromPoints(points, { name });
}

describe.skipIf(!chromiumAvailable)('clubs on the dashboard, without JavaScript', () => {
  let server: PageServer | undefined;
  let browser: Browser | undefined;
  let url: string;
  let clubId: number;
  let memberId: number;
  let routeId: number;

  beforeAll(async () => {
    server = await startPageServer('clubs');
    url = server.url;
    const { users, assets } = server.app.rideport.store;
    const adminId = (await users.createPerson({ email: ADMIN, password: PASSWORD, name: 'Alice' })).id;
    memberId = (await users.createPerson({ email: MEMBER, password: PASSWORD, name: 'Bob' })).id;
    clubId = (await users.createOrganization('Allmend Riders', adminId, 'Tuesday laps')).id;
    await users.setMembership(clubId, memberId, 'member');
    await users.createOrganization('Aare Cyclists', memberId);
    routeId = (await assets.createFromTrack(memberId, course('Gravel loop to the lake'))).row.id;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signedIn(email: string, width = 1280): Promise<Page> {
    const options = { width, javaScriptEnabled: false, path: '/sign_in' };
    return (await signedInPage(browser!, server!, { email, password: PASSWORD }, options)).page;
  }

  const clubRoutes = async () =>
    (await server!.app.rideport.store.clubs.listRouteIds(clubId, { offset: 0, limit: 20 }, 'members')).ids;

  it('shares a route with one of my clubs from its page, and unshares it', async () => {
    const page = await signedIn(MEMBER);
    await page.goto(`${url}/dashboard/routes/${routeId}`);
    const section = page.getByRole('region', { name: 'Clubs' });
    await expect(section.getByText('This route is not shared with any club.').count()).resolves.toBe(1);
    await section.getByLabel('Share with one of my clubs').selectOption({ label: 'Allmend Riders' });
    await section.getByRole('button', { name: 'Share' }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/routes/${routeId}`);
    await expect(section.getByRole('status').innerText()).resolves.toBe('Shared with the club.');
    await expect(section.getByRole('link', { name: 'Allmend Riders' }).count()).resolves.toBe(1);
    expect(await clubRoutes()).toEqual([routeId]);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await section.scrollIntoViewIfNeeded();
      await screenshot(page, `club-share-${width}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    }
    await section.getByRole('button', { name: 'Unshare' }).click();
    await expect(section.getByRole('status').innerText()).resolves.toBe('Taken out of the club.');
    expect(await clubRoutes()).toEqual([]);
  });

  it("shows members the club's routes; only an administrator may take one out", async () => {
    expect(await server!.app.rideport.store.clubs.shareRoute(clubId, routeId, memberId)).toBe('shared');
    const member = await signedIn(MEMBER);
    await member.goto(`${url}/dashboard/clubs/${clubId}`);
    await expect(member.getByText('Gravel loop to the lake').count()).resolves.toBe(1);
    await expect(member.getByRole('button', { name: 'Remove from the club' }).count()).resolves.toBe(0);
    const admin = await signedIn(ADMIN);
    await admin.goto(`${url}/dashboard/clubs/${clubId}`);
    for (const width of [1280, 390]) {
      await admin.setViewportSize({ width, height: 900 });
      await screenshot(admin, `club-page-${width}`);
      expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    }
    await admin.getByRole('button', { name: 'Remove from the club' }).click();
    expect(new URL(admin.url()).pathname).toBe(`/dashboard/clubs/${clubId}`);
    await expect(admin.getByRole('status').innerText()).resolves.toBe('Taken out of the club.');
    await expect(admin.getByText('No member has shared a route with this club yet.').count()).resolves.toBe(
      1,
    );
    expect(await clubRoutes()).toEqual([]);
  });

  it('refuses the club page to someone outside the club in words (403)', async () => {
    const outsider = await signedIn(ADMIN);
    const aare = (await server!.app.rideport.store.clubs.ofMember(memberId)).find(
      (club) => club.name === 'Aare Cyclists',
    )!;
    const response = await outsider.goto(`${url}/dashboard/clubs/${aare.id}`);
    expect(response?.status()).toBe(403);
    await expect(outsider.getByText('Only members of this club can see its page.').count()).resolves.toBe(1);
  });
});

/**
 * Numbers in the dashboard's forms (issue 36): a number sent more than once is a 400 in words, never
 * read as its first value, and nothing is saved.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../test/support/corpus.js';
import {
  Browser,
  createPerson,
  storeFile,
  DEFAULT_PREFERENCES,
  testServer,
  type Person,
  type TestServer,
} from '@rideport/server/test-support';
import { dashboardPages } from './index.js';

let server: TestServer;
let rider: Person;
let browser: Browser;

beforeEach(async () => {
  server = await testServer({ pages: [dashboardPages] });
  rider = await createPerson(server, 'Form Rider');
  browser = new Browser(server.app);
  expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
});
afterEach(async () => {
  await server.close();
});

describe('a number sent twice', () => {
  it('is refused on the preferences page, and nothing is saved', async () => {
    const token = await browser.csrfTokenOf('/dashboard/preferences');
    const form = { _csrf: token, units: 'metric', time_zone: '', threshold_hr: '', max_hr: '' };
    for (const field of ['ftp_watts', 'threshold_hr', 'max_hr']) {
      const answer = await browser.post('/dashboard/preferences', { ...form, [field]: ['250', '300'] });
      expect(answer.statusCode, field).toBe(400);
      expect(answer.body, field).toMatch(/must be a whole number/);
      await expect(server.store.preferences.get(rider.id)).resolves.toEqual(DEFAULT_PREFERENCES);
    }
    // Once, it is saved.
    const saved = await browser.post('/dashboard/preferences', { ...form, ftp_watts: '250' });
    expect(saved.statusCode).toBe(303);
    expect((await server.store.preferences.get(rider.id)).ftpWatts).toBe(250);
  });

  it('is refused as a club id when sharing a route', async () => {
    const stored = await storeFile(server, rider.id, readFixture('gpx', 'tracks-and-routes.gpx'), 'plan.gpx');
    const route = stored.find((asset) => asset.type === 'route')!;
    const token = await browser.csrfTokenOf(`/dashboard/routes/${route.row.id}`);
    const answer = await browser.post(`/dashboard/routes/${route.row.id}/clubs`, {
      _csrf: token,
      club_id: ['1', '2'],
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toContain('club_id must be a whole number from 1 to');
  });
});

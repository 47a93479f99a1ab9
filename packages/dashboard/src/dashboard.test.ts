import {
  elevationAndTemperature,
  parseRideFile,
  trackFromPoints,
  type Stat,
  type Track,
  type TrackPoint,
} from '@rideport/ridefile';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { corpusAvailable, readCorpus, readFixture } from '../../../test/support/corpus.js';
import type { LocalSync, TripRow } from '@rideport/server/web';
import {
  Browser,
  createPerson,
  DEFAULT_PREFERENCES,
  onlyTrack,
  type Person,
  testServer,
  type TestServer,
  tripColumns,
} from '@rideport/server/test-support';
import { dashboardPages } from './index.js';
import { captionFigures } from './asset-page.js';
import { lapsSection } from './laps.js';
import { MAX_DRAWN_POINTS, PAUSE_SECONDS, drawingData, readColumns } from './series.js';

let server: TestServer;
let rider: Person;
let browser: Browser;

async function start(options: Parameters<typeof testServer>[0] = {}): Promise<void> {
  server = await testServer({ pages: [dashboardPages], ...options });
  rider = await createPerson(server, 'Anna Rider');
  browser = new Browser(server.app);
  expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
}

afterEach(async () => {
  await server.close();
});

/** A ride of `count` points a second apart, starting at `startUnix`, near Bern. */
function points(count: number, startUnix: number, { heartRate = true } = {}): TrackPoint[] {
  return Array.from({ length: count }, (_, i) => ({
    x: 7.44 + i * 0.0001,
    y: 46.95 + Math.sin(i / 50) * 0.001,
    e: 540 + Math.sin(i / 30) * 20,
    t: startUnix + i,
    ...(heartRate ? { h: 120 + (i % 40) } : {}),
  }));
}

function ride(name: string, startUnix: number, count = 60): Track {
  return trackFromPoints(points(count, startUnix), { name, sport: 'cycling' });
}

function route(name: string, count = 40): Track {
  return trackFromPoints(
    points(count, 0).map(({ x, y, e }) => ({ x: x!, y: y!, e: e! })),
    { name, kind: 'route' },
  );
}

async function storeRide(userId: number, track: Track): Promise<number> {
  const created = await server.store.assets.createFromTrack(userId, track);
  return created.row.id;
}

const DAY = 86_400;
const BASE = Date.parse('2025-06-01T06:00:00Z') / 1000;

/** The names in the rides table, in order. */
function rowNames(page: string): string[] {
  return [
    ...page.matchAll(
      /<th scope="row" role="rowheader">\s*<a class="cell-text" href="\/dashboard\/(?:rides|routes)\/\d+">([^<]*)<\/a>/g,
    ),
  ].map((match) => match[1]!);
}

describe('signing in', () => {
  beforeEach(() => start());

  it('sends a browser without a session to the sign-in form and back', async () => {
    for (const url of ['/dashboard', '/dashboard/rides?page=2', '/dashboard/rides/1', '/dashboard/routes']) {
      const response = await new Browser(server.app).get(url);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(
        `/sign_in?${new URLSearchParams({ return_to: url }).toString()}`,
      );
    }
  });

  it('sends /dashboard to the rides list', async () => {
    const response = await browser.get('/dashboard');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/dashboard/rides');
  });

  it('marks the current section in the navigation', async () => {
    const rides = (await browser.get('/dashboard/rides')).body;
    expect(rides).toContain('<a href="/dashboard/rides" aria-current="page">Rides</a>');
    expect(rides).toContain('<a href="/dashboard/routes">Routes</a>');
    expect(rides).toContain('<a href="/dashboard/sync">Sync</a>');
    expect(rides).toContain('<a href="/developer">Developer settings</a>');
    const routes = (await browser.get('/dashboard/routes')).body;
    expect(routes).toContain('<a href="/dashboard/routes" aria-current="page">Routes</a>');
  });
});

describe('the rides list', () => {
  beforeEach(() => start());

  it('lists newest departure first, 20 a page, with previous and next links', async () => {
    // Stored in a shuffled order: the list follows the departure, not the upload.
    const order = [3, 17, 0, 24, 9, 12, 5, 21, 1, 14, 7, 19, 2, 23, 11, 6, 16, 8, 22, 4, 13, 10, 20, 15, 18];
    for (const day of order) await storeRide(rider.id, ride(`Ride ${day}`, BASE + day * DAY));
    const first = await browser.get('/dashboard/rides');
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('25 rides, page 1 of 2.');
    expect(rowNames(first.body)).toEqual(Array.from({ length: 20 }, (_, i) => `Ride ${24 - i}`));
    expect(first.body).toContain('<a rel="next" href="/dashboard/rides?page=2">Next page</a>');
    expect(first.body).not.toContain('rel="prev"');

    const second = await browser.get('/dashboard/rides?page=2');
    expect(rowNames(second.body)).toEqual(['Ride 4', 'Ride 3', 'Ride 2', 'Ride 1', 'Ride 0']);
    expect(second.body).toContain('<a rel="prev" href="/dashboard/rides?page=1">Previous page</a>');
    expect(second.body).not.toContain('rel="next"');

    const past = await browser.get('/dashboard/rides?page=3');
    expect(past.statusCode).toBe(200);
    expect(past.body).toContain('There are no rides on this page.');
  });

  it('answers the delete button pressed with nothing chosen on the same page, saying what to do (issue 40)', async () => {
    for (let day = 0; day < 25; day++) await storeRide(rider.id, ride(`Ride ${day}`, BASE + day * DAY, 5));
    const second = await browser.get('/dashboard/rides?page=2');
    expect(second.body).toContain('<input type="hidden" name="page" value="2" />');
    const pressed = await browser.get('/dashboard/rides/delete?page=2');
    expect(pressed.statusCode).toBe(303);
    expect(pressed.headers.location).toBe('/dashboard/rides?page=2&chosen=none');
    const back = await browser.get(pressed.headers.location!);
    expect(rowNames(back.body)).toEqual(rowNames(second.body));
    expect(back.body).toMatch(
      /<p class="notice" role="status">\s*No rides were chosen, so nothing was deleted\./,
    );
    // From the first page, the first page; a page that is no page number is the first page too.
    for (const query of ['', '?page=x', '?page=0']) {
      const answer = await browser.get(`/dashboard/rides/delete${query}`);
      expect(answer.headers.location, query).toBe('/dashboard/rides?chosen=none');
    }
    // Cancel on the confirmation of several leads back to the page they were chosen on.
    const [a, b] = rowNames(second.body);
    const ids = [...second.body.matchAll(/name="id" value="(\d+)"/g)].map((match) => match[1]!);
    const confirm = await browser.get(`/dashboard/rides/delete?page=2&id=${ids[0]}&id=${ids[1]}`);
    expect(confirm.body).toContain(`>${a}</a>`);
    expect(confirm.body).toContain(`>${b}</a>`);
    expect(confirm.body).toContain('<a class="cancel" href="/dashboard/rides?page=2">Cancel</a>');
    // A POST without a choice is no button a page offers: still a 400 in words.
    const token = await browser.csrfTokenOf('/dashboard/rides');
    const posted = await browser.post('/dashboard/rides/delete', { _csrf: token });
    expect(posted.statusCode).toBe(400);
    expect(posted.body).toContain('Choose the rides to delete first.');
  });

  it('shows date, name, distance, duration, elevation gain, device and sync source', async () => {
    const id = await storeRide(rider.id, ride('Morning loop', BASE, 3600));
    const page = (await browser.get('/dashboard/rides')).body;
    expect(page).toMatch(/<caption>\s*Your rides, newest first \(page 1 of 1\)\s*<\/caption>/);
    for (const header of [
      'Date',
      'Name',
      'Distance',
      'Duration',
      'Elevation gain',
      'Device',
      'Sync source',
    ]) {
      expect(page).toMatch(new RegExp(`<th scope="col"[^>]*>${header}</th>`));
    }
    // 2025-06-01 06:00 UTC is 08:00 in Bern (Europe/Zurich, summer time).
    expect(page).toMatch(
      /<time datetime="2025-06-01T06:00:00.000Z" title="Europe\/Zurich"\s*>2025-06-01 08:00 CEST<\/time\s*>/,
    );
    expect(page).toContain(`<a class="cell-text" href="/dashboard/rides/${id}">Morning loop</a>`);
    expect(page).toContain('59:59');
    expect(page).toMatch(/\d+\.\d km/);
    // No sync engine: no source.
    expect(page).toMatch(/<td role="cell" data-label="Sync source">—<\/td>\s*<\/tr>/);
  });

  it('says so when there are no rides, and refuses a page that is not a positive integer', async () => {
    expect((await browser.get('/dashboard/rides')).body).toContain('You have no rides yet.');
    for (const page of ['0', '-1', 'two', '1.5', 'Infinity', '1e309', '1000000001']) {
      expect((await browser.get(`/dashboard/rides?page=${page}`)).statusCode).toBe(400);
    }
  });

  it("lists only the signed-in person's rides", async () => {
    const other = await createPerson(server, 'Other Rider');
    await storeRide(other.id, ride('Not mine', BASE));
    await storeRide(rider.id, ride('Mine', BASE));
    expect(rowNames((await browser.get('/dashboard/rides')).body)).toEqual(['Mine']);
  });

  it('escapes hostile ride names', async () => {
    const hostile = '<script>alert(1)</script>"&\'';
    const id = await storeRide(rider.id, ride(hostile, BASE));
    for (const url of ['/dashboard/rides', `/dashboard/rides/${id}`]) {
      const page = (await browser.get(url)).body;
      expect(page).not.toContain('<script>alert(1)');
      expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;&#39;');
    }
    const download = await browser.get(`/dashboard/rides/${id}/download.gpx`);
    expect(download.headers['content-disposition']).toMatch(
      /^attachment; filename="script-alert-1-script\.gpx"; filename\*=UTF-8''/,
    );
    expect(download.headers['content-disposition']).not.toMatch(/[<>"]{2}/);
  });
});

describe('sync sources', () => {
  it('shows the label of the source each trip was synced from', async () => {
    const fake: LocalSync = {
      get userId() {
        return rider.id;
      },
      status: () => ({
        state: { kind: 'idle' },
        sources: [],
        counts: { found: 0, waiting: 0, queued: 0, uploading: 0, synced: 0, failed: 0 },
        recent: [],
        lastPassAt: null,
      }),
      syncNow: () => undefined,
      pause: () => undefined,
      resume: () => undefined,
      retry: () => false,
      retryFailed: () => 0,
      chooseImport: () => false,
      addFolder: () => undefined,
      removeSource: () => false,
      restoreSource: () => false,
      tripSources: (ids) => new Map(ids.filter((id) => id % 2 === 1).map((id) => [id, `Edge <${id}>`])),
    };
    await start({ localSync: fake });
    const first = await storeRide(rider.id, ride('First', BASE));
    const second = await storeRide(rider.id, ride('Second', BASE + DAY));
    const synced = first % 2 === 1 ? first : second;
    const list = (await browser.get('/dashboard/rides')).body;
    expect(list).toContain(`<td role="cell" data-label="Sync source">Edge &lt;${synced}&gt;</td>`);
    expect(list).toContain('<td role="cell" data-label="Sync source">—</td>');
    const page = (await browser.get(`/dashboard/rides/${synced}`)).body;
    expect(page).toMatch(new RegExp(`<dt>Sync source</dt>\\s*<dd>Edge &lt;${synced}&gt;</dd>`));
  });
});

describe('the routes list', () => {
  beforeEach(() => start());

  it('lists newest first, 20 a page', async () => {
    for (let i = 0; i < 22; i++) {
      await server.store.assets.createFromTrack(rider.id, route(`Route ${i}`));
      server.clock.advance(1000);
    }
    const first = (await browser.get('/dashboard/routes')).body;
    expect(first).toContain('22 routes, page 1 of 2.');
    expect(rowNames(first)).toEqual(Array.from({ length: 20 }, (_, i) => `Route ${21 - i}`));
    expect(rowNames((await browser.get('/dashboard/routes?page=2')).body)).toEqual(['Route 1', 'Route 0']);
  });
});

describe('a ride or route page', () => {
  beforeEach(() => start());

  it("is 404 for an unknown id, 400 for what is no id, and 403 for someone else's, like the API", async () => {
    const other = await createPerson(server, 'Other Rider');
    const theirs = await storeRide(other.id, ride('Theirs', BASE));
    const theirRoute = (await server.store.assets.createFromTrack(other.id, route('Their route'))).row.id;
    expect((await browser.get(`/dashboard/rides/${theirs}`)).statusCode).toBe(403);
    expect((await browser.get(`/dashboard/rides/${theirs}/download.gpx`)).statusCode).toBe(403);
    expect((await browser.get(`/dashboard/routes/${theirRoute}`)).statusCode).toBe(403);
    expect((await browser.get(`/dashboard/routes/${theirRoute}/download.csv`)).statusCode).toBe(403);
    expect((await browser.get('/dashboard/rides/999999')).statusCode).toBe(404);
    const notAnId = await browser.get('/dashboard/rides/abc');
    expect(notAnId.statusCode).toBe(400);
    expect(notAnId.body).toContain('the ride id in the address must be a whole number from 1 to');
    expect((await browser.get('/dashboard/routes/999999/download.tcx')).statusCode).toBe(404);
    // A route's id is not a ride's.
    expect((await browser.get(`/dashboard/routes/${theirs + 1000}`)).statusCode).toBe(404);
  });

  it('shows the summary, the map and chart containers, the embedded data and the downloads', async () => {
    const id = await storeRide(rider.id, ride('Summary ride', BASE, 600));
    const response = await browser.get(`/dashboard/rides/${id}`);
    expect(response.statusCode).toBe(200);
    const page = response.body;
    expect(page).toContain('<dt>Start</dt>');
    expect(page).toMatch(/2025-06-01 08:00 CEST<\/time\s*> \(Europe\/Zurich\)/);
    expect(page).toContain('<dt>Moving time</dt>');
    expect(page).toContain('<dt>Heart rate</dt>');
    expect(page).toContain('id="map"');
    expect(page).toContain('<noscript><p>The map needs JavaScript.</p></noscript>');
    expect(page).toContain('id="chart-e"');
    expect(page).toContain('id="chart-h"');
    expect(page).toContain('id="chart-s"');
    expect(page).not.toContain('id="chart-p"');
    expect(page).toContain('name="chart-axis" value="distance"');
    for (const extension of ['gpx', 'tcx', 'geojson', 'csv']) {
      expect(page).toContain(`href="/dashboard/rides/${id}/download.${extension}"`);
    }
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("img-src 'self' https://tile.openstreetmap.org");
    expect(csp).not.toContain('unsafe-eval');
    const json = /<script type="application\/json" id="asset-data">([\s\S]*?)<\/script>/.exec(page)![1]!;
    const data = JSON.parse(json) as ReturnType<typeof drawingData>;
    expect(data.pointCount).toBe(600);
    expect(data.track.length).toBe(600);
  });

  it('shows a power meter and cadence sensor that wrote nothing but zeros as none (issue 40)', async () => {
    const silent = points(600, BASE).map((point) => ({ ...point, p: 0, c: 0 }));
    const id = await storeRide(rider.id, trackFromPoints(silent, { name: 'Silent meter', sport: 'cycling' }));
    const page = (await browser.get(`/dashboard/rides/${id}`)).body;
    expect(page).toContain('<p>This ride records no power.</p>');
    expect(page).toMatch(/<dt>Power<\/dt>\s*<dd>—<\/dd>/);
    expect(page).toMatch(/<dt>Cadence<\/dt>\s*<dd>—<\/dd>/);
    expect(page).not.toContain('id="chart-p"');
    expect(page).not.toContain('id="chart-c"');
    expect(page).toContain('id="chart-h"');
  });

  it('serves the scripts and stylesheets it links to, cached for long', async () => {
    const id = await storeRide(rider.id, ride('Assets', BASE));
    const page = (await browser.get(`/dashboard/rides/${id}`)).body;
    const urls = [...page.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(urls.length).toBe(6);
    for (const url of urls) {
      const asset = await server.app.inject({ method: 'GET', url });
      expect(asset.statusCode, url).toBe(200);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(asset.headers['content-type']).toMatch(/^(text\/javascript|text\/css)/);
    }
    expect(
      (await server.app.inject({ method: 'GET', url: '/assets/leaflet/1.9.4/../package.json' })).statusCode,
    ).toBe(404);
    expect((await server.app.inject({ method: 'GET', url: '/assets/nothing.js' })).statusCode).toBe(404);
  });

  it('shows a route with its distance charts only', async () => {
    const id = (await server.store.assets.createFromTrack(rider.id, route('A route'))).row.id;
    const page = (await browser.get(`/dashboard/routes/${id}`)).body;
    expect(page).toContain('<h1>A route</h1>');
    expect(page).toContain('id="chart-e"');
    expect(page).not.toContain('name="chart-axis"');
    expect(page).toContain('No laps recorded.');
  });
});

describe('the notice of a damaged or cut-off file (issue 16)', () => {
  beforeEach(() => start());

  /** The notice section of a page, or undefined when there is none. */
  const notice = (page: string): string | undefined =>
    /<section class="notice file-notice"[\s\S]*?<\/section>/.exec(page)?.[0];

  it('says near the top, in words and under a heading, where a cut-off ride stops', async () => {
    const track = onlyTrack(readFixture('fit', 'truncated.fit'), 'truncated.fit');
    const id = await storeRide(rider.id, track);
    const page = (await browser.get(`/dashboard/rides/${id}`)).body;
    const section = notice(page);
    expect(section).toBeDefined();
    expect(section).toContain('aria-labelledby="file-notice-heading"');
    expect(section).toMatch(/<h2 id="file-notice-heading">A problem with the file<\/h2>/);
    // The ride is in Zurich; its last point is 08:00:24 UTC. The time says its zone (issue 40).
    expect(section).toContain('This file ends early: the ride was read up to 10:00 CEST.');
    expect(section).not.toMatch(/>\s*RIDEFILE_/);
    // Before the summary.
    expect(page.indexOf('file-notice-heading')).toBeLessThan(page.indexOf('summary-heading'));
  });

  it("says the time of a virtual ride in the rider's zone, as the rest of the page (issue 19)", async () => {
    // The same cut-off file, as a Zwift ride: its positions lie in Zurich's zone, the rider sits in New York.
    const track = onlyTrack(readFixture('fit', 'truncated.fit'), 'truncated.fit');
    track.sport = 'cycling';
    track.subSport = 'virtual_activity';
    const id = await storeRide(rider.id, track);
    const preferences = await server.store.preferences.get(rider.id);
    await server.store.preferences.save(rider.id, { ...preferences, timeZone: 'America/New_York' });
    const page = (await browser.get(`/dashboard/rides/${id}`)).body;
    expect(page).toContain('(America/New_York)');
    // The last point is 08:00:24 UTC: 04:00 in New York (summer time), not Zurich's 10:00.
    expect(notice(page)).toContain('This file ends early: the ride was read up to 04:00 EDT.');
  });

  it('flags a damaged ride in the rides list, linked to its notice, and no sound one (issue 40)', async () => {
    const cut = await storeRide(rider.id, onlyTrack(readFixture('fit', 'truncated.fit'), 'truncated.fit'));
    const sound = await storeRide(rider.id, ride('Sound ride', BASE));
    const list = (await browser.get('/dashboard/rides')).body;
    const flags = [...list.matchAll(/<a class="file-flag" href="([^"]+)"\s*>([^<]*)<\/a/g)];
    expect(flags.map((match) => [match[1], match[2]])).toEqual([
      [`/dashboard/rides/${cut}#file-notice-heading`, 'A problem with the file'],
    ]);
    expect(list).not.toContain(`/dashboard/rides/${sound}#file-notice-heading`);
    // The anchor it links to is on the ride's page.
    expect((await browser.get(`/dashboard/rides/${cut}`)).body).toContain('id="file-notice-heading"');
  });

  it('lists several problems, and none for a sound file or a route', async () => {
    const damaged = trackFromPoints(points(30, BASE), { name: 'Damaged', sport: 'cycling' });
    damaged.warnings = [
      { code: 'RIDEFILE_BAD_CRC', message: 'the file CRC does not match' },
      { code: 'RIDEFILE_SKIPPED_DATA', message: '12 bytes were skipped' },
    ];
    const section = notice(
      (await browser.get(`/dashboard/rides/${await storeRide(rider.id, damaged)}`)).body,
    );
    expect(section).toContain('Problems with the file');
    expect(section).toMatch(/<li data-code="RIDEFILE_BAD_CRC">This file is damaged/);
    expect(section).toMatch(/<li data-code="RIDEFILE_SKIPPED_DATA">Parts of this file could not be read/);

    const sound = (await browser.get(`/dashboard/rides/${await storeRide(rider.id, ride('Sound', BASE))}`))
      .body;
    expect(notice(sound)).toBeUndefined();
    const cutRoute = route('Cut route');
    cutRoute.warnings = [{ code: 'RIDEFILE_TRUNCATED', message: 'the XML ends early' }];
    const routeId = (await server.store.assets.createFromTrack(rider.id, cutRoute)).row.id;
    expect(notice((await browser.get(`/dashboard/routes/${routeId}`)).body)).toContain(
      'This file ends early: the route shows what was read before the cut.',
    );
  });
});

describe('laps', () => {
  beforeEach(() => start());

  it('are stored with the track and shown as a table', async () => {
    const track = onlyTrack(readFixture('tcx', 'activity.tcx'), 'activity.tcx');
    expect(track.laps.length).toBeGreaterThan(0);
    const created = await server.store.assets.createFromTrack(rider.id, track);
    expect(JSON.parse(created.row.laps!)).toEqual(track.laps);
    const page = (await browser.get(`/dashboard/rides/${created.row.id}`)).body;
    expect(page).toMatch(/<caption>\s*\d+ laps?; start times in /);
    expect(page).toContain('<th scope="col" class="number">Avg speed</th>');
    expect(page).toMatch(/<th scope="row">1<\/th>/);
    // Each start time says its zone (issue 40), as every time on the page does.
    const starts = [
      ...page.matchAll(
        /<time datetime="[^"]+" title="([^"]+)"\s*>(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) ([A-Z]{2,5}|GMT[+-]\d+)<\/time/g,
      ),
    ];
    expect(starts.length).toBeGreaterThanOrEqual(track.laps.length);
  });

  const noPoints = { columns: readColumns([]), preferences: DEFAULT_PREFERENCES };

  it("say when they were computed from the points, and take laps stored before that as the file's", () => {
    const lap = { startTime: 1_700_000_000, elapsedSeconds: 60, distanceMeters: 500 };
    expect(lapsSection(JSON.stringify([{ ...lap, source: 'points' }]), 'UTC', noPoints).text).toContain(
      'computed from the points read',
    );
    expect(lapsSection(JSON.stringify([lap]), 'UTC', noPoints).text).not.toContain(
      'computed from the points',
    );
  });

  it('say "no laps recorded" for rows stored without them (before migration 5)', () => {
    expect(lapsSection(null, 'UTC', noPoints).text).toContain('No laps recorded.');
    expect(lapsSection('not json', 'UTC', noPoints).text).toContain('No laps recorded.');
    expect(lapsSection('[]', 'UTC', noPoints).text).toContain('No laps recorded.');
  });
});

describe('downloads', () => {
  beforeEach(() => start());

  it('carry every point, in each format, read back the same', async () => {
    const count = 5000;
    const id = await storeRide(rider.id, ride('Round trip', BASE, count));
    const types: Record<string, RegExp> = {
      gpx: /^application\/gpx\+xml/,
      tcx: /^application\/vnd\.garmin\.tcx\+xml/,
      geojson: /^application\/geo\+json/,
      csv: /^text\/csv/,
    };
    for (const [extension, type] of Object.entries(types)) {
      const response = await browser.get(`/dashboard/rides/${id}/download.${extension}`);
      expect(response.statusCode, extension).toBe(200);
      expect(response.headers['content-type']).toMatch(type);
      expect(response.headers['content-disposition']).toBe(
        `attachment; filename="Round-trip.${extension}"; filename*=UTF-8''Round%20trip.${extension}`,
      );
      if (extension === 'gpx' || extension === 'tcx') {
        const parsed = parseRideFile(response.rawPayload, { format: extension });
        expect(parsed.tracks.reduce((sum, track) => sum + track.points.length, 0)).toBe(count);
      } else if (extension === 'geojson') {
        const geo = JSON.parse(response.body) as {
          features: Array<{ geometry: { coordinates: unknown[] } }>;
        };
        const lines = geo.features.filter((feature) => Array.isArray(feature.geometry.coordinates[0]));
        expect(lines.reduce((sum, feature) => sum + feature.geometry.coordinates.length, 0)).toBe(count);
      } else {
        const lines = response.body.trimEnd().split(/\r?\n/);
        expect(lines.length - 1).toBe(count);
      }
    }
  });

  it('of a route', async () => {
    const id = (await server.store.assets.createFromTrack(rider.id, route('Route out', 40))).row.id;
    const response = await browser.get(`/dashboard/routes/${id}/download.gpx`);
    expect(response.statusCode).toBe(200);
    const parsed = parseRideFile(response.rawPayload, { format: 'gpx' });
    expect(parsed.tracks[0]!.kind).toBe('route');
    expect(parsed.tracks[0]!.points.length).toBe(40);
  });
});

describe('chart captions (issue 19: the summary averages, one function)', () => {
  /** The figures a chart's caption states, by its label, in the page's words. */
  const caption = (page: string, label: string): { min: number; avg: number; max: number } => {
    const figures = new RegExp(
      `<strong>${label} \\([^)]*\\)</strong>:[^<]*from (-?[\\d.]+) to (-?[\\d.]+) [^,]*, average (-?[\\d.]+) `,
    ).exec(page);
    if (figures === null) throw new Error(`no ${label} caption`);
    return { min: Number(figures[1]), max: Number(figures[2]), avg: Number(figures[3]) };
  };
  const tenths = (stat: Stat): { min: number; avg: number; max: number } => ({
    min: Math.round(stat.min * 10) / 10,
    avg: Math.round(stat.avg * 10) / 10,
    max: Math.round(stat.max * 10) / 10,
  });

  it.skipIf(!corpusAvailable)('give the summary values on a corpus file', async () => {
    await start();
    const track = onlyTrack(readCorpus('fitfilefaker__palisade.fit'), 'palisade.fit');
    const id = await storeRide(rider.id, track);
    const page = (await browser.get(`/dashboard/rides/${id}`)).body;
    const { summary } = track;
    expect(caption(page, 'Temperature')).toEqual(tenths(summary.temperatureCelsius!));
    for (const [label, stat] of [
      ['Heart rate', summary.heartRateBpm],
      ['Cadence', summary.cadenceRpm],
      ['Power', summary.powerWatts],
    ] as const) {
      if (stat !== null) expect(caption(page, label), label).toEqual(tenths(stat));
    }
    // Elevation, which the summary does not average, by the same rules (each value held for its time).
    expect(caption(page, 'Elevation')).toEqual(
      tenths(elevationAndTemperature(track.points).elevationMeters!),
    );
  });

  it('never state an average above the maximum or below the minimum they give', () => {
    const point = fc.record(
      {
        gap: fc.integer({ min: 0, max: 120 }),
        x: fc.double({ min: 7, max: 8, noNaN: true }),
        y: fc.double({ min: 46, max: 47, noNaN: true }),
        e: fc.double({ min: -12_000, max: 12_000, noNaN: true }),
        s: fc.double({ min: 0, max: 30, noNaN: true }),
        h: fc.integer({ min: 0, max: 300 }),
        c: fc.integer({ min: 0, max: 400 }),
        p: fc.integer({ min: 0, max: 4000 }),
        T: fc.double({ min: -120, max: 90, noNaN: true }),
      },
      { requiredKeys: ['gap'] },
    );
    fc.assert(
      fc.property(
        fc.array(point, { minLength: 1, maxLength: 200 }),
        fc.constantFrom('metric' as const, 'imperial' as const),
        (drawn, units) => {
          let t = BASE;
          const rows: TrackPoint[] = drawn.map(({ gap, ...values }) => {
            t += gap;
            return { ...values, t };
          });
          const track = trackFromPoints(rows, { sport: 'cycling' });
          const trip = tripColumns(track) as unknown as TripRow;
          const overTime = elevationAndTemperature(rows);
          for (const chart of drawingData(readColumns(rows), units).charts) {
            for (const row of [trip, null]) {
              const { min, avg, max } = captionFigures(chart, row, overTime, units);
              expect(avg, chart.key).toBeLessThanOrEqual(max);
              // Speed's summary average is distance over moving time, which a ride that never moved
              // gives as 0, below its slowest sample; every other average lies within what it averages.
              if (chart.key !== 's') expect(avg, chart.key).toBeGreaterThanOrEqual(min);
            }
          }
        },
      ),
    );
  });
});

describe('drawing data', () => {
  it('downsamples each series to at most MAX_DRAWN_POINTS, keeping the extremes', () => {
    const many = points(50_000, BASE);
    many[31_337]!.h = 250;
    many[12_345]!.h = 30;
    const data = drawingData(readColumns(many));
    expect(data.pointCount).toBe(50_000);
    expect(data.track.length).toBeLessThanOrEqual(MAX_DRAWN_POINTS + 1);
    const hr = data.charts.find((chart) => chart.key === 'h')!;
    for (const xy of [hr.time!, hr.distance!]) {
      expect(xy[0].length).toBeLessThanOrEqual(MAX_DRAWN_POINTS);
      const drawn = xy[1].filter((value) => value !== null);
      expect(Math.max(...drawn)).toBe(250);
      expect(Math.min(...drawn)).toBe(30);
    }
    expect(hr.max).toBe(250);
    expect(data.charts.map((chart) => chart.key)).toEqual(['e', 's', 'h']);
    expect(data.charts.find((chart) => chart.key === 's')!.derived).toBe(true);
  });

  it('breaks every chart at each pause longer than PAUSE_SECONDS, never drawing a line across it', () => {
    const steps = fc.array(
      fc.oneof(fc.integer({ min: 1, max: PAUSE_SECONDS }), fc.integer({ min: PAUSE_SECONDS + 1, max: 4000 })),
      {
        minLength: 1,
        maxLength: 1500,
      },
    );
    fc.assert(
      fc.property(steps, (gaps) => {
        let t = BASE;
        const ride = [
          { t, h: 100, x: 8.5, y: 47.3 },
          ...gaps.map((gap, i) => ({ t: (t += gap), h: 100 + (i % 50), x: 8.5 + i * 1e-4, y: 47.3 })),
        ];
        const pauses = gaps.filter((gap) => gap > PAUSE_SECONDS).length;
        const hr = drawingData(readColumns(ride)).charts.find((chart) => chart.key === 'h')!;
        for (const [xs, ys] of [hr.time!, hr.distance!]) {
          expect(ys.filter((value) => value === null)).toHaveLength(pauses);
          // A gap is never first or last, and never two in a row.
          ys.forEach((value, i) => {
            if (value === null) {
              expect(ys[i - 1] ?? null).not.toBeNull();
              expect(ys[i + 1] ?? null).not.toBeNull();
              expect(xs[i]!).toBeGreaterThanOrEqual(xs[i - 1]!);
              expect(xs[i]!).toBeLessThanOrEqual(xs[i + 1]!);
            }
          });
        }
      }),
      { numRuns: 50 },
    );
  });

  it('converts drawn values and the distance axis to imperial units', () => {
    const ride = points(100, BASE);
    const metric = drawingData(readColumns(ride));
    const imperial = drawingData(readColumns(ride), 'imperial');
    expect(imperial.distanceUnit).toBe('mi');
    const elevation = (data: typeof metric) => data.charts.find((chart) => chart.key === 'e')!;
    expect(elevation(imperial).unit).toBe('ft');
    expect(elevation(imperial).max).toBeCloseTo(elevation(metric).max / 0.3048, 0);
    const lastMile = imperial.charts[0]!.distance![0].at(-1)!;
    expect(lastMile).toBeCloseTo(metric.charts[0]!.distance![0].at(-1)! / 1.609344, 2);
  });

  it('charts no sensor channel of nothing but zeros, but an elevation or temperature of 0 (issue 40)', () => {
    const zeros = points(100, BASE).map((point) => ({ ...point, e: 0, T: 0, s: 0, h: 0, c: 0, p: 0 }));
    expect(drawingData(readColumns(zeros)).charts.map((chart) => chart.key)).toEqual(['e', 'T']);
    const coasting = zeros.map((point, i) => ({ ...point, p: i === 50 ? 180 : 0 }));
    expect(drawingData(readColumns(coasting)).charts.map((chart) => chart.key)).toEqual(['e', 'p', 'T']);
  });

  it('draws nothing for a recording without positions, but still charts it', () => {
    const data = drawingData(readColumns(points(100, BASE).map(({ t, h }) => ({ t: t!, h: h! }))));
    expect(data.track).toEqual([]);
    expect(data.bounds).toBeNull();
    expect(data.charts.map((chart) => [chart.key, chart.distance])).toEqual([['h', null]]);
  });
});

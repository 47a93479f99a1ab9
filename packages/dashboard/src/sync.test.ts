import { readFileSync } from 'node:fs';
import { trackFromPoints } from '@rideport/ridefile';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LocalSync, LocalSyncStatus } from '@rideport/server/web';
import {
  Browser,
  createPerson,
  credentialsFor,
  csrfTokenIn,
  multipartBody,
  type Person,
  testServer,
  type TestServer,
  type UploadFile,
} from '@rideport/server/test-support';
import { dashboardPages } from './index.js';
import { MAX_FILES_PER_FORM } from './sync.js';
import { strToU8, zipSync } from 'fflate';

const SAMPLE_RIDE = readFileSync(new URL('../../../fixtures/gpx/sample-ride.gpx', import.meta.url));
const FAILED_SHA = 'f'.repeat(64);
const SYNCED_SHA = 'a'.repeat(64);
const CUT_SHA = 'c'.repeat(64);

/**
 * A LocalSync as the host's engine presents it (the server cannot import @rideport/sync, so the
 * real engine is exercised in test/dashboard-sync.browser.test.ts): a status in SyncStatus's shape,
 * and a record of what it was asked to do.
 */
class RecordingSync implements LocalSync {
  userId: number | null;
  calls: string[] = [];
  state: LocalSyncStatus['state'] = { kind: 'syncing', done: 2, total: 5 };
  failed = true;
  /** rides synced as duplicates of these trips, with the server's message (issue 16) */
  duplicates: { tripIds: number[]; message: string }[] = [];

  constructor(userId: number | null) {
    this.userId = userId;
  }

  status(): LocalSyncStatus {
    return {
      state: this.state,
      sources: [
        {
          id: 'device:garmin',
          kind: 'device',
          label: 'Garmin Edge <530>',
          path: '/media/GARMIN',
          present: true,
          awaitingImportChoice: true,
        },
        {
          id: 'folder:/home/rider/Rides',
          kind: 'folder',
          label: '/home/rider/Rides',
          path: '/home/rider/Rides',
          present: false,
          awaitingImportChoice: false,
        },
      ],
      counts: { found: 7, waiting: 1, queued: 2, uploading: 1, synced: 3, failed: 1 },
      recent: [
        {
          sha256: FAILED_SHA,
          filename: 'broken.fit',
          sourceId: 'device:garmin',
          relativePath: 'Activity/broken.fit',
          state: this.failed ? 'failed' : 'queued',
          message: 'Could not read the file: the FIT file header is missing or damaged',
          tripIds: [],
          routeIds: [],
          duplicate: false,
          attempts: 2,
          foundAt: '2026-03-01T11:00:00.000Z',
          updatedAt: '2026-03-01T11:01:00.000Z',
        },
        {
          sha256: SYNCED_SHA,
          filename: 'morning.fit',
          sourceId: 'folder:/home/rider/Rides',
          relativePath: 'morning.fit',
          state: 'synced',
          message: 'Created 1 ride from upload',
          tripIds: [42],
          routeIds: [],
          duplicate: false,
          attempts: 1,
          foundAt: '2026-03-01T10:00:00.000Z',
          updatedAt: '2026-03-01T10:01:00.000Z',
        },
        {
          sha256: CUT_SHA,
          filename: 'cut-off.fit',
          sourceId: 'device:garmin',
          relativePath: 'Activity/cut-off.fit',
          state: 'synced',
          message: 'Created 1 ride from a file that ends early: the ride was read up to 14:32',
          tripIds: [43],
          routeIds: [],
          duplicate: false,
          attempts: 1,
          foundAt: '2026-03-01T09:00:00.000Z',
          updatedAt: '2026-03-01T09:01:00.000Z',
        },
        ...this.duplicates.map((duplicate, index) => ({
          sha256: String(index).repeat(64),
          filename: `copy-${index}.fit.gz`,
          sourceId: 'folder:/home/rider/Rides',
          relativePath: `copy-${index}.fit.gz`,
          state: 'synced' as const,
          message: duplicate.message,
          tripIds: duplicate.tripIds,
          routeIds: [],
          duplicate: true,
          attempts: 1,
          foundAt: '2026-03-01T09:00:00.000Z',
          updatedAt: '2026-03-01T09:01:00.000Z',
        })),
      ],
      lastPassAt: '2026-03-01T11:59:00.000Z',
      removedSources: [
        {
          id: 'device:forgotten',
          kind: 'device',
          label: 'Old Edge <520>',
          path: '/media/EDGE',
          present: true,
          awaitingImportChoice: false,
        },
      ],
      waitingFiles: [
        {
          sourceId: 'device:garmin',
          relativePath: 'Activity/<copying>.fit',
          reason: 'the FIT file ends before its CRC',
          takenBy: '2026-03-01T12:02:00.000Z',
        },
      ],
      copies: [
        {
          sourceId: 'folder:/home/rider/Rides',
          relativePath: 'Backup/<same>.fit',
          sameAs: {
            sourceId: 'device:garmin',
            relativePath: 'Activity/ride.fit',
            tripIds: [7],
            routeIds: [],
          },
          foundAt: '2026-03-01T11:58:00.000Z',
        },
      ],
    };
  }
  syncNow(): void {
    this.calls.push('now');
  }
  pause(): void {
    this.calls.push('pause');
  }
  resume(): void {
    this.calls.push('resume');
  }
  retry(sha256: string): boolean {
    this.calls.push(`retry ${sha256}`);
    return sha256 === FAILED_SHA;
  }
  retryFailed(): number {
    this.calls.push('retry all');
    return 1;
  }
  chooseImport(sourceId: string, window: string): boolean {
    this.calls.push(`import ${sourceId} ${window}`);
    return sourceId === 'device:garmin';
  }
  addFolder(path: string, window: string | undefined): void {
    this.calls.push(`folder ${path} ${window ?? '-'}`);
  }
  removeSource(sourceId: string): boolean {
    this.calls.push(`remove ${sourceId}`);
    return true;
  }
  restoreSource(sourceId: string, window: string | undefined): boolean {
    this.calls.push(`restore ${sourceId} ${window ?? '-'}`);
    return sourceId === 'device:forgotten';
  }
  tripSources(): Map<number, string> {
    return new Map();
  }
}

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function setUp(
  options: { engine?: 'mine' | 'someone else' | 'none'; uploadBytes?: number } = {},
): Promise<{ server: TestServer; rider: Person; sync: RecordingSync; browser: Browser }> {
  const sync = new RecordingSync(null);
  const server = await testServer({
    pages: [dashboardPages],
    ...(options.engine === 'none' ? {} : { localSync: sync }),
    ...(options.uploadBytes === undefined ? {} : { limits: { uploadBytes: options.uploadBytes } }),
  });
  servers.push(server);
  const rider = await createPerson(server, 'Sync Rider');
  if (options.engine !== 'none') {
    sync.userId = options.engine === 'someone else' ? (await createPerson(server, 'Other')).id : rider.id;
  }
  const browser = new Browser(server.app);
  expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
  return { server, rider, sync, browser };
}

async function uploadThroughPage(
  browser: Browser,
  file: UploadFile | readonly UploadFile[] | null,
  token: string | null,
): Promise<Awaited<ReturnType<Browser['get']>>> {
  const { body, contentType } = await multipartBody(token === null ? [] : [['_csrf', token]], file);
  const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return browser.app.inject({
    method: 'POST',
    url: '/dashboard/sync/upload',
    headers: { 'content-type': contentType, cookie },
    payload: body,
  });
}

async function taskEnd(server: TestServer, taskId: number): Promise<void> {
  for (const deadline = Date.now() + 50_000; Date.now() < deadline;) {
    const task = await server.store.tasks.find(taskId);
    if (task !== undefined && task.status !== 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${taskId} did not end`);
}

describe('GET /dashboard/sync', () => {
  it('sends someone not signed in to sign in and back', async () => {
    const server = await testServer({ pages: [dashboardPages] });
    servers.push(server);
    const response = await new Browser(server.app).get('/dashboard/sync?task=3');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/sign_in?return_to=%2Fdashboard%2Fsync%3Ftask%3D3');
  });

  it('shows the owner the state with progress, sources, counts, history and every control', async () => {
    const { browser } = await setUp();
    const page = await browser.get('/dashboard/sync');
    expect(page.statusCode).toBe(200);
    // The cells as a reader sees them: without the roles and labels that stack them at phone width
    // (asserted at the end), each cell's tag on one line.
    const body = page.body
      .replace(/\s+(?:role="(?:table|rowgroup|row|columnheader|cell)"|data-label="[^"]*"|class="links")/g, '')
      .replace(/\s+>/g, '>')
      .replace(/<td\s+/g, '<td ');
    expect(body).toContain('<span id="sync-state">Syncing 2 of 5</span>');
    expect(body).toMatch(
      /<label for="sync-progress">Uploaded 2 of 5<\/label>\s*<progress id="sync-progress" max="5" value="2">/,
    );
    // Sources: kind and presence, labels escaped, and the import question for the one awaiting it.
    expect(body).toContain('Garmin Edge &lt;530&gt;');
    expect(body).not.toContain('Garmin Edge <530>');
    expect(body).toMatch(/<td>Device<\/td>\s*<td>Present<\/td>/);
    expect(body).toMatch(/<td>Folder<\/td>\s*<td>Not present<\/td>/);
    expect(body).toContain('action="/dashboard/sync/import"');
    expect(body).toContain('name="source_id" value="device:garmin"');
    expect(body).toContain('How far back should the first sync of Garmin Edge &lt;530&gt; go?');
    // Counts and history: the server's message, trip links, Retry only on the failed ride.
    expect(body).toMatch(/<dt>Synced<\/dt>\s*<dd>3<\/dd>/);
    expect(body).toMatch(/<dt>Failed<\/dt>\s*<dd>1<\/dd>/);
    // A file that waits says why and until when, its name escaped (issue 20).
    expect(body).toContain('<h2 id="sync-waiting-heading">Not complete yet</h2>');
    // Issue 35: a byte-identical copy is said, with the file it is the same as and that ride's link.
    expect(body.replace(/\s+/g, ' ')).toContain(
      '<td><code>Backup/&lt;same&gt;.fit</code></td> <td>/home/rider/Rides</td> <td><code>Activity/ride.fit</code></td> <td> <a href="/dashboard/rides/7">Ride 7</a>',
    );
    expect(body).toMatch(
      /<td><code>Activity\/&lt;copying&gt;\.fit<\/code><\/td>\s*<td>Garmin Edge &lt;530&gt;<\/td>\s*<td>the FIT file ends before its CRC<\/td>\s*<td><time datetime="2026-03-01T12:02:00.000Z" title="UTC">2026-03-01 12:02:00 UTC<\/time><\/td>/,
    );
    expect(body).toMatch(/<td class="error">\s*Could not read the file: the FIT file header is missing/);
    // A file read with warnings says so in its row, in words (issue 16).
    expect(body).toMatch(
      /<code>cut-off\.fit<\/code>[\s\S]*?Created 1 ride from a file that ends early: the ride was read up to 14:32/,
    );
    expect(body).not.toContain('RIDEFILE_');
    expect(body).toContain('<a href="/dashboard/rides/42" data-focus="ride:42">Ride 42</a>');
    expect(body).toContain(`name="sha256" value="${FAILED_SHA}"`);
    expect(body).not.toContain(`name="sha256" value="${SYNCED_SHA}"`);
    expect(body).toContain('aria-label="Retry broken.fit"');
    for (const action of ['now', 'pause', 'retry', 'folders', 'upload']) {
      expect(body).toContain(`action="/dashboard/sync/${action}"`);
    }
    expect(body).not.toContain('action="/dashboard/sync/resume"');
    expect(body).toContain('>Add folder</button>');
    // Every form carries the CSRF token; the live region and the script are there.
    const forms = body.match(/<form /g)?.length ?? 0;
    const tokens = body.match(/name="_csrf" value="[^"]+"/g)?.length ?? 0;
    expect(tokens).toBe(forms);
    expect(body).toContain('id="sync-announce" class="visually-hidden" role="status" aria-live="polite"');
    // Each cell of the stacked tables names its column, for phone width (layout.ts, table.stacked).
    for (const label of ['Source', 'Kind', 'Present', 'File', 'State', "Server's message", 'Why it waits']) {
      expect(page.body).toMatch(new RegExp(`<td\\s+role="cell"[^>]*data-label="${label}"`));
    }
    expect(body).toContain('<script type="module" src="/dashboard/sync/live.js"></script>');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it('says of a file the server had already: "Already on the platform as <ride>", linked (issue 16)', async () => {
    const { server, rider, sync, browser } = await setUp();
    const points = [0, 1, 2].map((i) => ({ x: 8 + i / 1e4, y: 47, t: 1_714_809_600 + i }));
    const trip = async (name: string): Promise<number> =>
      (await server.store.assets.createFromTrack(rider.id, trackFromPoints(points), { name })).row.id;
    const morning = await trip('Morning <Ride>');
    const evening = await trip('Evening Ride');
    sync.duplicates = [
      { tripIds: [morning], message: 'Already on the platform as Morning <Ride>' },
      {
        tripIds: [evening],
        message:
          'Already on the platform as Evening Ride; it was completed from this file, which goes on where the stored copy was cut off',
      },
      { tripIds: [morning, evening], message: 'Duplicate upload: 2 rides from the same file exist already' },
    ];
    // The page's text with each run of white space as one space, as a browser shows it.
    const words = (page: string): string => page.replace(/\s+/g, ' ');
    const body = words((await browser.get('/dashboard/sync')).body).replace(/\s+<\/td>/g, '</td>');
    const link = (id: number, name: string): string => `<a href="/dashboard/rides/${id}">${name}</a>`;
    // The plain case says it once; the server's words follow only when they say more.
    expect(body).toContain(`Already on the platform as ${link(morning, 'Morning &lt;Ride&gt;')}</td>`);
    expect(body).toContain(
      `Already on the platform as ${link(evening, 'Evening Ride')}<br /><small>Already on the platform as Evening Ride; it was completed from this file`,
    );
    expect(body).toContain(
      `Already on the platform as ${link(morning, 'Morning &lt;Ride&gt;')} and ${link(evening, 'Evening Ride')}<br /><small>Duplicate upload: 2 rides`,
    );
    // A ride renamed since is named as it is called now; a deleted one leaves the server's words.
    await server.store.assets.update('trip', morning, rider.id, { name: 'Dawn patrol' });
    await server.store.assets.delete('trip', evening, rider.id);
    const after = words((await browser.get('/dashboard/sync/status.json')).json<{ live: string }>().live);
    expect(after).toContain(
      `Already on the platform as ${link(morning, 'Dawn patrol')}<br /><small>Already on the platform as Morning &lt;Ride&gt;</small>`,
    );
    expect(after).toMatch(
      /<td\s+role="cell"\s+class=""\s+data-label="Server's message"\s*>\s*Already on the platform as Evening Ride; it was completed from this file/,
    );
  });

  it("says the engine's times in the rider's zone, named as people write it (issue 40)", async () => {
    const { server, rider, browser, sync } = await setUp();
    await server.store.preferences.save(rider.id, {
      ...(await server.store.preferences.get(rider.id)),
      timeZone: 'America/Chicago',
    });
    sync.state = { kind: 'offline', message: 'offline', retryAtMs: Date.parse('2026-03-01T12:05:00Z') };
    const body = (await browser.get('/dashboard/sync')).body;
    expect(body).toMatch(
      /<time datetime="2026-03-01T12:05:00.000Z" title="America\/Chicago"\s*>2026-03-01 06:05:00 CST<\/time\s*>/,
    );
    expect(body).not.toContain(' UTC</time');
    // The live part says them the same way.
    const live = (await browser.get('/dashboard/sync/status.json')).json<{ live: string }>().live;
    expect(live).toContain('2026-03-01 06:05:00 CST');
  });

  it('shows each state in words: paused (with Resume), offline and disk full (server or here) with the retry time, needs sign-in, idle', async () => {
    const { browser, sync } = await setUp();
    sync.state = { kind: 'paused' };
    let body = (await browser.get('/dashboard/sync')).body;
    expect(body).toContain('<span id="sync-state">Paused</span>');
    expect(body).toContain('action="/dashboard/sync/resume"');
    expect(body).not.toContain('action="/dashboard/sync/pause"');
    sync.state = {
      kind: 'offline',
      message: 'connect ECONNREFUSED',
      retryAtMs: Date.parse('2026-03-01T12:05:00Z'),
    };
    body = (await browser.get('/dashboard/sync')).body;
    expect(body).toContain('<span id="sync-state">Offline</span>');
    expect(body).toContain('connect ECONNREFUSED');
    expect(body).toMatch(
      /<time datetime="2026-03-01T12:05:00.000Z" title="UTC"\s*>2026-03-01 12:05:00 UTC<\/time\s*>/,
    );
    sync.state = {
      kind: 'server-full',
      message: "the server's disk is full; try again later",
      retryAtMs: Date.parse('2026-03-01T12:06:00Z'),
    };
    body = (await browser.get('/dashboard/sync')).body;
    expect(body).toContain('<span id="sync-state">Server disk full</span>');
    expect(body).toContain(
      'The server cannot store rides now: the server&#39;s disk is full; try again later.',
    );
    expect(body).toContain('Nothing has failed');
    expect(body).toMatch(
      /<time datetime="2026-03-01T12:06:00.000Z" title="UTC"\s*>2026-03-01 12:06:00 UTC<\/time\s*>/,
    );
    sync.state = {
      kind: 'disk-full',
      message: "this computer's disk is full: the sync engine cannot write to /data/sync/local",
      retryAtMs: Date.parse('2026-03-01T12:07:00Z'),
    };
    body = (await browser.get('/dashboard/sync')).body;
    expect(body).toContain('<span id="sync-state">Disk full</span>');
    expect(body).toContain('Rides cannot be collected or recorded now: this computer&#39;s disk is full');
    expect(body).toContain('files stay where they');
    sync.state = { kind: 'needs-sign-in', message: 'the auth token was refused' };
    body = (await browser.get('/dashboard/sync')).body;
    expect(body).toContain('<span id="sync-state">Needs sign-in</span>');
    expect(body).toContain('the auth token was refused');
    sync.state = { kind: 'idle' };
    body = (await browser.get('/dashboard/sync')).body;
    // The engine's state, told from an upload made on the page, which has its own (issue 40).
    expect(body).toContain('Devices and folders: <span id="sync-state">Idle</span>');
    expect(body).toContain('No file from your devices or folders is waiting to be uploaded.');
    expect(body).not.toContain('Nothing is being uploaded');
    expect(body).not.toContain('<progress');
  });

  it.each(['none', 'someone else'] as const)(
    'with the engine %s, says where sync runs and offers only the upload form',
    async (engine) => {
      const { browser } = await setUp({ engine });
      const page = await browser.get('/dashboard/sync');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('id="sync-elsewhere"');
      expect(page.body).toContain('<code>rideport up</code>');
      expect(page.body).not.toContain('Sync now');
      expect(page.body).not.toContain('broken.fit');
      expect(page.body).toContain('action="/dashboard/sync/upload" enctype="multipart/form-data"');
      expect(page.body).toContain('<label for="upload-file">');
      expect(page.body).toContain('accept=".fit,.tcx,.gpx,.kml,.kmz,.gz,.zip"');
      const token = await browser.csrfTokenOf('/dashboard/sync');
      const steer = await browser.post('/dashboard/sync/pause', { _csrf: token });
      expect(steer.statusCode).toBe(403);
      expect(steer.headers['content-type']).toBe('text/html; charset=utf-8');
      const json = await browser.get('/dashboard/sync/status.json');
      expect(json.json()).toMatchObject({ live: null, sync: null, task: null });
    },
  );
});

describe('the sync buttons', () => {
  it('steer the engine and redirect back with a notice', async () => {
    const { browser, sync } = await setUp();
    const token = csrfTokenIn((await browser.get('/dashboard/sync')).body);
    const posts: [string, Record<string, string>, string][] = [
      ['now', {}, 'now'],
      ['pause', {}, 'paused'],
      ['resume', {}, 'resumed'],
      ['retry', { sha256: FAILED_SHA }, 'retried'],
      ['retry', { sha256: SYNCED_SHA }, 'nothing-to-retry'],
      ['retry', { sha256: 'all' }, 'retried-all'],
      ['import', { source_id: 'device:garmin', window: 'days', days: '14' }, 'imported'],
      ['folders', { path: '/home/rider/More rides', window: 'new', days: '30' }, 'folder-added'],
    ];
    for (const [action, fields, notice] of posts) {
      const response = await browser.post(`/dashboard/sync/${action}`, { _csrf: token, ...fields });
      expect(response.statusCode, action).toBe(303);
      expect(response.headers.location).toBe(`/dashboard/sync?notice=${notice}`);
    }
    expect(sync.calls).toEqual([
      'now',
      'pause',
      'resume',
      `retry ${FAILED_SHA}`,
      `retry ${SYNCED_SHA}`,
      'retry all',
      'import device:garmin 14d',
      'folder /home/rider/More rides new',
    ]);
    const after = await browser.get('/dashboard/sync?notice=paused');
    expect(after.body).toContain('<p class="notice" role="status">Uploads are paused.');
  });

  it('refuses posts without a CSRF token, and bad answers with a page saying what is wrong', async () => {
    const { browser, sync, server, rider } = await setUp();
    const token = await browser.csrfTokenOf('/dashboard/sync');
    expect((await browser.post('/dashboard/sync/pause', {})).statusCode).toBe(403);
    const relative = await browser.post('/dashboard/sync/folders', {
      _csrf: token,
      path: 'rides',
      window: 'all',
    });
    expect(relative.statusCode).toBe(400);
    expect(relative.body).toContain('Enter the folder as an absolute path');
    // A path longer than any file system takes is never handed to the engine (issue 17).
    const long = await browser.post('/dashboard/sync/folders', {
      _csrf: token,
      path: `/home/${'r'.repeat(5000)}`,
      window: 'all',
    });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('The folder&#39;s path must be at most 4,096 characters.');
    const { basic } = await credentialsFor(server, rider);
    const v1 = await server.app.inject({
      method: 'POST',
      url: '/api/v1/local/sync/folders.json',
      headers: { authorization: basic, 'content-type': 'application/json' },
      payload: JSON.stringify({ path: `/home/${'r'.repeat(5000)}` }),
    });
    expect([v1.statusCode, v1.json()]).toEqual([
      422,
      { errors: ['path must be at most 4,096 characters'], error_codes: ['SERVER_TEXT_TOO_LONG'] },
    ]);
    const badDays = await browser.post('/dashboard/sync/import', {
      _csrf: token,
      source_id: 'device:garmin',
      window: 'days',
      days: '0',
    });
    expect(badDays.statusCode).toBe(400);
    expect(badDays.body).toContain('Enter a number of days');
    const notWaiting = await browser.post('/dashboard/sync/import', {
      _csrf: token,
      source_id: 'folder:/home/rider/Rides',
      window: 'all',
    });
    expect(notWaiting.statusCode).toBe(400);
    expect(sync.calls).toEqual(['import folder:/home/rider/Rides all']);
  });
});

describe('removing a folder and forgetting a device (issue 19)', () => {
  it('asks on a page of its own, in words, then removes with a POST and redirects back', async () => {
    const { browser, sync } = await setUp();
    const page = (await browser.get('/dashboard/sync')).body;
    expect(page).toContain(
      `href="/dashboard/sync/remove?source_id=${encodeURIComponent('folder:/home/rider/Rides')}"`,
    );
    expect(page).toMatch(/aria-label="Forget Garmin Edge &lt;530&gt;"\s*>Forget</);
    expect(page).toMatch(/aria-label="Remove \/home\/rider\/Rides"\s*>Remove</);
    // The forgotten device, with "Sync again".
    expect(page).toContain('Removed folders and forgotten devices');
    expect(page).toContain('<code>Old Edge &lt;520&gt;</code>');
    expect(page).toContain('aria-label="Sync Old Edge &lt;520&gt; again"');

    const question = await browser.get(
      `/dashboard/sync/remove?source_id=${encodeURIComponent('folder:/home/rider/Rides')}`,
    );
    expect(question.statusCode).toBe(200);
    expect(question.body).toContain('<h1>Stop syncing this folder?</h1>');
    expect(question.body).toContain('The rides already synced from it stay on your dashboard');
    expect(question.body).toContain('<button type="submit">Remove folder</button>');
    expect(question.body).toContain('<a href="/dashboard/sync">Cancel</a>');
    // Asking changes nothing.
    expect(sync.calls).toEqual([]);
    const device = await browser.get('/dashboard/sync/remove?source_id=device%3Agarmin');
    expect(device.body).toContain('<h1>Forget this device?</h1>');
    expect(device.body).toContain('It will not be synced when it is plugged in');

    const token = csrfTokenIn(question.body);
    const removed = await browser.post('/dashboard/sync/remove', {
      _csrf: token,
      source_id: 'folder:/home/rider/Rides',
    });
    expect([removed.statusCode, removed.headers.location]).toEqual([
      303,
      '/dashboard/sync?notice=folder-removed',
    ]);
    const forgotten = await browser.post('/dashboard/sync/remove', {
      _csrf: token,
      source_id: 'device:garmin',
    });
    expect(forgotten.headers.location).toBe('/dashboard/sync?notice=device-forgotten');
    const restored = await browser.post('/dashboard/sync/restore', {
      _csrf: token,
      source_id: 'device:forgotten',
    });
    expect(restored.headers.location).toBe('/dashboard/sync?notice=restored');
    expect(sync.calls).toEqual([
      'remove folder:/home/rider/Rides',
      'remove device:garmin',
      'restore device:forgotten -',
    ]);
    expect((await browser.get('/dashboard/sync?notice=folder-removed')).body).toContain(
      'The folder was removed: it is not synced any more.',
    );
  });

  it('refuses without a CSRF token, and says so of a source that is not synced, to anyone else 403', async () => {
    const { browser, sync } = await setUp();
    const token = await browser.csrfTokenOf('/dashboard/sync');
    expect(
      (await browser.post('/dashboard/sync/remove', { source_id: 'folder:/home/rider/Rides' })).statusCode,
    ).toBe(403);
    const unknown = await browser.post('/dashboard/sync/remove', {
      _csrf: token,
      source_id: 'folder:/nowhere',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('No folder or device with that name is synced now.');
    const empty = await browser.post('/dashboard/sync/remove', { _csrf: token });
    expect(empty.statusCode).toBe(400);
    expect((await browser.get('/dashboard/sync/remove?source_id=folder%3A%2Fnowhere')).statusCode).toBe(404);
    const notRemoved = await browser.post('/dashboard/sync/restore', {
      _csrf: token,
      source_id: 'device:garmin',
    });
    expect(notRemoved.statusCode).toBe(404);
    expect(sync.calls).toEqual(['restore device:garmin -']);

    const other = await setUp({ engine: 'someone else' });
    const otherToken = await other.browser.csrfTokenOf('/dashboard/sync');
    expect((await other.browser.get('/dashboard/sync/remove?source_id=device%3Agarmin')).statusCode).toBe(
      403,
    );
    expect(
      (await other.browser.post('/dashboard/sync/remove', { _csrf: otherToken, source_id: 'device:garmin' }))
        .statusCode,
    ).toBe(403);
    expect(other.sync.calls).toEqual([]);
  });
});

describe('GET /dashboard/sync/status.json and live.js', () => {
  it('gives the owner the live part (without CSRF tokens) and the state to announce; 401 when signed out', async () => {
    const { server, browser, sync } = await setUp();
    const response = await browser.get('/dashboard/sync/status.json');
    expect(response.statusCode).toBe(200);
    const json = response.json<{ live: string; announce: string; sync: unknown }>();
    expect(json.announce).toBe('Syncing 2 of 5');
    expect(json.live).toContain('<span id="sync-state">Syncing 2 of 5</span>');
    expect(json.live).toContain('name="_csrf" value=""');
    expect(json.sync).toEqual(JSON.parse(JSON.stringify(sync.status())));
    expect((await new Browser(server.app).get('/dashboard/sync/status.json')).statusCode).toBe(401);
  });

  it('serves the enhancement script as JavaScript', async () => {
    const { browser } = await setUp();
    const script = await browser.get('/dashboard/sync/live.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body).toContain('/dashboard/sync/status.json');
  });
});

describe('POST /dashboard/sync/upload', () => {
  it('queues the file as the session user (no API client) and shows the task until it made a ride', async () => {
    const { server, rider, browser } = await setUp({ engine: 'none' });
    const token = await browser.csrfTokenOf('/dashboard/sync');
    const response = await uploadThroughPage(browser, { name: 'sample-ride.gpx', bytes: SAMPLE_RIDE }, token);
    expect(response.statusCode).toBe(303);
    const taskId = Number(/^\/dashboard\/sync\?task=(\d+)$/.exec(response.headers.location as string)?.[1]);
    const task = await server.store.tasks.find(taskId);
    expect(task).toMatchObject({ user_id: rider.id, api_client_id: null, filename: 'sample-ride.gpx' });
    await taskEnd(server, taskId);
    const page = await browser.get(`/dashboard/sync?task=${taskId}`);
    expect(page.body).toMatch(/data-ended="true"/);
    const tripId = /<a href="\/dashboard\/rides\/(\d+)">Ride \d+<\/a>/.exec(page.body)?.[1];
    expect(page.body).toContain('Created 1 ride from upload');
    const trip = await server.store.assets.findRecordWithPoints('trip', Number(tripId));
    expect(trip).toBeDefined();
    const json = (await browser.get(`/dashboard/sync/status.json?task=${taskId}`)).json<{
      task: { ended: boolean; announce: string };
    }>();
    expect(json.task).toMatchObject({
      ended: true,
      announce: `Upload ${taskId}: Created 1 ride from upload`,
    });
    // Someone else's task is not shown.
    const other = new Browser(server.app);
    const stranger = await createPerson(server, 'Stranger');
    await other.signIn(stranger.email, stranger.password);
    const theirs = await other.get(`/dashboard/sync?task=${taskId}`);
    expect(theirs.body).toContain('There is no such upload');
  });

  // Issue 40: the form takes several files, ZIP archives among them, at once.
  it('offers several files and ZIP archives in the picker', async () => {
    const { browser } = await setUp({ engine: 'none' });
    const page = (await browser.get('/dashboard/sync')).body;
    const input = /<input\s[^>]*id="upload-file"[^>]*>/.exec(page)![0];
    expect(input).toMatch(/\smultiple\b/);
    expect(input).toContain('accept=".fit,.tcx,.gpx,.kml,.kmz,.gz,.zip"');
  });

  it('stores several files sent at once, a ZIP among them, and lists their uploads', async () => {
    const { server, browser } = await setUp({ engine: 'none' });
    const token = await browser.csrfTokenOf('/dashboard/sync');
    const trainer = readFileSync(new URL('../../../fixtures/fit/smart-trainer.fit', import.meta.url));
    const files: UploadFile[] = [
      { name: 'ride.gpx', bytes: SAMPLE_RIDE },
      { name: 'trainer.fit', bytes: trainer },
      {
        name: 'export.zip',
        bytes: zipSync({
          'a/ride.gpx': SAMPLE_RIDE,
          'b/trainer.fit': trainer,
          'notes.txt': strToU8('not a ride'),
        }),
      },
    ];
    const response = await uploadThroughPage(browser, files, token);
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string, 'http://rideport.test');
    const ids = (location.searchParams.get('task') ?? '').split(',').map(Number);
    expect(ids).toHaveLength(4);
    expect(location.searchParams.get('skipped')).toBe('1');
    expect(location.searchParams.get('files')).toBe('3');
    for (const id of ids) await taskEnd(server, id);
    const page = await browser.get(`${location.pathname}${location.search}`);
    expect(page.body.replace(/\s+/g, ' ')).toContain(
      'You sent 3 files: 4 ride files; 1 other file was skipped. 4 done.',
    );
    // The same rides in other files are duplicates, said as such, and stored once.
    const trips = await server.store.transaction((db) => db.selectFrom('trips').select('id').execute());
    expect(trips).toHaveLength(2);
    // Each by its file's name (an archive's entries by theirs, without their folders).
    for (const name of ['ride.gpx', 'trainer.fit']) {
      expect(page.body.split(`<code>${name}</code>`)).toHaveLength(3);
    }
  });

  it('refuses a form with more files than it takes, or together over the limit, or an empty one, and stores none', async () => {
    const { server, browser } = await setUp({ engine: 'none', uploadBytes: 3 * SAMPLE_RIDE.length });
    const token = await browser.csrfTokenOf('/dashboard/sync');
    const tasks = () =>
      server.store.transaction((db) => db.selectFrom('queued_tasks').select('id').execute());
    const many = Array.from({ length: MAX_FILES_PER_FORM + 1 }, (_, i) => ({
      name: `ride-${i}.gpx`,
      bytes: strToU8('<gpx/>'),
    }));
    const tooMany = await uploadThroughPage(browser, many, token);
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.body).toContain(
      `at most ${MAX_FILES_PER_FORM} files can be uploaded at once: choose fewer, or send them as one ZIP archive`,
    );
    const four = Array.from({ length: 4 }, (_, i) => ({ name: `ride-${i}.gpx`, bytes: SAMPLE_RIDE }));
    const together = await uploadThroughPage(browser, four, token);
    expect(together.statusCode).toBe(413);
    expect(together.body).toContain('the files together are larger than the upload limit');
    const withEmpty = await uploadThroughPage(
      browser,
      [
        { name: 'ride.gpx', bytes: SAMPLE_RIDE },
        { name: 'cut.fit', bytes: new Uint8Array(0) },
      ],
      token,
    );
    expect(withEmpty.statusCode).toBe(400);
    expect(withEmpty.body).toContain('the file &quot;cut.fit&quot; is empty');
    expect(await tasks()).toEqual([]);
    // Three of them are within the limit, and stored.
    const three = await uploadThroughPage(browser, four.slice(0, 3), token);
    expect(three.statusCode).toBe(303);
    expect(await tasks()).toHaveLength(3);
  });

  // Issue 20, "Bulk and phone exports": the page lists every ride of a ZIP, not only the first.
  it('lists every upload of a ZIP sent through the form, and what it skipped, until all are read', async () => {
    const { server, browser } = await setUp({ engine: 'none' });
    const token = await browser.csrfTokenOf('/dashboard/sync');
    const archive = zipSync({
      'ride.gpx': SAMPLE_RIDE,
      'trainer.fit': readFileSync(new URL('../../../fixtures/fit/smart-trainer.fit', import.meta.url)),
      'notes.txt': strToU8('not a ride'),
    });
    const response = await uploadThroughPage(browser, { name: 'export.zip', bytes: archive }, token);
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string, 'http://rideport.test');
    const ids = (location.searchParams.get('task') ?? '').split(',').map(Number);
    expect(ids).toHaveLength(2);
    expect(location.searchParams.get('skipped')).toBe('1');
    for (const id of ids) await taskEnd(server, id);
    const statuses = vi.spyOn(server.store.tasks, 'statuses');
    const objectRecords = vi.spyOn(server.store.tasks, 'objectRecords');
    const page = await browser.get(`${location.pathname}${location.search}`);
    expect(page.statusCode).toBe(200);
    // One read of the statuses and one of the rides, however many uploads the archive held.
    expect([statuses.mock.calls.length, objectRecords.mock.calls.length]).toEqual([1, 1]);
    // Listed in the order asked for.
    const reversed = await browser.get(`/dashboard/sync?task=${[...ids].reverse().join(',')}`);
    expect([...reversed.body.matchAll(/<li data-task="(\d+)">/g)].map((match) => Number(match[1]))).toEqual(
      [...ids].reverse(),
    );
    expect(page.body.replace(/\s+/g, ' ')).toContain(
      'The archive holds 2 ride files; 1 other file was skipped. 2 done.',
    );
    for (const id of ids) expect(page.body).toContain(`<li data-task="${id}">Upload ${id} (<code>`);
    expect(page.body).toContain('<code>ride.gpx</code>');
    expect(page.body).toContain('<code>trainer.fit</code>');
    expect(page.body).not.toContain('Check again');
    // Not a list of ids: refused in words.
    const bad = await browser.get('/dashboard/sync?task=1,two');
    expect(bad.statusCode).toBe(400);
    const tooMany = await browser.get(
      `/dashboard/sync?task=${Array.from({ length: 51 }, (_, i) => i + 1).join(',')}`,
    );
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.body).toContain('task lists at most 50 uploads, separated by commas');
  });

  it('ends a file that is no ride as a failed task with the parser message', async () => {
    const { server, browser } = await setUp({ engine: 'none' });
    const token = await browser.csrfTokenOf('/dashboard/sync');
    const bytes = new TextEncoder().encode('these are not the rides you are looking for');
    const response = await uploadThroughPage(browser, { name: 'notes.txt', bytes }, token);
    expect(response.statusCode).toBe(303);
    const taskId = Number(/task=(\d+)/.exec(response.headers.location as string)?.[1]);
    await taskEnd(server, taskId);
    const page = await browser.get(`/dashboard/sync?task=${taskId}`);
    expect(page.body).toContain(
      `<p class="error">Upload ${taskId} failed: Could not read the file: the content is not a FIT, TCX, GPX, KML or KMZ file`,
    );
    expect(page.body).not.toContain('RIDEFILE_');
  });

  it('says what was wrong with a file that was read in part (issue 16)', async () => {
    const { server, browser } = await setUp({ engine: 'none' });
    const token = await browser.csrfTokenOf('/dashboard/sync');
    const bytes = readFileSync(new URL('../../../fixtures/fit/truncated.fit', import.meta.url));
    const response = await uploadThroughPage(browser, { name: 'truncated.fit', bytes }, token);
    const taskId = Number(/task=(\d+)/.exec(response.headers.location as string)?.[1]);
    await taskEnd(server, taskId);
    const page = await browser.get(`/dashboard/sync?task=${taskId}`);
    // The ride is in Zurich; its last point is 08:00:24 UTC.
    expect(page.body).toMatch(
      new RegExp(
        `<p class="task-done">Upload ${taskId}: Created 1 ride from a file that ends early: the ride was read up to 10:00\\. <a href="/dashboard/rides/\\d+">`,
      ),
    );
  });

  it('answers with pages: 403 without the token, 400 without a file, 413 past the upload limit', async () => {
    const { browser } = await setUp({ engine: 'none', uploadBytes: 1024 });
    const token = await browser.csrfTokenOf('/dashboard/sync');
    const file = { name: 'sample-ride.gpx', bytes: SAMPLE_RIDE };
    const forged = await uploadThroughPage(browser, file, null);
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('This form has expired');
    const empty = await uploadThroughPage(browser, { name: '', bytes: new Uint8Array() }, token);
    expect(empty.statusCode).toBe(400);
    expect(empty.headers['content-type']).toBe('text/html; charset=utf-8');
    const none = await uploadThroughPage(browser, null, token);
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('no file');
    expect(SAMPLE_RIDE.length).toBeGreaterThan(1024);
    const large = await uploadThroughPage(browser, file, token);
    expect(large.statusCode).toBe(413);
    expect(large.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(large.body).toContain('larger than the upload limit of 1 KB');
  });
});

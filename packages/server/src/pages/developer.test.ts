import type { Track } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import type { ApiClient, AttemptRecord } from '../store/index.js';
import { onlyTrack } from '../test-support/assets.js';
import { Browser, csrfTokenIn } from '../test-support/browser.js';
import {
  createPerson,
  START_TIME,
  testServer,
  type Person,
  type TestServer,
} from '../test-support/server.js';
import { redirectUriProblem } from './api-client-form.js';

let server: TestServer;
let rider: Person;
let browser: Browser;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
  browser = new Browser(server.app);
  expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
});
afterEach(async () => {
  await server.close();
});

const SETTINGS = {
  name: 'My ride app',
  redirect_uris: 'https://app.example.com/callback\r\ncom.example.rides:/oauth\r\n',
  webhook_url: 'https://app.example.com/hooks',
  webhook_assets: ['trip'],
};

async function createClient(settings: Record<string, string | string[]> = SETTINGS) {
  const token = await browser.csrfTokenOf('/developer');
  return browser.post('/developer/api_clients', { _csrf: token, ...settings });
}

describe('GET /developer', () => {
  it('sends a browser without a session to the sign-in form and back', async () => {
    const response = await new Browser(server.app).get('/developer');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/sign_in?return_to=%2Fdeveloper');
  });

  it('lists no clients at first, with a labelled form for a new one', async () => {
    const response = await browser.get('/developer');
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('You have no API clients yet.');
    for (const [id, label] of [
      ['client-name', 'Name'],
      ['client-redirect-uris', 'Redirect URIs (one per line)'],
      ['client-webhook-url', 'Webhook URL (optional)'],
      ['client-assets-route', 'Routes'],
      ['client-assets-trip', 'Trips (rides)'],
    ]) {
      expect(response.body).toContain(`<label for="${id}">${label}</label>`);
      expect(response.body).toContain(`id="${id}"`);
    }
  });
});

describe('creating, editing and deleting an API client', () => {
  it('creates a client and shows its api_key, client_secret and settings', async () => {
    const created = await createClient();
    expect(created.statusCode).toBe(303);
    const location = created.headers.location as string;
    expect(location).toMatch(/^\/developer\/api_clients\/\d+\?notice=created$/);
    const [client] = await server.store.apiClients.listByOwner(rider.id);
    expect(client).toMatchObject({
      name: 'My ride app',
      redirectUris: ['https://app.example.com/callback', 'com.example.rides:/oauth'],
      webhookUrl: 'https://app.example.com/hooks',
      webhookAssets: ['trip'],
    });
    const page = await browser.get(location);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('The API client was created.');
    expect(page.body).toContain(`<code id="api-key">${client!.apiKey}</code>`);
    expect(page.body).toContain(`id="client-secret">${server.store.apiClients.secretOf(client!)}</code>`);
    expect(page.body).toContain('https://app.example.com/callback\ncom.example.rides:/oauth</textarea>');
    expect(page.body).toMatch(/value="trip"\s+checked/);
    expect(page.body).not.toMatch(/value="route"\s+checked/);
    expect(page.body).toContain('<section id="webhook-deliveries">');
    expect(page.body).toContain('No webhook deliveries have been recorded for this client.');
    expect((await browser.get('/developer')).body).toContain(`<code>${client!.apiKey}</code>`);
  });

  it('escapes what the user typed on every page that shows it', async () => {
    const name = '<script>alert("x")</script> & co';
    await createClient({ ...SETTINGS, name });
    const [client] = await server.store.apiClients.listByOwner(rider.id);
    for (const url of ['/developer', `/developer/api_clients/${client!.id}`]) {
      const page = await browser.get(url);
      expect(page.body).not.toContain('<script>');
      expect(page.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
    }
  });

  it('answers 400 with every problem and the form as typed', async () => {
    const response = await createClient({
      name: '',
      redirect_uris:
        'not a uri\njavascript:alert(1)\nhttps://app.example.com/cb#frag\nhttps://user:pw@app.example.com/',
      webhook_url: 'ftp://example.com/',
    });
    expect(response.statusCode).toBe(400);
    for (const problem of [
      'name is required',
      'redirect URI must not contain spaces: not a uri',
      'redirect URI must be an http or https URL, or a custom-scheme URI of a native app: javascript:alert(1)',
      'redirect URI must not have a fragment (#…): https://app.example.com/cb#frag',
      'redirect URI must not contain a user name or password: https://user:pw@app.example.com/',
      'webhook URL must be an http or https URL: ftp://example.com/',
    ]) {
      expect(response.body).toContain(`<li>${problem}</li>`);
    }
    expect(response.body).toContain('value="ftp://example.com/"');
    expect(await server.store.apiClients.listByOwner(rider.id)).toEqual([]);
  });

  it('saves edited settings, regenerates the secret and deletes the client', async () => {
    await createClient();
    const [client] = await server.store.apiClients.listByOwner(rider.id);
    const path = `/developer/api_clients/${client!.id}`;
    const oldSecret = server.store.apiClients.secretOf(client!);

    const saved = await browser.post(path, {
      _csrf: await browser.csrfTokenOf(path),
      name: 'Renamed',
      redirect_uris: 'http://127.0.0.1:8080/cb',
      webhook_url: '',
      webhook_assets: ['route', 'trip'],
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${path}?notice=saved`);
    expect(await server.store.apiClients.findById(client!.id)).toMatchObject({
      name: 'Renamed',
      redirectUris: ['http://127.0.0.1:8080/cb'],
      webhookUrl: null,
      webhookAssets: ['route', 'trip'],
    });

    const invalid = await browser.post(path, { _csrf: await browser.csrfTokenOf(path), name: '' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body).toContain('<li>name is required</li>');

    const regenerated = await browser.post(`${path}/secret`, { _csrf: await browser.csrfTokenOf(path) });
    expect(regenerated.statusCode).toBe(303);
    const after = (await server.store.apiClients.findById(client!.id))!;
    const newSecret = server.store.apiClients.secretOf(after);
    expect(newSecret).not.toBe(oldSecret);
    expect(await server.store.apiClients.authenticate(after.apiKey, oldSecret)).toBeUndefined();
    const page = await browser.get(`${path}?notice=secret`);
    expect(page.body).toContain(newSecret);
    expect(page.body).toContain('A new client secret was generated; the old one no longer works.');

    const deleted = await browser.post(`${path}/delete`, { _csrf: await browser.csrfTokenOf(path) });
    expect(deleted.statusCode).toBe(303);
    expect(deleted.headers.location).toBe('/developer?notice=deleted');
    expect(await server.store.apiClients.findById(client!.id)).toBeUndefined();
    expect((await browser.get(path)).statusCode).toBe(404);
  });

  it('refuses every form post without a valid CSRF token (403), changing nothing', async () => {
    await createClient();
    const [client] = await server.store.apiClients.listByOwner(rider.id);
    const path = `/developer/api_clients/${client!.id}`;
    for (const [url, form] of [
      ['/developer/api_clients', SETTINGS],
      [path, { ...SETTINGS, name: 'Changed' }],
      [`${path}/secret`, {}],
      [`${path}/delete`, {}],
    ] as const) {
      const response = await browser.post(url, form);
      expect(response.statusCode, url).toBe(403);
    }
    expect(await server.store.apiClients.listByOwner(rider.id)).toEqual([client]);
  });
});

describe('the webhook delivery log', () => {
  const ride = (): Track => onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');

  async function logAttempt(client: ApiClient, fields: Partial<AttemptRecord>): Promise<void> {
    await server.store.webhooks.recordAttempt({
      apiClientId: client.id,
      deliveryId: 'delivery-1',
      outboxIds: [],
      url: 'https://app.example.com/hooks',
      attempt: 1,
      statusCode: null,
      error: null,
      durationMs: 0,
      at: START_TIME,
      outcome: { kind: 'delivered' },
      ...fields,
    });
  }

  it("lists the client's latest attempts, newest first, escaped, and what is waiting", async () => {
    await createClient();
    const [client] = await server.store.apiClients.listByOwner(rider.id);
    const path = `/developer/api_clients/${client!.id}`;
    await logAttempt(client!, {
      attempt: 1,
      error: 'refused: <script>alert(1)</script>.example: 10.0.0.1 is a private-network address',
      at: START_TIME + 1000,
    });
    await logAttempt(client!, { attempt: 2, statusCode: 503, durationMs: 41, at: START_TIME + 61_000 });
    await logAttempt(client!, {
      deliveryId: 'delivery-2',
      attempt: 1,
      statusCode: 200,
      durationMs: 12,
      at: START_TIME + 125_000,
    });
    const elsewhere = await server.store.apiClients.create(rider.id, { name: 'Another' });
    await logAttempt(elsewhere, { deliveryId: 'not-this-client', statusCode: 200 });
    // A change the client is to be told about: one notification waiting.
    await server.store.authTokens.issue(rider.id, client!.id);
    await server.store.assets.createFromTrack(rider.id, ride());

    const page = await browser.get(path);
    expect(page.statusCode).toBe(200);
    const section = /<section id="webhook-deliveries">[\s\S]*?<\/section>/.exec(page.body)![0];
    expect(section).toContain('The latest 3 attempts, newest first.');
    expect(section).toContain('1 notification is waiting to be delivered.');
    expect(section).not.toContain('<script>');
    expect(section).toContain('refused: &lt;script&gt;alert(1)&lt;/script&gt;.example');
    expect(section).not.toContain('not-this-client');
    const rows = [...section.matchAll(/<tr class="(\w+)">([\s\S]*?)<\/tr>/g)].map(([, outcome, cells]) => [
      outcome,
      [...cells!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map(([, cell]) => cell!.replace(/<[^>]+>/g, '').trim()),
    ]);
    expect(rows).toEqual([
      ['delivered', ['2026-03-01 12:02:05', 'delivery-2', '0', '1', 'HTTP 200', '12 ms']],
      ['failed', ['2026-03-01 12:01:01', 'delivery-1', '0', '2', 'HTTP 503', '41 ms']],
      [
        'failed',
        [
          '2026-03-01 12:00:01',
          'delivery-1',
          '0',
          '1',
          'refused: &lt;script&gt;alert(1)&lt;/script&gt;.example: 10.0.0.1 is a private-network address',
          '0 ms',
        ],
      ],
    ]);
    expect(section).toContain('<time datetime="2026-03-01T12:02:05.000Z">');
  });

  it('says when no webhook URL is set', async () => {
    await createClient({ ...SETTINGS, webhook_url: '' });
    const [client] = await server.store.apiClients.listByOwner(rider.id);
    const page = await browser.get(`/developer/api_clients/${client!.id}`);
    expect(page.body).toContain('No webhook URL is set, so no webhooks are sent.');
    expect(page.body).not.toContain('waiting to be delivered');
  });
});

describe('someone else’s API client', () => {
  it('is 403 to see or change, an unknown id is 404, and what is no id is 400', async () => {
    const other = await createPerson(server, 'Other Owner');
    const theirs = await server.store.apiClients.create(other.id, { name: 'Theirs' });
    const path = `/developer/api_clients/${theirs.id}`;
    const seen = await browser.get(path);
    expect(seen.statusCode).toBe(403);
    expect(seen.body).not.toContain(theirs.apiKey);
    const token = csrfTokenIn((await browser.get('/developer')).body);
    expect((await browser.post(`${path}/delete`, { _csrf: token })).statusCode).toBe(403);
    expect((await browser.post(`${path}/secret`, { _csrf: token })).statusCode).toBe(403);
    expect(await server.store.apiClients.findById(theirs.id)).toEqual(theirs);
    expect((await browser.get('/developer/api_clients/99999')).statusCode).toBe(404);
    expect((await browser.get('/developer/api_clients/abc')).statusCode).toBe(400);
  });
});

describe('redirectUriProblem', () => {
  it('accepts http(s) URLs and native app schemes, and nothing that could run or read locally', () => {
    for (const uri of [
      'https://app.example.com/callback',
      'http://localhost:3000/cb?x=1',
      'com.example.app:/oauth2redirect',
      'myapp://callback',
    ]) {
      expect(redirectUriProblem(uri), uri).toBeNull();
    }
    for (const uri of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,hi',
      'file:///etc/passwd',
      'vbscript:x',
      '/relative/path',
      'https://app.example.com/cb#x',
      `https://example.com/${'a'.repeat(2100)}`,
    ]) {
      expect(redirectUriProblem(uri), uri).not.toBeNull();
    }
  });
});

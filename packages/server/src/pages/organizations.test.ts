import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UserRow } from '../db/schema.js';
import { Browser, csrfTokenIn } from '../test-support/browser.js';
import { createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';

let server: TestServer;
let admin: Person;
let member: Person;
let club: UserRow;

beforeEach(async () => {
  server = await testServer();
  admin = await createPerson(server, 'Club Admin');
  member = await createPerson(server, 'Club Member');
  club = await server.store.users.createOrganization('Velo <Club> & Friends', admin.id);
  await server.store.users.setMembership(club.id, member.id, 'member');
});
afterEach(async () => {
  await server.close();
});

async function signedIn(person: Person): Promise<Browser> {
  const browser = new Browser(server.app);
  expect((await browser.signIn(person.email, person.password)).statusCode).toBe(303);
  return browser;
}

const pagePath = () => `/organizations/${club.id}/api_clients`;

describe('GET /organizations/:id/api_clients', () => {
  it("shows an administrator the organization's clients, escaped, with a create-token button each", async () => {
    const client = await server.store.apiClients.create(club.id, { name: 'Club <sync>' });
    const browser = await signedIn(admin);
    const page = await browser.get(pagePath());
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('API clients of Velo &lt;Club&gt; &amp; Friends');
    expect(page.body).toContain('Club &lt;sync&gt;');
    expect(page.body).not.toContain('<Club>');
    expect(page.body).toContain(`<code>${client.apiKey}</code>`);
    expect(page.body).toContain(`action="${pagePath()}/${client.id}/auth_tokens"`);
    expect(page.body).toContain('Create new auth token');
    expect(page.body).toContain('<label for="client-name">Name</label>');
    // The developer settings page links administrators here.
    expect((await browser.get('/developer')).body).toContain(`href="${pagePath()}"`);
  });

  it('is 403 for a member who is not an administrator, and 404 for what is not an organization', async () => {
    const browser = await signedIn(member);
    const forbidden = await browser.get(pagePath());
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(forbidden.body).toContain('Only administrators of this organization can manage its API clients.');
    expect((await browser.get(`/organizations/${member.id}/api_clients`)).statusCode).toBe(404);
    expect((await browser.get('/organizations/99999/api_clients')).statusCode).toBe(404);
  });

  it('sends a browser without a session to sign in first', async () => {
    const response = await new Browser(server.app).get(pagePath());
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/sign_in?return_to=${encodeURIComponent(pagePath())}`);
  });
});

describe('POST /organizations/:id/api_clients', () => {
  it('creates a client owned by the organization, which its administrator then manages', async () => {
    const browser = await signedIn(admin);
    const token = await browser.csrfTokenOf(pagePath());
    const response = await browser.post(pagePath(), { _csrf: token, name: 'Club app', redirect_uris: '' });
    expect(response.statusCode).toBe(303);
    const [client] = await server.store.apiClients.listByOwner(club.id);
    expect(client).toMatchObject({ name: 'Club app', ownerId: club.id });
    expect(response.headers.location).toBe(`/developer/api_clients/${client!.id}?notice=created`);
    const settings = await browser.get(`/developer/api_clients/${client!.id}`);
    expect(settings.statusCode).toBe(200);
    expect(settings.body).toContain('Belongs to the organization');
    // A member may not.
    expect((await (await signedIn(member)).get(`/developer/api_clients/${client!.id}`)).statusCode).toBe(403);
  });

  it('answers 400 for invalid settings, 403 without a CSRF token and for a member', async () => {
    const browser = await signedIn(admin);
    const token = await browser.csrfTokenOf(pagePath());
    const invalid = await browser.post(pagePath(), { _csrf: token, name: '' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body).toContain('<li>name is required</li>');
    expect((await browser.post(pagePath(), { name: 'No token' })).statusCode).toBe(403);
    const memberBrowser = await signedIn(member);
    const memberToken = csrfTokenIn((await memberBrowser.get('/developer')).body);
    expect((await memberBrowser.post(pagePath(), { _csrf: memberToken, name: 'Sneaky' })).statusCode).toBe(
      403,
    );
    expect(await server.store.apiClients.listByOwner(club.id)).toEqual([]);
  });
});

describe('POST /organizations/:id/api_clients/:clientId/auth_tokens', () => {
  it('shows a new token acting as the organization once, and the token works on v1', async () => {
    const client = await server.store.apiClients.create(club.id, { name: 'Club sync' });
    const browser = await signedIn(admin);
    const token = await browser.csrfTokenOf(pagePath());
    const response = await browser.post(`${pagePath()}/${client.id}/auth_tokens`, { _csrf: token });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('Copy this token now: it is shown only once.');
    const authToken = /id="auth-token">([\w-]{43})</.exec(response.body)?.[1];
    expect(authToken).toBeDefined();

    const current = await server.app.inject({
      url: '/api/v1/users/current.json',
      headers: { 'x-service-api-key': client.apiKey, 'x-service-auth-token': authToken! },
    });
    expect(current.statusCode).toBe(200);
    expect(current.json()).toMatchObject({ user: { id: club.id, name: 'Velo <Club> & Friends' } });
    // Not shown again anywhere.
    expect((await browser.get(pagePath())).body).not.toContain(authToken);
  });

  it('is 404 for a client of someone else, 403 for a member and without a CSRF token', async () => {
    const mine = await server.store.apiClients.create(admin.id, { name: 'Personal' });
    const clubClient = await server.store.apiClients.create(club.id, { name: 'Club sync' });
    const browser = await signedIn(admin);
    const token = await browser.csrfTokenOf(pagePath());
    expect((await browser.post(`${pagePath()}/${mine.id}/auth_tokens`, { _csrf: token })).statusCode).toBe(
      404,
    );
    expect((await browser.post(`${pagePath()}/${clubClient.id}/auth_tokens`, {})).statusCode).toBe(403);
    const memberBrowser = await signedIn(member);
    const memberToken = csrfTokenIn((await memberBrowser.get('/developer')).body);
    const refused = await memberBrowser.post(`${pagePath()}/${clubClient.id}/auth_tokens`, {
      _csrf: memberToken,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).not.toContain('auth-token');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BASE_URL,
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from '../../test-support/server.js';

let server: TestServer;
let organiser: Person;
let auth: { authorization: string };

beforeEach(async () => {
  server = await testServer();
  organiser = await createPerson(server, 'Olga Organiser');
  auth = { authorization: (await credentialsFor(server, organiser)).basic };
});
afterEach(async () => {
  await server.close();
});

type Event = Record<string, unknown> & { id: number };

function request(
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  headers = auth,
) {
  return server.app.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const createEvent = async (fields: Record<string, unknown>, headers = auth) => {
  const response = await request('POST', '/api/v1/events.json', { event: fields }, headers);
  expect(response.statusCode).toBe(201);
  return response.json<{ event: Event }>().event;
};

describe('POST /api/v1/events.json', () => {
  it('answers 201 with the whole record; the fields may come inside `event` or at the top level', async () => {
    const created = await request('POST', '/api/v1/events.json', {
      event: {
        name: '  Gran Fondo  ',
        start_date: '2026-06-13',
        end_date: '2026-06-14',
        description: 'Two days in the hills',
        location: 'Bergamo',
        url: 'https://granfondo.example.com/',
        visibility: 'public',
      },
    });
    expect(created.statusCode).toBe(201);
    const { event } = created.json<{ event: Event }>();
    expect(event).toEqual({
      id: event.id,
      name: 'Gran Fondo',
      description: 'Two days in the hills',
      location: 'Bergamo',
      url: 'https://granfondo.example.com/',
      start_date: '2026-06-13',
      end_date: '2026-06-14',
      visibility: 'public',
      user_id: organiser.id,
      created_at: '2026-03-01T12:00:00Z',
      updated_at: '2026-03-01T12:00:00Z',
    });

    const flat = await request('POST', '/api/v1/events.json', {
      name: 'Club ride',
      start_date: '2026-04-01',
    });
    expect(flat.statusCode).toBe(201);
    expect(flat.json<{ event: Event }>().event).toMatchObject({
      name: 'Club ride',
      start_date: '2026-04-01',
      end_date: null,
      description: null,
      location: null,
      url: null,
      visibility: 'private',
    });
  });

  it('answers 422 listing every missing field at once (docs/integrators/api.md, Errors)', async () => {
    for (const payload of [{}, { event: {} }, undefined]) {
      const response = await request('POST', '/api/v1/events.json', payload);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        errors: ['name is required', 'start_date is required'],
        error_codes: ['SERVER_MISSING_FIELD', 'SERVER_MISSING_FIELD'],
      });
    }
    const blank = await request('POST', '/api/v1/events.json', {
      event: { name: '   ', start_date: '2026-05-01' },
    });
    expect(blank.json()).toEqual({ errors: ['name is required'], error_codes: ['SERVER_MISSING_FIELD'] });
  });

  it('answers 422 naming every invalid field, all in one answer', async () => {
    const response = await request('POST', '/api/v1/events.json', {
      event: {
        name: { text: 'not a string' },
        start_date: '2026-02-30',
        end_date: 'tomorrow',
        description: ['not', 'text'],
        url: 'javascript:alert(1)',
        visibility: 'everyone',
      },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      errors: [
        'name must be a string',
        'start_date must be a date (YYYY-MM-DD)',
        'end_date must be a date (YYYY-MM-DD)',
        'description must be a string',
        'url must be an http or https URL',
        'visibility must be one of public, friends_only, private',
      ],
      error_codes: [
        'SERVER_INVALID_FIELD',
        'SERVER_INVALID_FIELD',
        'SERVER_INVALID_FIELD',
        'SERVER_INVALID_FIELD',
        'SERVER_INVALID_FIELD',
        'SERVER_INVALID_FIELD',
      ],
    });
    const backwards = await request('POST', '/api/v1/events.json', {
      event: { name: 'Backwards', start_date: '2026-05-02', end_date: '2026-05-01' },
    });
    expect(backwards.json()).toEqual({
      errors: ['end_date must not be before start_date'],
      error_codes: ['SERVER_INVALID_FIELD'],
    });
  });

  it('answers 400 for a body that is not a JSON object, 401 without credentials', async () => {
    const array = await request('POST', '/api/v1/events.json', [{ name: 'x' }]);
    expect(array.statusCode).toBe(400);
    expect(array.json()).toEqual({
      errors: ['the body must be a JSON object'],
      error_codes: ['SERVER_BAD_REQUEST'],
    });
    const anonymous = await server.app.inject({
      method: 'POST',
      url: '/api/v1/events.json',
      payload: { event: { name: 'x', start_date: '2026-05-01' } },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('GET /api/v1/events.json and /api/v1/events/{id}.json', () => {
  it("lists the caller's events, newest change first, paginated", async () => {
    const ids: number[] = [];
    for (let i = 1; i <= 21; i++) {
      ids.push((await createEvent({ name: `Ride ${i}`, start_date: '2026-05-01' })).id);
      server.clock.advance(1000);
    }
    const other = await createPerson(server, 'Bob Other');
    const otherAuth = { authorization: (await credentialsFor(server, other)).basic };
    await createEvent({ name: 'Not yours', start_date: '2026-05-01', visibility: 'public' }, otherAuth);

    const first = await request('GET', '/api/v1/events.json');
    const body = first.json<{ events: Event[]; meta: { pagination: Record<string, unknown> } }>();
    expect(body.events.map((event) => event.id)).toEqual([...ids].reverse().slice(0, 20));
    expect(body.meta.pagination).toEqual({
      record_count: 21,
      page_count: 2,
      page_size: 20,
      next_page_url: `${BASE_URL}/api/v1/events.json?page=2&page_size=20`,
    });
    const second = await request('GET', '/api/v1/events.json?page=2');
    expect(second.json<{ events: Event[] }>().events.map((event) => event.id)).toEqual([ids[0]]);
    expect((await request('GET', '/api/v1/events.json?page=3')).json<{ events: Event[] }>().events).toEqual(
      [],
    );
    const bad = await request('GET', '/api/v1/events.json?page_size=10');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      errors: ['page_size must be a whole number from 20 to 200'],
      error_codes: ['SERVER_INVALID_FIELD'],
    });
  });

  it("shows one's own events and others' public ones; others' private ones are 403, unknown ids 404", async () => {
    const mine = await createEvent({ name: 'Mine', start_date: '2026-05-01' });
    const shown = await request('GET', `/api/v1/events/${mine.id}.json`);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({ event: mine });

    const other = await createPerson(server, 'Bob Other');
    const otherAuth = { authorization: (await credentialsFor(server, other)).basic };
    const open = await createEvent(
      { name: 'Open', start_date: '2026-05-01', visibility: 'public' },
      otherAuth,
    );
    const closed = await createEvent(
      { name: 'Closed', start_date: '2026-05-01', visibility: 'friends_only' },
      otherAuth,
    );
    expect((await request('GET', `/api/v1/events/${open.id}.json`)).statusCode).toBe(200);
    const hidden = await request('GET', `/api/v1/events/${closed.id}.json`);
    expect(hidden.statusCode).toBe(403);
    expect(hidden.json()).toEqual({
      errors: [`event ${closed.id} belongs to another user and is not public`],
      error_codes: ['SERVER_FORBIDDEN'],
    });
    const unknown = await request('GET', '/api/v1/events/999.json');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ errors: ['event 999 not found'], error_codes: ['SERVER_NOT_FOUND'] });
    expect((await request('GET', '/api/v1/events/nope.json')).statusCode).toBe(400);
    expect((await server.app.inject({ url: `/api/v1/events/${mine.id}.json` })).statusCode).toBe(401);
  });
});

describe('PATCH /api/v1/events/{id}.json', () => {
  it('changes only the fields given and moves updated_at; PUT does the same', async () => {
    const event = await createEvent({ name: 'Spring ride', start_date: '2026-04-01', location: 'Bern' });
    server.clock.advance(60_000);
    const patched = await request('PATCH', `/api/v1/events/${event.id}.json`, {
      event: { end_date: '2026-04-02', location: null, visibility: 'public' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({
      event: {
        ...event,
        end_date: '2026-04-02',
        location: null,
        visibility: 'public',
        updated_at: '2026-03-01T12:01:00Z',
      },
    });
    const put = await request('PUT', `/api/v1/events/${event.id}`, { name: 'Spring classic' });
    expect(put.statusCode).toBe(200);
    // Fields not sent keep their values (no default creeps in for them).
    expect(put.json<{ event: Event }>().event).toMatchObject({
      name: 'Spring classic',
      end_date: '2026-04-02',
      visibility: 'public',
    });
  });

  it('answers 422 for a blank required field or an end before the start it keeps, listing each', async () => {
    const event = await createEvent({ name: 'Spring ride', start_date: '2026-04-10' });
    const response = await request('PATCH', `/api/v1/events/${event.id}.json`, {
      event: { name: '', start_date: null, end_date: '2026-04-01' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      errors: ['name is required', 'start_date is required'],
      error_codes: ['SERVER_MISSING_FIELD', 'SERVER_MISSING_FIELD'],
    });
    const before = await request('PATCH', `/api/v1/events/${event.id}.json`, {
      event: { end_date: '2026-04-09' },
    });
    expect(before.statusCode).toBe(422);
    expect(before.json()).toEqual({
      errors: ['end_date must not be before start_date'],
      error_codes: ['SERVER_INVALID_FIELD'],
    });
    expect((await request('GET', `/api/v1/events/${event.id}.json`)).json()).toEqual({ event });
  });

  it("answers 403 for another user's event (even a public one), 404 for an unknown one, 400 for a bad id", async () => {
    const other = await createPerson(server, 'Bob Other');
    const otherAuth = { authorization: (await credentialsFor(server, other)).basic };
    const theirs = await createEvent(
      { name: 'Theirs', start_date: '2026-05-01', visibility: 'public' },
      otherAuth,
    );
    const forbidden = await request('PATCH', `/api/v1/events/${theirs.id}.json`, {
      event: { name: 'Mine now' },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({
      errors: [`only its organiser can change event ${theirs.id}`],
      error_codes: ['SERVER_FORBIDDEN'],
    });
    expect((await request('PATCH', '/api/v1/events/999.json', { event: { name: 'x' } })).statusCode).toBe(
      404,
    );
    const bad = await request('PATCH', '/api/v1/events/x.json', { event: { name: 'x' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      errors: ['id must be a whole number from 1 to 9007199254740991'],
      error_codes: ['SERVER_INVALID_FIELD'],
    });
  });
});

describe('DELETE /api/v1/events/{id}.json', () => {
  it('answers 204 with an empty body; then the event is gone', async () => {
    const event = await createEvent({ name: 'Cancelled', start_date: '2026-05-01' });
    const deleted = await request('DELETE', `/api/v1/events/${event.id}.json`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await request('GET', `/api/v1/events/${event.id}.json`)).statusCode).toBe(404);
    expect((await request('DELETE', `/api/v1/events/${event.id}.json`)).statusCode).toBe(404);
  });

  it("answers 403 for another user's event and 401 without credentials", async () => {
    const other = await createPerson(server, 'Bob Other');
    const otherAuth = { authorization: (await credentialsFor(server, other)).basic };
    const theirs = await createEvent(
      { name: 'Theirs', start_date: '2026-05-01', visibility: 'public' },
      otherAuth,
    );
    expect((await request('DELETE', `/api/v1/events/${theirs.id}.json`)).statusCode).toBe(403);
    expect(
      (await server.app.inject({ method: 'DELETE', url: `/api/v1/events/${theirs.id}.json` })).statusCode,
    ).toBe(401);
    expect((await request('GET', `/api/v1/events/${theirs.id}.json`)).statusCode).toBe(200);
  });

  it('never reuses the id of a deleted event', async () => {
    await createEvent({ name: 'First', start_date: '2026-05-01' });
    const second = await createEvent({ name: 'Second', start_date: '2026-05-01' });
    await request('DELETE', `/api/v1/events/${second.id}.json`);
    const third = await createEvent({ name: 'Third', start_date: '2026-05-01' });
    expect(third.id).toBe(second.id + 1);
  });
});

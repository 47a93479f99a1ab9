/**
 * Every text the server stores has a maximum, enforced in the store (issue 17): a longer text is
 * refused there whatever called it, and the API says so first, in words, naming the field and its
 * maximum: 422 on v1, 400 on the legacy interface and the pages.
 */
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { installV1ErrorHandling } from '../api/v1/errors.js';
import { sendLegacyError } from '../legacy/route.js';
import { installPageErrorHandling } from '../pages/errors.js';
import { onlyTrack } from '../test-support/assets.js';
import { Browser } from '../test-support/browser.js';
import {
  createPerson,
  credentialsFor,
  testServer,
  type Person,
  type TestServer,
} from '../test-support/server.js';
import { upload } from '../test-support/uploads.js';
import {
  cutToWholeChars,
  cutWithEllipsis,
  isTooLong,
  TEXT_MAX_CHARS,
  TextTooLongError,
} from './text-limits.js';

let server: TestServer;
let rider: Person;

beforeEach(async () => {
  server = await testServer();
  rider = await createPerson(server, 'Limits');
});
afterEach(async () => {
  await server.close();
});

/** The TextTooLongError `run` rejects with (and fails the test if it rejects with anything else). */
async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(TextTooLongError);
    expect((error as TextTooLongError).code).toBe('SERVER_TEXT_TOO_LONG');
    return (error as Error).message;
  }
  throw new Error('expected the store to refuse the text');
}

const emoji = '🚴';

describe('counting characters', () => {
  it('counts code points: 255 emoji are 255 characters, 510 UTF-16 units', () => {
    expect(isTooLong(emoji.repeat(255), 255)).toBe(false);
    expect(isTooLong(emoji.repeat(256), 255)).toBe(true);
    expect(isTooLong('x'.repeat(256), 255)).toBe(true);
    expect(isTooLong('x'.repeat(10_000_000), 255)).toBe(true);
  });

  it('cuts between whole characters, with an ellipsis for our own sentences', () => {
    expect(cutToWholeChars(`ab${emoji}${emoji}`, 3)).toBe(`ab${emoji}`);
    expect(cutWithEllipsis(`Created 1 ride ${'x'.repeat(5000)}`, 20)).toBe('Created 1 ride xxxx…');
    expect(cutWithEllipsis('short', 20)).toBe('short');
  });
});

describe('the store refuses a text over its maximum, whoever calls it', () => {
  it('people, organizations, API clients and events', async () => {
    const store = server.store;
    const long = (chars: number): string => 'x'.repeat(chars);
    expect(
      await refusal(() =>
        store.users.createPerson({ email: 'a@example.com', password: 'long enough', name: long(256) }),
      ),
    ).toBe('name must be at most 255 characters');
    expect(await refusal(() => store.users.createOrganization(long(1_000_000), rider.id))).toBe(
      'name must be at most 255 characters',
    );
    expect(await refusal(() => store.apiClients.create(rider.id, { name: long(101) }))).toBe(
      'name must be at most 100 characters',
    );
    expect(
      await refusal(() =>
        store.apiClients.create(rider.id, {
          name: 'App',
          redirectUris: [`https://example.com/${long(2100)}`],
        }),
      ),
    ).toBe('a redirect URI must be at most 2,048 characters');
    expect(
      await refusal(() =>
        store.apiClients.create(rider.id, {
          name: 'App',
          redirectUris: Array.from({ length: 21 }, (_, i) => `https://example.com/${i}`),
        }),
      ),
    ).toBe('at most 20 redirect URIs can be registered');
    const event = {
      name: 'Gran Fondo',
      description: null,
      location: long(10_001),
      url: null,
      start_date: '2026-06-01',
      end_date: null,
      visibility: 'private' as const,
    };
    expect(await refusal(() => store.events.create(rider.id, event))).toBe(
      'location must be at most 10,000 characters',
    );
    // Within the maximum in characters, though longer in UTF-16 units.
    expect(
      (
        await store.users.createPerson({
          email: 'b@example.com',
          password: 'long enough',
          name: emoji.repeat(255),
        })
      ).name,
    ).toBe(emoji.repeat(255));
  });

  it("routes and trips: the uploader's name and description, and every text a track brings", async () => {
    const track = onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
    const assets = server.store.assets;
    expect(await refusal(() => assets.createFromTrack(rider.id, track, { name: 'n'.repeat(256) }))).toBe(
      'name must be at most 255 characters',
    );
    expect(await refusal(() => assets.createFromTrack(rider.id, { ...track, name: 'n'.repeat(300) }))).toBe(
      'name must be at most 255 characters',
    );
    const longDevice = { ...track, summary: { ...track.summary, device: 'd'.repeat(256) } };
    expect(await refusal(() => assets.createFromTrack(rider.id, longDevice))).toBe(
      'the device name must be at most 255 characters',
    );
    const manyWarnings = {
      ...track,
      warnings: Array.from({ length: 49 }, () => ({ code: 'X', message: 'm' })),
    };
    expect(await refusal(() => assets.createFromTrack(rider.id, manyWarnings))).toBe(
      'a route or trip keeps at most 48 warnings',
    );
    const { row } = await assets.createFromTrack(rider.id, track);
    expect(
      await refusal(() => assets.update('trip', row.id, rider.id, { description: 'd'.repeat(10_001) })),
    ).toBe('description must be at most 10,000 characters');
  });
});

describe('the API says it first, naming the field and its maximum', () => {
  it('v1: 422', async () => {
    const credentials = await credentialsFor(server, rider);
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/events.json',
      headers: { authorization: credentials.basic, 'content-type': 'application/json' },
      payload: JSON.stringify({
        event: { name: 'n'.repeat(300), start_date: '2026-06-01', description: 'd'.repeat(20_000) },
      }),
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      errors: ['name must be at most 255 characters', 'description must be at most 10,000 characters'],
      error_codes: ['SERVER_TEXT_TOO_LONG', 'SERVER_TEXT_TOO_LONG'],
    });
  });

  it('legacy: 400 for an upload, counting characters, not UTF-16 units', async () => {
    const credentials = await credentialsFor(server, rider);
    const file = { name: 'ride.gpx', bytes: readFixture('gpx', 'sample-ride.gpx') };
    const refused = await upload(server, credentials, file, [['trip[name]', emoji.repeat(256)]]);
    expect(refused).toEqual({
      statusCode: 400,
      body: { error: 'trip[name] must be at most 255 characters' },
    });
    // 255 characters, 510 UTF-16 units: within the maximum.
    const taken = await upload(server, credentials, file, [['trip[name]', emoji.repeat(255)]]);
    expect(taken.statusCode).toBe(200);
  });

  it('pages: the API client form says what is too long', async () => {
    const browser = new Browser(server.app);
    expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
    const token = await browser.csrfTokenOf('/developer');
    const response = await browser.post('/developer/api_clients', {
      _csrf: token,
      name: 'n'.repeat(101),
      redirect_uris: `https://example.com/${'p'.repeat(2100)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('<li>name must be at most 100 characters</li>');
    expect(response.body).toContain(
      '<li>a redirect URI must be at most 2,048 characters: https://example.com/pppp',
    );
  });

  it('a text only the store caught is still said in words: 422 on v1, 400 on the legacy interface and the pages', async () => {
    const app = Fastify();
    try {
      const refuse = (): never => {
        throw new TextTooLongError('name', TEXT_MAX_CHARS.assetName);
      };
      await app.register((v1, _options, done) => {
        installV1ErrorHandling(v1);
        v1.get('/v1', refuse);
        done();
      });
      await app.register((pages, _options, done) => {
        installPageErrorHandling(pages);
        pages.get('/page', refuse);
        done();
      });
      app.get(
        '/legacy.json',
        { errorHandler: (error, request, reply) => void sendLegacyError(request, reply, error) },
        refuse,
      );
      const v1 = await app.inject('/v1');
      expect([v1.statusCode, v1.json()]).toEqual([
        422,
        { errors: ['name must be at most 255 characters'], error_codes: ['SERVER_TEXT_TOO_LONG'] },
      ]);
      const legacy = await app.inject('/legacy.json');
      expect([legacy.statusCode, legacy.json()]).toEqual([
        400,
        { error: 'name must be at most 255 characters' },
      ]);
      const page = await app.inject('/page');
      expect(page.statusCode).toBe(400);
      expect(page.body).toContain('<p class="error">name must be at most 255 characters</p>');
    } finally {
      await app.close();
    }
  });
});

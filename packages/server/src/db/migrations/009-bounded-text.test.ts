/**
 * Migration 9 (issue 17): rows stored before the store had maxima, with names of tens of megabytes as
 * the old parser and `rideport admin` stored them, no longer break their owner's lists and pages.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../../test/support/corpus.js';
import { storeFile } from '../../test-support/assets.js';
import { Browser } from '../../test-support/browser.js';
import { createPerson, credentialsFor, testServer } from '../../test-support/server.js';
import { up as boundedText } from './009-bounded-text.js';
import { sqliteMigrationDialect } from './sqlite-dialect.js';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'rideport-009-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

const MEGABYTES_40 = 40 * 1024 * 1024;

describe('migration 009: text stored before the maxima', () => {
  it('shortens huge names, devices, task messages and user names, and says so on the rides', async () => {
    const databasePath = join(directory, 'rideport.sqlite');
    const first = await testServer({ databasePath });
    const rider = await createPerson(first, 'Rider');
    const credentials = await credentialsFor(first, rider);
    const ride = readFixture('gpx', 'sample-ride.gpx');
    const stored = [];
    for (let i = 0; i < 3; i++) stored.push(...(await storeFile(first, rider.id, ride, 'sample-ride.gpx')));
    const taskId = await first.store.tasks.create({
      userId: rider.id,
      apiClientId: credentials.client.id,
      sha256: '0'.repeat(64),
      filename: 'ride.gpx',
      bytes: Buffer.from('x'),
      metadata: {},
    });
    await first.close();

    // What the server before this version stored: the whole text, also in the rendered record.
    const [a, b, c] = stored.map((asset) => asset.row.id);
    const sqlite = new SqliteDatabase(databasePath);
    sqlite.exec(`
      UPDATE trips SET name = printf('%.*c', ${MEGABYTES_40}, 'x') WHERE id = ${a};
      UPDATE trips SET name = char(0) || 'Ride ' || char(8238) || printf('%.*c', ${MEGABYTES_40}, 'é') WHERE id = ${b};
      UPDATE trips SET device = 'Edge ' || printf('%.*c', ${MEGABYTES_40}, 'd') WHERE id = ${c};
      UPDATE trips SET record_json = json_set(record_json, '$.name', name, '$.device', device);
      UPDATE queued_tasks SET status = 1, response_code = 'success', progress = 100,
        message = 'Already on the platform as ' || printf('%.*c', ${MEGABYTES_40}, 'x') WHERE id = ${taskId};
      UPDATE users SET name = printf('%.*c', 100000, 'n') WHERE id = ${rider.id};`);
    // Migration 9 again over those rows, as an upgrade runs it (later migrations stay recorded, so the
    // migrator would refuse to run 9 after them: it is called directly).
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    await boundedText(db, sqliteMigrationDialect);
    await db.destroy();

    const second = await testServer({ databasePath });
    try {
      const trips = await Promise.all(stored.map((asset) => second.store.assets.find('trip', asset.row.id)));
      expect(trips.map((trip) => trip!.name)).toEqual([
        'x'.repeat(255),
        `Ride ${'é'.repeat(250)}`,
        'Evening lap of the Allmend',
      ]);
      expect(trips[2]!.device).toBe(`Edge ${'d'.repeat(250)}`);
      const warnings = trips.map((trip) => JSON.parse(trip!.warnings ?? '[]') as unknown[]);
      expect(warnings).toEqual([
        [
          {
            code: 'RIDEFILE_TEXT_SHORTENED',
            message: 'the track name had 41,943,040 characters; only its first 255 were kept',
          },
        ],
        [
          {
            code: 'RIDEFILE_TEXT_SHORTENED',
            message: 'the track name had 41,943,047 characters; only its first 255 were kept',
          },
        ],
        [
          {
            code: 'RIDEFILE_TEXT_SHORTENED',
            message: 'the device name had 41,943,045 characters; only its first 255 were kept',
          },
        ],
      ]);
      expect((await second.store.users.findById(rider.id))!.name).toBe('n'.repeat(255));

      // Every list and page of the rider answers, small.
      const auth = { authorization: credentials.basic };
      const v1List = await second.app.inject({ url: '/api/v1/trips.json', headers: auth });
      expect(v1List.statusCode).toBe(200);
      expect(v1List.rawPayload.length).toBeLessThan(32 * 1024);
      const record = v1List.json<{ trips: { id: number; name: string; warnings: unknown[] }[] }>().trips;
      expect(record.find((trip) => trip.id === a)).toMatchObject({
        name: 'x'.repeat(255),
        warnings: [
          {
            code: 'RIDEFILE_TEXT_SHORTENED',
            message:
              'A text in this file is too long: the track name had 41,943,040 characters; only its first 255 were kept.',
          },
        ],
      });
      const legacyQuery = `apikey=${credentials.apiKey}&auth_token=${credentials.authToken}`;
      const answers = [
        await second.app.inject({ url: `/api/v1/trips/${b}.json`, headers: auth }),
        await second.app.inject({ url: `/users/${rider.id}/trips.json?${legacyQuery}` }),
        await second.app.inject({ url: `/trips/${c}.json?${legacyQuery}` }),
        await second.app.inject({ url: `/queued_tasks/status.json?ids=${taskId}&${legacyQuery}` }),
      ];
      for (const answer of answers) {
        expect(answer.statusCode, answer.body.slice(0, 200)).toBe(200);
        expect(answer.rawPayload.length).toBeLessThan(32 * 1024);
      }
      const [task] = answers[3]!.json<{ queued_tasks: { message: string }[] }>().queued_tasks;
      expect(task!.message).toHaveLength(4000);
      expect(task!.message.endsWith('x…')).toBe(true);

      // The server's own pages show the rider's name in their header. (The dashboard's lists and ride
      // pages, in @rideport/dashboard, are checked against texts at their maxima in its
      // hostile-text.property.test.ts.)
      const browser = new Browser(second.app);
      expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
      for (const url of ['/developer', `/developer/api_clients/${credentials.client.id}`]) {
        const page = await browser.get(url);
        expect(page.statusCode, url).toBe(200);
        expect(page.rawPayload.length, url).toBeLessThan(256 * 1024);
      }
    } finally {
      await second.close();
    }
  });
});

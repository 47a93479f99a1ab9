/**
 * ZIP uploads and KMZ files (issue 20, "Bulk and phone exports") through POST /trips.json over a real
 * socket: each ride file of an archive laid out as Strava's bulk export becomes a task of its own,
 * read, checked for duplicates (inside the archive and against stored rides) and reported as if it
 * had been uploaded alone; other entries are listed as skipped. A KMZ is one ride. Hostile archives
 * (cut off, without rides, too many files, too many bytes, encrypted or lying entries) are refused or
 * skipped in words, and store nothing they should not.
 */
import { threadId } from 'node:worker_threads';
import { gunzipSync, gzipSync } from 'node:zlib';
import { zipSync, type Zippable } from 'fflate';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { legacySetup, type LegacySetup } from '../test-support/legacy.js';
import { testServer, type TestServer } from '../test-support/server.js';
import { tasksEndedOverSocket, uploadOverSocket } from '../test-support/uploads.js';
import { MAX_ARCHIVE_FILES, MAX_SKIPPED_LISTED, SKIPPED_NAME_MAX_CHARS } from './archive.js';

let server: TestServer;
let origin: string;
let setup: LegacySetup;

beforeAll(async () => {
  server = await testServer({ limits: { gunzipBytes: 4 * 1024 * 1024 } });
  origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
  setup = await legacySetup(server);
});
afterAll(async () => {
  await server.close();
});

type Who = 'alice' | 'bob';

/** An answer to POST /trips.json, with the fields of a ZIP upload's. */
interface Answer {
  status: number;
  body: {
    success?: number;
    task_id?: number;
    task_ids?: number[];
    skipped?: Array<{ name: string; reason: string }>;
    skipped_count?: number;
    message?: string;
    error?: string;
  };
}

const credentials = (who: Who) => ({ apiKey: setup.apiKey, authToken: setup[who].authToken });

async function post(
  who: Who,
  name: string,
  bytes: Uint8Array,
  fields: [string, string][] = [],
): Promise<Answer> {
  const answer = await uploadOverSocket(origin, credentials(who), { name, bytes }, fields);
  return { status: answer.statusCode, body: answer.body };
}

const ended = (who: Who, ids: readonly number[]) => tasksEndedOverSocket(origin, credentials(who), ids);

/** Rows in a table of the server's database. */
const rows = async (table: 'trips' | 'queued_tasks'): Promise<number> =>
  Number(
    (
      await server.store.transaction((trx) =>
        trx
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      )
    ).n,
  );
const tripCount = () => rows('trips');
const taskCount = () => rows('queued_tasks');

const encoder = new TextEncoder();
const KML = readFixture('kml', 'tracks.kml');

/** Strava's bulk export, as its archive lays it out, with a copy of one ride and things that are no ride. */
function stravaExport(): Uint8Array {
  const gpx = readFixture('gpx', 'sample-ride.gpx');
  const files: Zippable = {
    'activities.csv': encoder.encode('Activity ID,Activity Name\n1,Morning Ride\n'),
    activities: {
      '1001.fit.gz': gzipSync(readFixture('fit', 'hr-messages.fit')),
      '1002.gpx': gpx,
      '1003.tcx': [readFixture('tcx', 'activity.tcx'), { level: 0 }], // stored, not deflated
      'copy-of-1002.gpx': gpx,
      phone: { '1004.kmz': zipSync({ 'doc.kml': KML }) },
    },
    media: { 'photo.jpg': new Uint8Array([0xff, 0xd8, 0xff, 0xe0]) },
    __MACOSX: { activities: { '._1002.gpx': new Uint8Array([0, 5, 22, 7]) } },
  };
  return zipSync(files);
}

describe('a ZIP of ride files', () => {
  it('becomes one task per ride file, lists what it skipped, and applies the duplicate rules to each', async () => {
    const before = await tripCount();
    // One archive, sent twice: zipSync stamps entries with the time, so a second one may differ.
    const archive = stravaExport();
    const answer = await post('alice', 'export_12345.zip', archive);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const ids = answer.body.task_ids!;
    expect(ids).toHaveLength(5);
    expect(answer.body.task_id).toBe(ids[0]);
    expect(answer.body.skipped).toEqual([
      { name: 'activities.csv', reason: 'not a ride file (FIT, TCX, GPX, KML or KMZ, or a .gz of one)' },
      { name: 'media/photo.jpg', reason: 'not a ride file (FIT, TCX, GPX, KML or KMZ, or a .gz of one)' },
      { name: '__MACOSX/activities/._1002.gpx', reason: 'macOS file metadata, not a ride' },
    ]);
    expect(answer.body.message).toMatch(
      /^5 ride files in the ZIP archive are read as uploads of their own; 3 skipped: activities\.csv \(not a ride file/,
    );

    const tasks = await ended('alice', ids);
    const byCode = (code: string) => tasks.filter((task) => task.response_code === code);
    // The two copies of 1002.gpx: one ride, whichever was read first; the other a duplicate of it.
    expect(byCode('success')).toHaveLength(4);
    expect(byCode('duplicate')).toHaveLength(1);
    const [duplicate] = byCode('duplicate');
    const original = tasks.find(
      (task) =>
        task !== duplicate &&
        task.associated_objects[0]?.trip?.id === duplicate!.associated_objects[0]?.trip?.id,
    );
    expect(original).toBeDefined();
    // 1001, 1002 and 1003 are a trip each; the KMZ's KML holds three timed tracks and an untimed one.
    expect((await tripCount()) - before).toBe(6);

    // The same archive again: every ride is one the user has.
    const again = await post('alice', 'export_12345.zip', archive);
    const repeated = await ended('alice', again.body.task_ids!);
    expect(repeated.map((task) => task.response_code)).toEqual(Array(5).fill('duplicate'));
    expect((await tripCount()) - before).toBe(6);
  });

  it('keeps each ride as small as it came, and gives back each file as the rider made it (issue 36)', async () => {
    // Recordings alice has not uploaded before (else same-recording duplicates, issue 16).
    const gpx = readFixture('gpx', 'tracks-and-routes.gpx');
    const gpxGz = gzipSync(
      encoder.encode(
        '<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>' +
          [0, 1, 2]
            .map((k) => `<trkpt lat="46.${k}" lon="7.${k}"><time>2025-02-03T10:00:0${k}Z</time></trkpt>`)
            .join('') +
          '</trkseg></trk></gpx>',
      ),
    );
    const tcx = readFixture('tcx', 'multisport-and-courses.tcx');
    const archive = zipSync({
      'deflated.gpx': [gpx, { level: 9 }],
      'stored.tcx': [tcx, { level: 0 }],
      'gzipped.gpx.gz': gpxGz,
    });
    const answer = await post('alice', 'kept.zip', archive);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const ids = answer.body.task_ids!;
    // (The kept bytes go when a task ends, perhaps already: archive.test.ts measures them.)
    const kept = await server.store.transaction((trx) =>
      trx
        .selectFrom('queued_tasks')
        .select(['filename', 'byte_length', 'gzipped_by_server'])
        .where('id', 'in', ids)
        .orderBy('id')
        .execute(),
    );
    // The deflated file is kept as its compressed data, gzipped; the stored one and the gzip as they came.
    expect(kept).toEqual([
      { filename: 'deflated.gpx', byte_length: gpx.length, gzipped_by_server: 1 },
      { filename: 'stored.tcx', byte_length: tcx.length, gzipped_by_server: 0 },
      { filename: 'gzipped.gpx.gz', byte_length: gpxGz.length, gzipped_by_server: 0 },
    ]);

    const tasks = await ended('alice', ids);
    expect(
      tasks.map((task) => task.response_code),
      JSON.stringify(tasks),
    ).toEqual(['success', 'success', 'success']);
    const basic = `Basic ${Buffer.from(`${setup.apiKey}:${setup.alice.authToken}`).toString('base64')}`;
    const originalOf = async (task: (typeof tasks)[number]) => {
      const tripId = Number(task.associated_objects.find((object) => object.type === 'trip')!.trip!['id']);
      const back = await request(`${origin}/api/v1/trips/${tripId}/original`, {
        headers: { authorization: basic },
      });
      return { type: back.headers['content-type'], bytes: Buffer.from(await back.body.arrayBuffer()) };
    };
    // Each original as the file in the archive was: the GPX as GPX, not as the gzip it was kept as.
    expect(await originalOf(tasks[0]!)).toEqual({ type: 'application/gpx+xml', bytes: Buffer.from(gpx) });
    expect(await originalOf(tasks[1]!)).toEqual({
      type: 'application/vnd.garmin.tcx+xml',
      bytes: Buffer.from(tcx),
    });
    expect(await originalOf(tasks[2]!)).toEqual({ type: 'application/gzip', bytes: Buffer.from(gpxGz) });

    // The same GPX sent alone is the same file: a duplicate, by its SHA-256.
    const alone = await post('alice', 'tracks-and-routes.gpx', gpx);
    const [again] = await ended('alice', [alone.body.task_id!]);
    expect(again!.response_code).toBe('duplicate');
  });

  it("gives each ride its own external_id: the archive's and its path", async () => {
    const archive = zipSync({ rides: { 'a.gpx': readFixture('gpx', 'extensions.gpx') } });
    const answer = await post('bob', 'rides.zip', archive, [['external_id', 'phone-export-7']]);
    const [task] = await ended('bob', answer.body.task_ids!);
    expect(task).toMatchObject({ response_code: 'success', external_id: 'phone-export-7/rides/a.gpx' });
  });
});

describe('a gzipped ZIP of ride files (export.zip.gz)', () => {
  it('is unwrapped and split like the ZIP, while a gzipped KMZ stays one ride', async () => {
    const archive = zipSync({
      activities: {
        'g1.gpx': readFixture('gpx', 'tracks-and-routes.gpx'),
        'g2.tcx': readFixture('tcx', 'activity.tcx'),
      },
      'notes.txt': encoder.encode('two rides'),
    });
    const answer = await post('bob', 'export_777.zip.gz', gzipSync(archive));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.task_ids).toHaveLength(2);
    expect(answer.body.skipped).toEqual([
      { name: 'notes.txt', reason: 'not a ride file (FIT, TCX, GPX, KML or KMZ, or a .gz of one)' },
    ]);
    const tasks = await ended('bob', answer.body.task_ids!);
    expect(tasks.map((task) => task.response_code)).toEqual(['success', 'success']);

    const kmz = gzipSync(zipSync({ 'doc.kml': readFixture('kml', 'multitrack.kml') }));
    const one = await post('alice', 'track.kmz.gz', kmz);
    expect(Object.keys(one.body).sort()).toEqual(['success', 'task_id']);
  });

  it('refuses a gzipped ZIP that is cut off, in words, storing nothing', async () => {
    const tasksBefore = await taskCount();
    const whole = gzipSync(stravaExport());
    const answer = await post('alice', 'export.zip.gz', whole.subarray(0, whole.length - 40));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^the gzipped ZIP archive is cut off or corrupt/);
    expect(await taskCount()).toBe(tasksBefore);
  });
});

describe('unzipping off the main thread (issue 20)', () => {
  it('splits a large archive in a worker thread of the pool, while the main thread keeps turning', async () => {
    // 3 MB of ride files, under this server's 4 MB gunzip limit: 60 copies of a GPX, renamed.
    const gpx = readFixture('gpx', 'sample-ride.gpx');
    const copies = Math.floor((3 * 1024 * 1024) / gpx.length);
    const zippable: Zippable = {};
    for (let index = 0; index < copies; index++) zippable[`rides/${index}.gpx`] = gpx;
    const archive = Buffer.from(zipSync(zippable));
    const progress = { settled: false };
    const split = server.app.uploadQueue.splitUpload(archive).finally(() => (progress.settled = true));
    // The main thread's event loop turns while the archive is unzipped (a count, not a time).
    let turns = 0;
    while (!progress.settled) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    const result = await split;
    expect('single' in result).toBe(false);
    if ('single' in result) return;
    expect(result.rides).toHaveLength(copies);
    // Each kept as the archive's compressed data, gzipped (issue 36), which unzips to the file.
    expect(result.rides.every((ride) => ride.unzippedLength === gpx.length)).toBe(true);
    expect(result.rides.every((ride) => gunzipSync(ride.bytes).equals(gpx))).toBe(true);
    expect(result.rides.every((ride) => ride.bytes.length < gpx.length)).toBe(true);
    expect(result.threadId).not.toBe(threadId);
    expect(result.threadId).toBeGreaterThan(0);
    expect(turns).toBeGreaterThan(0);
  });

  it('hands a single file back whole, and refuses in the same words as before', async () => {
    const gpx = readFixture('gpx', 'sample-ride.gpx');
    const back = await server.app.uploadQueue.splitUpload(Buffer.from(gpx));
    expect(back).toEqual({ single: Buffer.from(gpx) });
    await expect(server.app.uploadQueue.splitUpload(Buffer.from(zipSync({ 'a.txt': gpx })))).rejects.toThrow(
      /^the ZIP archive holds no ride file that can be read/,
    );
  });
});

describe('a KMZ', () => {
  it('is one ride upload, answered as any single file is, and its original comes back as a KMZ', async () => {
    const kmz = zipSync({
      'doc.kml': readFixture('kml', 'multitrack.kml'),
      'images/icon.png': new Uint8Array([137, 80]),
    });
    const answer = await post('bob', 'OpenTracks track.kmz', kmz);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['success', 'task_id']);
    const [task] = await ended('bob', [answer.body.task_id!]);
    expect(task!.response_code, task!.message).toBe('success');
    const tripId = Number(task!.associated_objects.find((object) => object.type === 'trip')!.trip!['id']);
    const basic = `Basic ${Buffer.from(`${setup.apiKey}:${setup.bob.authToken}`).toString('base64')}`;
    const back = await request(`${origin}/api/v1/trips/${tripId}/original`, {
      headers: { authorization: basic },
    });
    expect(back.statusCode).toBe(200);
    expect(back.headers['content-type']).toBe('application/vnd.google-earth.kmz');
    expect(Buffer.from(await back.body.arrayBuffer()).equals(Buffer.from(kmz))).toBe(true);
  });
});

describe('hostile archives', () => {
  it('refuses a cut-off ZIP, and one without a ride file, in words, storing nothing', async () => {
    const tasksBefore = await taskCount();
    const whole = stravaExport();
    const cut = await post('alice', 'export.zip', whole.subarray(0, whole.length - 100));
    expect(cut.status).toBe(400);
    expect(cut.body.error).toMatch(
      /^the ZIP archive is corrupt or cut off: its directory, written at the end, is missing/,
    );

    const none = await post(
      'alice',
      'photos.zip',
      zipSync({ 'a.jpg': new Uint8Array([1]), 'notes.txt': encoder.encode('x') }),
    );
    expect(none.status).toBe(400);
    expect(none.body.error).toBe(
      'the ZIP archive holds no ride file that can be read (FIT, TCX, GPX, KML or KMZ, or a .gz of one): a.jpg (not a ride file (FIT, TCX, GPX, KML or KMZ, or a .gz of one)); notes.txt (not a ride file (FIT, TCX, GPX, KML or KMZ, or a .gz of one))',
    );
    expect(await taskCount()).toBe(tasksBefore);
  });

  it(`refuses an archive of more than ${MAX_ARCHIVE_FILES} files, or more bytes than the limit once decompressed, with 413`, async () => {
    const tasksBefore = await taskCount();
    const many: Zippable = {};
    for (let i = 0; i <= MAX_ARCHIVE_FILES; i++) many[`f${i}.txt`] = [new Uint8Array(0), { level: 0 }];
    const tooMany = await post('alice', 'many.zip', zipSync(many));
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error).toMatch(/holds 10001 files, more than the 10000 one upload may hold/);

    // A zip bomb: 2 × 3 MB of spaces, a few kB compressed, past the server's 4 MB limit together.
    const spaces = new Uint8Array(3 * 1024 * 1024).fill(0x20);
    const bomb = await post('alice', 'bomb.zip', zipSync({ 'a.gpx': spaces, 'b.gpx': spaces }));
    expect(bomb.status).toBe(413);
    expect(bomb.body.error).toBe(
      'the ride files in the ZIP archive come to 6 MB once decompressed, more than the limit of 4 MB: split it into smaller archives',
    );
    expect(await taskCount()).toBe(tasksBefore);
  });

  it('skips encrypted and lying entries, naming them, and queues the rest', async () => {
    const gpx = readFixture('gpx', 'positions.gpx');
    const archive = zipSync({
      'locked.gpx': gpx,
      'bomb.gpx': new Uint8Array(1024 * 1024).fill(0x20),
      'ok.gpx': gpx,
    });
    const view = new DataView(archive.buffer, archive.byteOffset);
    const central = centralHeaders(archive);
    archive[central[0]! + 8] = archive[central[0]! + 8]! | 1; // encrypted
    view.setUint32(central[1]! + 24, 100, true); // claims 100 bytes, inflates to 1 MB
    const answer = await post('alice', 'mixed.zip', archive);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.task_ids).toHaveLength(1);
    const skipped = answer.body.skipped!;
    expect(skipped.map((entry) => entry.name)).toEqual(['locked.gpx', 'bomb.gpx']);
    expect(skipped[0]!.reason).toMatch(
      /^"locked\.gpx" in the ZIP archive is encrypted \(password-protected\)/,
    );
    expect(skipped[1]!.reason).toMatch(/"bomb\.gpx" holds more than the 100 bytes it declares/);
    expect((await ended('alice', answer.body.task_ids!))[0]!.status).toBe(1);
  });

  it('answers within a bound whatever the names (issue 36): the first entries listed, names cut, all counted', async () => {
    const gpx = readFixture('gpx', 'positions.gpx');
    const files: Zippable = { 'ride.gpx': gpx };
    // 2,000 entries that are no ride, each named with 4,000 characters: 8 MB of names.
    for (let i = 0; i < 2000; i++)
      files[`${String(i).padStart(4, '0')}${'n'.repeat(3996)}.txt`] = [new Uint8Array(0), { level: 0 }];
    const answer = await post('alice', 'long-names.zip', zipSync(files));
    expect(answer.status).toBe(200);
    expect(answer.body.task_ids).toHaveLength(1);
    expect(answer.body.skipped_count).toBe(2000);
    expect(answer.body.skipped).toHaveLength(MAX_SKIPPED_LISTED);
    for (const entry of answer.body.skipped!) {
      expect(entry.name.length).toBeLessThanOrEqual(SKIPPED_NAME_MAX_CHARS);
      expect(entry.name.endsWith('…')).toBe(true);
    }
    expect(answer.body.message).toMatch(/; 2000 skipped: 0000n+…\.? \(not a ride file/);
    expect(answer.body.message).toMatch(/; and 1995 more\.$/);
    // The whole answer: a hundred names of 200 characters and their reasons, not megabytes.
    expect(JSON.stringify(answer.body).length).toBeLessThan(64 * 1024);
    expect((await ended('alice', answer.body.task_ids!))[0]!.status).toBe(1);
  });

  it('counts what .gz and .kmz entries unpack to toward the one limit (issue 36), storing nothing past it', async () => {
    const tasksBefore = await taskCount();
    // Each .gpx.gz is a few kB as stored and 1.5 MB once the parser gunzips it: three pass 4 MB.
    const gpxGz = gzipSync(new Uint8Array(1.5 * 1024 * 1024).fill(0x20));
    const kmz = zipSync({ 'doc.kml': new Uint8Array(1.5 * 1024 * 1024).fill(0x20) });
    const answer = await post(
      'alice',
      'nested.zip',
      zipSync({ 'a.gpx.gz': gpxGz, 'b.gpx.gz': gpxGz, 'c.kmz': kmz }),
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe(
      'the ride files in the ZIP archive come to more than the limit of 4 MB once decompressed, counting what the .gz and .kmz files among them unpack to: split it into smaller archives',
    );
    expect(await taskCount()).toBe(tasksBefore);

    // Two of them fit.
    const fits = await post('alice', 'nested-fits.zip', zipSync({ 'a.gpx.gz': gpxGz, 'c.kmz': kmz }));
    expect(fits.status, JSON.stringify(fits.body)).toBe(200);
    expect(fits.body.task_ids).toHaveLength(2);
    await ended('alice', fits.body.task_ids!);
  });

  it('counts the gunzip of a gzipped ZIP toward the same limit (issue 36)', async () => {
    const tasksBefore = await taskCount();
    // 2.5 MB of stored ride: the .zip.gz gunzips to 2.5 MB, and the ride declares 2.5 MB again.
    const ride = new Uint8Array(2.5 * 1024 * 1024).fill(0x20);
    const archive = gzipSync(zipSync({ 'a.gpx': [ride, { level: 0 }], 'b.txt': new Uint8Array(1) }));
    const answer = await post('alice', 'export.zip.gz', archive);
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatch(
      /^the ride files in the ZIP archive come to 6 MB once decompressed, more than the limit of 4 MB/,
    );
    expect(await taskCount()).toBe(tasksBefore);
  });
});

/** Where each central directory header of an archive starts, in order. */
function centralHeaders(bytes: Uint8Array): number[] {
  const found: number[] = [];
  for (let at = 0; at + 4 <= bytes.length; at++) {
    if (bytes[at] === 0x50 && bytes[at + 1] === 0x4b && bytes[at + 2] === 0x01 && bytes[at + 3] === 0x02) {
      found.push(at);
    }
  }
  return found;
}

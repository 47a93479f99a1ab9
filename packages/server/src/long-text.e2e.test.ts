/**
 * Text from files is bounded, end to end (issue 17, "Text from files is unbounded"): a real server on a
 * real socket takes a 204 KB `.gpx.gz` whose `<name>` holds 200 MB, and a TCX whose `Creator/Name`
 * holds a megabyte, through the upload queue. Each ends as a trip whose name or device is the start of
 * the text, with a warning that says so; every list and detail answer stays small (sizes asserted,
 * never times: docs/contributors/architecture.md).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpxGzWithLongName } from '../../../test/support/long-text.js';
import { createPerson, testServer, type TestServer } from './test-support/server.js';
import { multipartBody } from './test-support/uploads.js';

let server: TestServer;
let origin: string;
let userId: number;
let apiKey: string;
let authToken: string;

beforeAll(async () => {
  server = await testServer({ queue: { workers: 1 } });
  origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
  const rider = await createPerson(server, 'Long Name');
  userId = rider.id;
  const client = await server.store.apiClients.create(rider.id, { name: 'Uploader' });
  apiKey = client.apiKey;
  authToken = (await server.store.authTokens.issue(rider.id, client.id)).token;
});
afterAll(async () => {
  await server.close();
});

interface Answer {
  status: number;
  bytes: number;
  json: unknown;
}

async function get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await request(`${origin}${path}`, { headers });
  const body = Buffer.from(await response.body.arrayBuffer());
  return {
    status: response.statusCode,
    bytes: body.length,
    json: JSON.parse(body.toString('utf8')) as unknown,
  };
}

const legacyQuery = (): string => `apikey=${apiKey}&auth_token=${authToken}`;
const v1Headers = (): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${apiKey}:${authToken}`).toString('base64')}`,
});

/** Uploads through POST /trips.json over the socket and waits for the task; its status record. */
async function uploadAndWait(filename: string, bytes: Uint8Array): Promise<Record<string, unknown>> {
  const { body, contentType } = await multipartBody([], { name: filename, bytes });
  const response = await request(`${origin}/trips.json?${legacyQuery()}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  const answer = (await response.body.json()) as { task_id?: number };
  expect(response.statusCode).toBe(200);
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const status = await get(
      `/queued_tasks/status.json?${legacyQuery()}&ids=${answer.task_id}&include_objects=true`,
    );
    const [task] = (status.json as { queued_tasks: Record<string, unknown>[] }).queued_tasks;
    if (task !== undefined && task['status'] !== 0) return task;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${answer.task_id} did not end`);
}

interface TripRecord {
  id: number;
  name: string;
  device: string | null;
  warnings: { code: string; message: string }[];
}

/** Every answer that shows the trip: v1 list and detail, legacy list and detail. Each is small. */
async function everyAnswer(tripId: number): Promise<TripRecord[]> {
  const answers = {
    v1List: await get('/api/v1/trips.json', v1Headers()),
    v1Detail: await get(`/api/v1/trips/${tripId}.json`, v1Headers()),
    legacyList: await get(`/users/${userId}/trips.json?${legacyQuery()}`),
    legacyDetail: await get(`/trips/${tripId}.json?${legacyQuery()}`),
  };
  for (const [which, answer] of Object.entries(answers)) {
    expect(answer.status, which).toBe(200);
    // A few records of 255-character names and ten points: kilobytes, never megabytes.
    expect(answer.bytes, which).toBeLessThan(16 * 1024);
  }
  const listed = (answers.v1List.json as { trips: TripRecord[] }).trips.find((trip) => trip.id === tripId);
  const legacyListed = (answers.legacyList.json as { results: TripRecord[] }).results.find(
    (trip) => trip.id === tripId,
  );
  return [
    listed!,
    (answers.v1Detail.json as { trip: TripRecord }).trip,
    legacyListed!,
    (answers.legacyDetail.json as { trip: TripRecord }).trip,
  ];
}

describe('text from files over a real socket', () => {
  it('a 200 MB <name> in a .gpx.gz becomes a trip named by its start, with a warning, in small answers', async () => {
    const gz = await gpxGzWithLongName(200);
    expect(gz.length).toBeLessThan(256 * 1024);
    const task = await uploadAndWait('long-name.gpx.gz', gz);
    expect(task['response_code']).toBe('success');
    expect(task['message']).toBe(
      'Created 1 ride from a file with a text too long: the track name had 209,715,200 characters; only its first 255 were kept',
    );
    const [object] = task['associated_objects'] as { trip: { id: number } }[];
    for (const record of await everyAnswer(object!.trip.id)) {
      expect(record.name).toBe('x'.repeat(255));
      expect(record.warnings).toEqual([
        {
          code: 'RIDEFILE_TEXT_SHORTENED',
          message:
            'A text in this file is too long: the track name had 209,715,200 characters; only its first 255 were kept.',
        },
      ]);
    }
  });

  it('a TCX with a 1 MB Creator/Name becomes a trip whose device is its start, with a warning', async () => {
    const name = `Edge 530 ${'y'.repeat(1 << 20)}`;
    const tcx = new TextEncoder().encode(
      `<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">` +
        `<Activities><Activity Sport="Biking"><Id>2024-06-02T08:00:00Z</Id><Lap StartTime="2024-06-02T08:00:00Z"><Track>` +
        `<Trackpoint><Time>2024-06-02T08:00:00Z</Time><Position><LatitudeDegrees>47.37</LatitudeDegrees>` +
        `<LongitudeDegrees>8.54</LongitudeDegrees></Position></Trackpoint>` +
        `<Trackpoint><Time>2024-06-02T08:00:10Z</Time><Position><LatitudeDegrees>47.371</LatitudeDegrees>` +
        `<LongitudeDegrees>8.541</LongitudeDegrees></Position></Trackpoint>` +
        `</Track></Lap><Creator><Name>${name}</Name></Creator></Activity></Activities></TrainingCenterDatabase>`,
    );
    const task = await uploadAndWait('long-creator.tcx', tcx);
    expect(task['response_code']).toBe('success');
    const [object] = task['associated_objects'] as { trip: { id: number } }[];
    for (const record of await everyAnswer(object!.trip.id)) {
      expect(record.device).toBe(name.slice(0, 255));
      expect(record.warnings.map((warning) => warning.message)).toEqual([
        'A text in this file is too long: the device name had 1,048,585 characters; only its first 255 were kept.',
      ]);
    }
  });
});

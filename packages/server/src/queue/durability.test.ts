/**
 * The upload queue over real sockets (issue 5, "Durability … test it for real"): a server in a child
 * process is killed with SIGKILL while it processes a batch of uploads and started again on the same
 * database, and every upload ends exactly once as its rides; and what a real client can do that
 * `inject` cannot: abort mid-body, and stream a body with no Content-Length past the limit.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  readFixture,
} from '../../../../test/support/corpus.js';
import { openPlatform, type Platform } from '../platform.js';
import { tracksOf } from '../test-support/assets.js';
import { DistinctRecordings } from '../test-support/recordings.js';
import { startChildServer, type ChildServer } from '../test-support/child-server.js';
import { databaseOptions } from '../test-support/database-options.js';
import { reopenableDatabase } from '../test-support/test-database.js';
import { createPerson, credentialsFor, testServer, type TestServer } from '../test-support/server.js';
import {
  multipartBody,
  statusesOverSocket,
  taskEnded,
  type LegacyCredentials,
  type QueuedTask,
} from '../test-support/uploads.js';

interface Upload {
  name: string;
  bytes: Uint8Array;
  /** the rides and routes the file holds */
  tracks: number;
}

/**
 * Corpus files that hold rides, up to 1 MB, one per content and per recording (issue 16: the same
 * recording in other bytes is one ride), in name order.
 */
function corpusUploads(): Upload[] {
  const seen = new Set<string>();
  const recordings = new DistinctRecordings();
  const uploads: Upload[] = [];
  for (const file of corpusFiles()) {
    const bytes = new Uint8Array(readFileSync(file.path));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (bytes.length > 1024 * 1024 || seen.has(sha256)) continue;
    let tracks;
    try {
      tracks = tracksOf(bytes, file.name);
    } catch {
      continue;
    }
    if (!recordings.add(tracks)) continue;
    seen.add(sha256);
    uploads.push({ name: file.name, bytes, tracks: tracks.length });
  }
  return uploads;
}

async function post(server: ChildServer, credentials: LegacyCredentials, upload: Upload): Promise<number> {
  const { body, contentType } = await multipartBody([], { name: upload.name, bytes: upload.bytes });
  const query = new URLSearchParams({ apikey: credentials.apiKey, auth_token: credentials.authToken });
  const response = await request(`${server.url}/trips.json?${query}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  const answer = (await response.body.json()) as { success?: number; task_id?: number };
  if (response.statusCode !== 200 || answer.task_id === undefined) {
    throw new Error(`upload of ${upload.name} refused: ${response.statusCode} ${JSON.stringify(answer)}`);
  }
  return answer.task_id;
}

async function accountIn(database: string): Promise<{ userId: number; credentials: LegacyCredentials }> {
  const platform: Platform = await openPlatform({
    ...databaseOptions(database),
    baseUrl: 'http://127.0.0.1',
  });
  try {
    const user = await platform.store.users.createPerson({
      email: 'durable@example.com',
      password: 'long enough',
      name: 'Durable',
    });
    const client = await platform.store.apiClients.create(user.id, { name: 'Uploader', redirectUris: [] });
    const { token } = await platform.store.authTokens.issue(user.id, client.id);
    return { userId: user.id, credentials: { apiKey: client.apiKey, authToken: token } };
  } finally {
    await platform.close();
  }
}

describe.skipIf(!corpusAvailable)('a server killed while it processes uploads', () => {
  it('loses none and doubles none: every upload ends exactly once as its rides', async () => {
    const database = await reopenableDatabase();
    onTestFinished(() => {
      database.remove();
    });
    const { userId, credentials } = await accountIn(database.location);
    const uploads = corpusUploads();
    expect(uploads.length).toBeGreaterThan(20);
    // One worker and a short lease: the batch takes a while, and the killed server's leases run out soon.
    const queue = { workers: 1, leaseMs: 1000 };

    const first = await startChildServer(database.location, queue);
    let taskIds: number[];
    let pendingAtKill: number;
    try {
      taskIds = [];
      for (const upload of uploads) taskIds.push(await post(first, credentials, upload));
      const seen = await statusesOverSocket(first.url, credentials, taskIds);
      pendingAtKill = seen.filter((task) => task.status === 0).length;
    } finally {
      await first.kill();
    }
    // Killed with work left: some tasks were still waiting or being read.
    expect(pendingAtKill).toBeGreaterThan(0);

    const second = await startChildServer(database.location, queue);
    let ended: QueuedTask[];
    try {
      for (;;) {
        ended = await statusesOverSocket(second.url, credentials, taskIds);
        if (ended.every((task) => task.status !== 0)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await second.stop();
    }

    expect(ended.map((task) => task.id)).toEqual(taskIds);
    ended.forEach((task, i) => {
      expect(task, uploads[i]!.name).toMatchObject({ status: 1, response_code: 'success' });
      expect(task.associated_objects, uploads[i]!.name).toHaveLength(uploads[i]!.tracks);
    });
    // None doubled: the user's rides and routes are exactly the tasks' objects.
    const platform = await openPlatform({
      ...databaseOptions(database.location),
      baseUrl: 'http://127.0.0.1',
    });
    try {
      const all = { offset: 0, limit: 10_000 };
      const trips = (await platform.store.assets.listByOwner('trip', userId, all)).rows;
      const routes = (await platform.store.assets.listByOwner('route', userId, all)).rows;
      const stored = [
        ...trips.map((row) => `trip ${row.id}`),
        ...routes.map((row) => `route ${row.id}`),
      ].sort();
      const associated = ended
        .flatMap((task) =>
          task.associated_objects.map(
            (object) => `${object.type} ${(object.trip ?? object.route)!['id'] as number}`,
          ),
        )
        .sort();
      expect(stored).toEqual(associated);
      expect(stored).toHaveLength(uploads.reduce((sum, upload) => sum + upload.tracks, 0));
    } finally {
      await platform.close();
    }
  });
});

if (!corpusAvailable) console.warn(`[durability.test] ${CORPUS_SKIP_REASON}`);

describe('uploads over a real socket', () => {
  let server: TestServer;
  let url: string;
  let credentials: LegacyCredentials;
  beforeEach(async () => {
    server = await testServer({ queue: { workers: 1 }, limits: { uploadBytes: 256 * 1024 } });
    credentials = await credentialsFor(server, await createPerson(server));
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const address = server.app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });
  afterEach(async () => {
    await server.close();
  });

  /** A multipart body sent piecewise, with no Content-Length: `middle` repeated while `more` says so. */
  async function* streamedForm(
    head: Buffer,
    middle: Buffer,
    tail: Buffer,
    more: () => Promise<boolean>,
  ): AsyncGenerator<Buffer> {
    yield head;
    while (await more()) yield middle;
    yield tail;
  }

  async function formParts(): Promise<{ head: Buffer; tail: Buffer; contentType: string }> {
    const marker = Buffer.from('@@FILE@@');
    const { body, contentType } = await multipartBody([], { name: 'big.gpx', bytes: marker });
    const at = body.indexOf(marker);
    return { head: body.subarray(0, at), tail: body.subarray(at + marker.length), contentType };
  }

  const query = (): string =>
    new URLSearchParams({ apikey: credentials.apiKey, auth_token: credentials.authToken }).toString();

  it('a body past the limit is refused with 413 while it is still being sent', async () => {
    const { head, tail, contentType } = await formParts();
    const { port } = new URL(url);
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    onTestFinished(() => {
      socket.destroy();
    });
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.setEncoding('latin1').on('data', (text: string) => {
      answer += text;
    });
    const chunked = (data: Buffer): Buffer =>
      Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
    const send = (data: Buffer): Promise<void> =>
      new Promise((resolve) => {
        if (socket.write(data)) resolve();
        else socket.once('drain', resolve);
      });
    await send(
      Buffer.from(
        `POST /trips.json?${query()} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: ${contentType}\r\ntransfer-encoding: chunked\r\n\r\n`,
      ),
    );
    await send(chunked(head));
    // The file goes on until the answer comes (a server that read the whole body first would never
    // answer); the body is then finished, so the connection stays usable.
    const chunk = Buffer.alloc(64 * 1024, 32);
    let sentBytes = 0;
    while (!answer.includes('\r\n\r\n') && sentBytes < 512 * 1024 * 1024) {
      await send(chunked(chunk));
      sentBytes += chunk.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(sentBytes).toBeLessThan(512 * 1024 * 1024);
    await send(chunked(tail));
    await send(Buffer.from('0\r\n\r\n'));
    while (!answer.includes('upload limit')) await new Promise((resolve) => setTimeout(resolve, 5));
    // The rest of the body was read and dropped: the connection carries the next request.
    answer = '';
    await send(
      Buffer.from(`GET /queued_tasks/status.json?ids=1&${query()} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`),
    );
    while (!answer.includes('queued_tasks')) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
    expect(await server.store.tasks.find(1)).toBeUndefined();
  });

  it('an upload the client aborts mid-body stores nothing', async () => {
    const { head, tail, contentType } = await formParts();
    const controller = new AbortController();
    let chunks = 0;
    const aborted = request(`${url}/trips.json?${query()}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      signal: controller.signal,
      body: Readable.from(
        streamedForm(head, Buffer.alloc(16 * 1024, 32), tail, async () => {
          chunks += 1;
          if (chunks === 4) {
            controller.abort();
            await new Promise(() => undefined);
          }
          return true;
        }),
      ),
    });
    await expect(aborted).rejects.toThrow();
    // A whole upload after it is stored and read; the aborted one never was.
    const { body, contentType: type } = await multipartBody([], {
      name: 'ride.gpx',
      bytes: readFixture('gpx', 'sample-ride.gpx'),
    });
    const response = await request(`${url}/trips.json?${query()}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    const { task_id: taskId } = (await response.body.json()) as { task_id: number };
    expect(taskId).toBe(1);
    expect(await taskEnded(server, credentials, taskId)).toMatchObject({ status: 1 });
    expect(await server.store.tasks.find(2)).toBeUndefined();
  });
});

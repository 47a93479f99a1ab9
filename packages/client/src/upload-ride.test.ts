/**
 * uploadRide against a scripted server (issue: "re-upload on lost response", "deadline with injected
 * sleep"): the server below keeps tasks and files like the real one (docs/contributors/decisions.md §5, duplicates by the
 * bytes), and the transport in front of it can lose answers. Time only moves when the client sleeps.
 */
import { describe, expect, it } from 'vitest';
import { RideportClient } from './client.js';
import { ClientError, ClientErrorCode } from './errors.js';
import { MAX_UNREACHABLE_POLLS, MAX_UPLOAD_ATTEMPTS } from './upload-ride.js';
import {
  fakeClock,
  fakeTransport,
  jsonResponse,
  pathOf,
  queryOf,
  textResponse,
} from './test-support/fake-transport.js';
import type { TransportRequest, TransportResponse } from './transport.js';

const TRIP = { id: 41, name: 'Morning ride' };

interface ScriptedTask {
  id: number;
  /** status answers before the task ends */
  pendingPolls: number;
  end: { status: 1 | -1; response_code: string; message: string; error_code?: string };
}

/** A tiny upload server: files by content, tasks that end after some polls. */
function uploadServer(options: { pendingPolls?: number; fail?: string; failCode?: string } = {}) {
  const files = new Map<string, number>();
  const tasks = new Map<number, ScriptedTask>();
  let nextTaskId = 1;
  const handle = async (request: TransportRequest): Promise<TransportResponse> => {
    if (request.method === 'POST' && pathOf(request) === '/trips.json') {
      const body = request.body as Uint8Array;
      const form = await new Response(Uint8Array.from(body), {
        headers: { 'content-type': request.headers['content-type']! },
      }).formData();
      const file = form.get('file') as File;
      const content = Buffer.from(await file.arrayBuffer()).toString('hex');
      const id = nextTaskId++;
      const duplicate = files.has(content);
      files.set(content, id);
      tasks.set(id, {
        id,
        pendingPolls: options.pendingPolls ?? 1,
        end:
          options.fail !== undefined
            ? {
                status: -1,
                response_code: 'failed',
                message: options.fail,
                ...(options.failCode === undefined ? {} : { error_code: options.failCode }),
              }
            : duplicate
              ? {
                  status: 1,
                  response_code: 'duplicate',
                  message: 'Duplicate upload: 1 trip from the same file exists already',
                }
              : { status: 1, response_code: 'success', message: 'Created 1 trip from upload' },
      });
      return jsonResponse(200, { success: 1, task_id: id });
    }
    if (request.method === 'GET' && pathOf(request) === '/queued_tasks/status.json') {
      const ids = (queryOf(request).get('ids') ?? '').split(',').map(Number);
      const answer = ids.flatMap((id): unknown[] => {
        const task = tasks.get(id);
        if (task === undefined) return [];
        if (task.pendingPolls > 0) {
          task.pendingPolls -= 1;
          return [
            { id, status: 0, response_code: 'pending', message: '', progress: 0, associated_objects: [] },
          ];
        }
        const objects = task.end.status === 1 ? [{ type: 'trip', trip: TRIP }] : [];
        return [{ id, ...task.end, progress: 100, associated_objects: objects }];
      });
      return jsonResponse(200, { queued_tasks: answer });
    }
    return jsonResponse(404, { error: 'no such endpoint' });
  };
  return { handle, files, tasks };
}

type Interceptor = (
  request: TransportRequest,
  forward: () => Promise<TransportResponse>,
  index: number,
) => Promise<TransportResponse>;

function setup(server = uploadServer(), intercept: Interceptor = (_request, forward) => forward()) {
  const transport = fakeTransport((request, index) =>
    intercept(request, () => server.handle(request), index),
  );
  const clock = fakeClock();
  const client = new RideportClient({
    baseUrl: 'https://rides.example.com',
    credentials: { kind: 'auth-token', apiKey: 'key', authToken: 'token' },
    transport,
    sleep: clock.sleep,
    now: clock.now,
    random: () => 0.5,
  });
  const uploads = () => transport.requests.filter((request) => request.method === 'POST');
  const polls = () => transport.requests.filter((request) => request.method === 'GET');
  return { client, transport, clock, server, uploads, polls };
}

const RIDE = { bytes: new Uint8Array([0x0e, 0x10, 1, 2, 3]), filename: 'ride.fit', name: 'Morning ride' };
const lost = (): never => {
  throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
};

describe('uploadRide', () => {
  it('uploads, polls with a growing interval, and answers the created trips', async () => {
    const { client, clock, polls, server } = setup(uploadServer({ pendingPolls: 4 }));
    const told: number[] = [];
    const ride = await client.uploadRide(RIDE, { onTask: (taskId) => told.push(taskId) });
    expect(ride).toEqual({
      taskId: 1,
      outcome: 'created',
      message: 'Created 1 trip from upload',
      trips: [TRIP],
      routes: [],
    });
    expect(told).toEqual([1]);
    expect(server.tasks.size).toBe(1);
    // random 0.5 → three quarters of min(2000, 50·2^n)
    expect(clock.sleeps).toEqual([37.5, 75, 150, 300, 600]);
    expect(polls().map((request) => Object.fromEntries(queryOf(request)))).toContainEqual({
      apikey: 'key',
      auth_token: 'token',
      version: '2',
      ids: '1',
      include_objects: 'true',
    });
  });

  it('caps the poll interval at maxPollMs', async () => {
    const { client, clock } = setup(uploadServer({ pendingPolls: 12 }));
    await client.uploadRide(RIDE, { firstPollMs: 100, maxPollMs: 800 });
    expect(Math.max(...clock.sleeps)).toBe(600);
    expect(clock.sleeps.slice(0, 4)).toEqual([75, 150, 300, 600]);
    expect(clock.sleeps.slice(4).every((ms) => ms === 600)).toBe(true);
  });

  it('re-uploads the same bytes when the answer to the upload is lost, and takes the duplicate as success', async () => {
    const { client, uploads, server } = setup(uploadServer(), async (request, forward, index) => {
      const response = await forward();
      // The server stored the first upload; its answer never arrives.
      if (index === 0) lost();
      return response;
    });
    const ride = await client.uploadRide(RIDE);
    expect(ride).toMatchObject({ taskId: 2, outcome: 'duplicate', trips: [TRIP] });
    expect(uploads()).toHaveLength(2);
    expect(server.files.size).toBe(1);
    const [first, second] = uploads();
    expect(
      Buffer.from(first!.body as Uint8Array)
        .toString('latin1')
        .replace(/-{2,}\S+/g, ''),
    ).toBe(
      Buffer.from(second!.body as Uint8Array)
        .toString('latin1')
        .replace(/-{2,}\S+/g, ''),
    );
  });

  it('re-uploads after a 5xx and after a transport timeout', async () => {
    const { client, uploads } = setup(uploadServer(), async (request, forward, index) => {
      if (index === 0) return textResponse(502, 'bad gateway');
      if (index === 1) throw Object.assign(new Error('headers timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
      return forward();
    });
    expect(await client.uploadRide(RIDE)).toMatchObject({ taskId: 1, outcome: 'created' });
    expect(uploads()).toHaveLength(3);
  });

  it('gives up re-uploading after a bounded number of attempts', async () => {
    const { client, uploads } = setup(uploadServer(), () => Promise.resolve(lost()));
    await expect(client.uploadRide(RIDE)).rejects.toMatchObject({
      code: ClientErrorCode.UNREACHABLE,
      taskId: null,
    });
    expect(uploads()).toHaveLength(MAX_UPLOAD_ATTEMPTS);
  });

  it('never re-sends an upload the server answered: 401 and 422 end it at once', async () => {
    for (const [status, code] of [
      [401, ClientErrorCode.UNAUTHORIZED],
      [422, ClientErrorCode.REJECTED],
      [413, ClientErrorCode.REJECTED],
    ] as const) {
      const { client, uploads } = setup(uploadServer(), () =>
        Promise.resolve(jsonResponse(status, { error: 'no' })),
      );
      await expect(client.uploadRide(RIDE)).rejects.toMatchObject({ code, status, serverMessages: ['no'] });
      expect(uploads()).toHaveLength(1);
    }
  });

  it('hands a 507 (the server’s disk is full) to the caller at once, without re-uploading', async () => {
    const full = "the server's disk is full; try again later";
    const { client, uploads } = setup(uploadServer(), () =>
      Promise.resolve(jsonResponse(507, { error: full })),
    );
    await expect(client.uploadRide(RIDE)).rejects.toMatchObject({
      code: ClientErrorCode.SERVER_FULL,
      status: 507,
      serverMessages: [full],
      taskId: null,
    });
    expect(uploads()).toHaveLength(1);
  });

  it('a failed task is REJECTED with the server’s message, its code and the task id', async () => {
    const { client } = setup(
      uploadServer({ fail: 'Could not read the file: not a ride file', failCode: 'RIDEFILE_UNKNOWN_FORMAT' }),
    );
    const error = await client.uploadRide(RIDE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({
      code: ClientErrorCode.REJECTED,
      taskId: 1,
      serverMessages: ['Could not read the file: not a ride file'],
      serverCode: 'RIDEFILE_UNKNOWN_FORMAT',
    });
  });

  it('a failed task of a server that sends no error_code has no server code', async () => {
    const { client } = setup(uploadServer({ fail: 'not a ride file' }));
    await expect(client.uploadRide(RIDE)).rejects.toMatchObject({
      code: ClientErrorCode.REJECTED,
      serverMessages: ['not a ride file'],
      serverCode: null,
    });
  });

  it('ends with TIMEOUT and the task id at the deadline, polling one last time right at it', async () => {
    const { client, clock, polls } = setup(uploadServer({ pendingPolls: Number.POSITIVE_INFINITY }));
    const error = await client.uploadRide(RIDE, { deadlineMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ClientErrorCode.TIMEOUT, taskId: 1 });
    expect(clock.nowMs).toBe(10_000);
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBe(10_000);
    expect(polls().length).toBe(clock.sleeps.length);
  });

  it('retries polls that fail with 5xx or a lost answer, and waits out a 429 on a poll', async () => {
    let polls = 0;
    const { client, clock } = setup(uploadServer({ pendingPolls: 0 }), async (request, forward) => {
      if (request.method === 'GET') {
        polls += 1;
        if (polls === 1) return textResponse(503, 'busy');
        if (polls === 2) lost();
        if (polls === 3) return jsonResponse(429, { error: 'slow down' }, { 'retry-after': '4' });
      }
      return forward();
    });
    expect(await client.uploadRide(RIDE)).toMatchObject({ outcome: 'created' });
    expect(polls).toBe(4);
    expect(clock.sleeps).toContain(4000);
  });

  it('stops waiting with UNREACHABLE and the task id when the server is gone for several polls in a row', async () => {
    let polls = 0;
    const { client } = setup(uploadServer({ pendingPolls: 100 }), async (request, forward) => {
      if (request.method === 'GET') {
        polls += 1;
        // One lost answer among answered polls is a blip; then the server goes away for good.
        if (polls === 2 || polls >= 4) lost();
      }
      return forward();
    });
    const failure = await client.uploadRide(RIDE).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: ClientErrorCode.UNREACHABLE, taskId: 1 });
    expect(polls).toBe(3 + MAX_UNREACHABLE_POLLS);
  });

  it('is ABORTED when the signal fires while waiting, and does not poll again', async () => {
    const controller = new AbortController();
    const { client, polls } = setup(uploadServer({ pendingPolls: 100 }), async (request, forward) => {
      if (request.method === 'GET' && polls().length === 2) controller.abort();
      return forward();
    });
    await expect(client.uploadRide(RIDE, { signal: controller.signal })).rejects.toMatchObject({
      code: ClientErrorCode.ABORTED,
    });
    expect(polls()).toHaveLength(2);
  });

  it('turns a request that outlives the deadline into TIMEOUT', async () => {
    const { client } = setup(uploadServer(), (request, forward) =>
      request.method === 'GET'
        ? new Promise<TransportResponse>((_resolve, reject) => {
            request.signal?.addEventListener('abort', () => {
              reject(new Error('aborted'));
            });
          })
        : forward(),
    );
    // A real 5 ms timer: the deadline is wall-clock for a request in flight.
    await expect(client.uploadRide(RIDE, { deadlineMs: 5, firstPollMs: 1 })).rejects.toMatchObject({
      code: ClientErrorCode.TIMEOUT,
      taskId: 1,
    });
  });

  it('waitForTask polls a task uploaded earlier; a task the server does not know is NOT_FOUND', async () => {
    const { client, server } = setup(uploadServer({ pendingPolls: 2 }));
    const { taskId } = await client.legacy.uploadFile(RIDE);
    expect(server.tasks.size).toBe(1);
    expect(await client.waitForTask(taskId, { deadlineMs: Number.POSITIVE_INFINITY })).toMatchObject({
      taskId,
      outcome: 'created',
      trips: [TRIP],
    });
    await expect(client.waitForTask(99)).rejects.toMatchObject({
      code: ClientErrorCode.NOT_FOUND,
      taskId: 99,
    });
  });
});

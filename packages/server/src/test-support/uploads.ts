/**
 * File uploads for tests of the upload queue (issue 5): multipart bodies as a browser or curl makes
 * them, the legacy upload and status requests through `inject` or over a real socket, and waiting for
 * tasks to end.
 */
import { request } from 'undici';
import type { TestServer } from './server.js';

export interface UploadFile {
  /** default `file` */
  field?: string;
  name: string;
  bytes: Uint8Array;
}

export interface MultipartBody {
  body: Buffer;
  contentType: string;
}

/**
 * A multipart/form-data body: `before` fields, the file or files (if any), then `after` fields, in
 * that order.
 */
export async function multipartBody(
  before: [string, string][],
  file: UploadFile | readonly UploadFile[] | null,
  after: [string, string][] = [],
): Promise<MultipartBody> {
  const form = new FormData();
  for (const [name, value] of before) form.append(name, value);
  const files = file === null ? [] : 'bytes' in file ? [file] : file;
  for (const one of files) {
    form.append(one.field ?? 'file', new Blob([Uint8Array.from(one.bytes)]), one.name);
  }
  for (const [name, value] of after) form.append(name, value);
  const response = new Response(form);
  return {
    body: Buffer.from(await response.arrayBuffer()),
    contentType: response.headers.get('content-type') ?? '',
  };
}

export interface LegacyCredentials {
  apiKey: string;
  authToken: string;
}

export interface LegacyAnswer {
  statusCode: number;
  body: Record<string, unknown>;
}

/** POST /trips.json with the credentials in the query string; the answer's status and JSON. */
export async function upload(
  server: TestServer,
  credentials: LegacyCredentials,
  file: UploadFile,
  fields: [string, string][] = [],
): Promise<LegacyAnswer> {
  const { body, contentType } = await multipartBody(fields, file);
  const query = new URLSearchParams({ apikey: credentials.apiKey, auth_token: credentials.authToken });
  const response = await server.app.inject({
    method: 'POST',
    url: `/trips.json?${query}`,
    headers: { 'content-type': contentType },
    payload: body,
  });
  return { statusCode: response.statusCode, body: response.json() };
}

/** The upload's task id, from an answer that must be `{"success": 1, "task_id": N}`. */
export function taskIdOf(answer: LegacyAnswer): number {
  if (
    answer.statusCode !== 200 ||
    answer.body['success'] !== 1 ||
    typeof answer.body['task_id'] !== 'number'
  ) {
    throw new Error(`the upload was not accepted: ${answer.statusCode} ${JSON.stringify(answer.body)}`);
  }
  return answer.body['task_id'];
}

export interface QueuedTask {
  id: number;
  status: -1 | 0 | 1;
  message: string;
  error_code: string | null;
  response_code: string;
  progress: number;
  created_at: string;
  updated_at: string;
  user_id: number;
  associated_objects: {
    type: 'trip' | 'route';
    trip?: Record<string, unknown>;
    route?: Record<string, unknown>;
  }[];
}

/** GET /queued_tasks/status.json for these ids. */
export async function taskStatuses(
  server: TestServer,
  credentials: LegacyCredentials,
  ids: readonly number[],
  includeObjects = true,
): Promise<QueuedTask[]> {
  const query = new URLSearchParams({
    apikey: credentials.apiKey,
    auth_token: credentials.authToken,
    ids: ids.join(','),
    ...(includeObjects ? { include_objects: 'true' } : {}),
  });
  const response = await server.app.inject({ method: 'GET', url: `/queued_tasks/status.json?${query}` });
  if (response.statusCode !== 200) {
    throw new Error(`status.json answered ${response.statusCode}: ${response.body}`);
  }
  return response.json<{ queued_tasks: QueuedTask[] }>().queued_tasks;
}

/** How long a test waits for a task before it gives up (a hang, not a slow machine). */
const GIVE_UP_MS = 50_000;

/** Polls the status endpoint until the task has ended; its status record. */
export async function taskEnded(
  server: TestServer,
  credentials: LegacyCredentials,
  taskId: number,
): Promise<QueuedTask> {
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    const [task] = await taskStatuses(server, credentials, [taskId]);
    if (task === undefined) throw new Error(`task ${taskId} is not in the status answer`);
    if (task.status !== 0) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not end: ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * POST /trips.json over a real socket at `origin` (the end-to-end tests), the credentials as the
 * form's first fields, as a client sends them.
 */
export async function uploadOverSocket(
  origin: string,
  credentials: LegacyCredentials,
  file: UploadFile,
  fields: [string, string][] = [],
): Promise<LegacyAnswer> {
  const form = await multipartBody(
    [['apikey', credentials.apiKey], ['auth_token', credentials.authToken], ...fields],
    file,
  );
  const answer = await request(`${origin}/trips.json`, {
    method: 'POST',
    headers: { 'content-type': form.contentType },
    body: form.body,
  });
  return { statusCode: answer.statusCode, body: (await answer.body.json()) as Record<string, unknown> };
}

/** GET /queued_tasks/status.json over a real socket at `origin`, with the tasks' objects. */
export async function statusesOverSocket(
  origin: string,
  credentials: LegacyCredentials,
  ids: readonly number[],
): Promise<QueuedTask[]> {
  const query = new URLSearchParams({
    apikey: credentials.apiKey,
    auth_token: credentials.authToken,
    ids: ids.join(','),
    include_objects: 'true',
  });
  const response = await request(`${origin}/queued_tasks/status.json?${query}`);
  return ((await response.body.json()) as { queued_tasks: QueuedTask[] }).queued_tasks;
}

/** Polls status.json over a real socket until every task of `ids` has ended; them, in that order. */
export async function tasksEndedOverSocket(
  origin: string,
  credentials: LegacyCredentials,
  ids: readonly number[],
): Promise<QueuedTask[]> {
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    const tasks = await statusesOverSocket(origin, credentials, ids);
    if (tasks.length === ids.length && tasks.every((task) => task.status !== 0)) {
      return ids.map((id) => tasks.find((task) => task.id === id)!);
    }
    if (Date.now() > deadline)
      throw new Error(`tasks ${ids.join(',')} did not end: ${JSON.stringify(tasks)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

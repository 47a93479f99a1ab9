/**
 * Accepting a ride file (docs/contributors/decisions.md §5, "Create rides from a file"; issue 5): `POST /trips.json` (or
 * `.js`) as multipart, the file in the field `file` (or `data_file`), with optional `trip[name]`,
 * `trip[description]` and `trip[visibility]`. The answer, `{"success": 1, "task_id": N}`, comes as soon
 * as the bytes and their task are committed, in one transaction; parsing happens later, in the queue.
 *
 * The body is streamed, never parsed up front: the fields before the file are read first, so that the
 * credentials among them (`apikey`, `auth_token`, or `email` and `password`) are checked before a byte
 * of the file is read, and an unauthenticated upload is never stored. Credentials therefore go in the
 * query string, in headers, or in fields sent before the file, which is the order browsers and curl
 * send a form's fields in; fields after the file may still carry the trip's name, description and
 * visibility. Credentials sent only after the file are refused in words that say so (issue 35,
 * legacy/route.ts): accepting them would mean holding the file of a caller not yet known, in memory or
 * on disk, until the end of the body, and anyone could then make the server hold uploads as large as
 * the limit without an account. The file is read and dropped instead, counted against the limit. `external_id` (issue 20) is the uploader's own id of the ride. The file is hashed (SHA-256, for the duplicate check) as it arrives, and refused with 413
 * the moment it passes the upload limit (docs/contributors/decisions.md §7), or at once when Content-Length says it will.
 */
import { createHash } from 'node:crypto';
import type { MultipartFile, Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { ServerContext } from '../context.js';
import type { Visibility } from '../db/schema.js';
import { ServerError, ServerErrorCode, badRequest } from '../errors.js';
import { LegacyParams } from './params.js';
import type { LegacyAnswer, LegacyCall, MultipartIntake } from './route.js';
import {
  cutToWholeChars,
  isTooLong,
  TEXT_MAX_CHARS,
  tooLongWords,
  type NewTask,
  type TaskMetadata,
} from '../store/index.js';
import { MAX_SKIPPED_LISTED, skippedWords, type SkippedEntry } from '../queue/archive.js';

/** The names of the file field (docs/contributors/decisions.md §5). */
const FILE_FIELDS: ReadonlySet<string> = new Set(['file', 'data_file']);

/** Room beside the file for the other fields and the multipart framing, when judging Content-Length. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

/** `trip[visibility]`: the legacy numbers (docs/contributors/decisions.md §5), and the words the records show. */
const VISIBILITIES: Readonly<Record<string, Visibility>> = {
  '0': 'public',
  '1': 'private',
  '2': 'friends_only',
  public: 'public',
  private: 'private',
  friends_only: 'friends_only',
};

/**
 * The upload's form as the OpenAPI document describes it (issue 35): its fields, and the order rule
 * above, which no schema can say.
 */
export const UPLOAD_FORM = {
  description:
    'A ride file upload is a multipart form. Its credentials (`apikey`, and `auth_token` or `email` and ' +
    '`password`) are read before the file and must come before the file part, or in the query ' +
    'string, or in the headers `x-service-api-key` and `x-service-auth-token`; sent only after it, ' +
    'the upload is refused with 400 naming them (with curl: `-F apikey=… -F auth_token=…` before ' +
    '`-F file=@ride.fit`). The trip fields and `external_id` may come before or after the file. The ' +
    'answer, `{"success": 1, "task_id": N}`, comes once the file is stored; GET /queued_tasks/{id}.json ' +
    'says what became of it. Without a file part, the body is `track_points` (JSON or a form) and the ' +
    'trip is made at once.',
  schema: {
    type: 'object',
    properties: {
      apikey: { type: 'string', description: "The API client's key. Before the file." },
      auth_token: { type: 'string', description: 'An auth token of the uploading user. Before the file.' },
      email: { type: 'string', description: 'Instead of auth_token, with password. Before the file.' },
      password: { type: 'string', description: 'With email. Before the file.' },
      file: {
        type: 'string',
        contentMediaType: 'application/octet-stream',
        description:
          'The ride file: FIT, TCX, GPX, KML or KMZ, or a .gz of one, or a ZIP of ride files, up to the ' +
          'upload limit.',
      },
      data_file: {
        type: 'string',
        contentMediaType: 'application/octet-stream',
        description: 'Another name for file.',
      },
      'trip[name]': { type: 'string', description: "The trip's name; default: the file's own." },
      'trip[description]': { type: 'string', description: "The trip's description." },
      'trip[visibility]': {
        type: 'string',
        enum: ['0', '1', '2', 'public', 'private', 'friends_only'],
        description: '0 or public, 1 or private, 2 or friends_only.',
      },
      external_id: {
        type: 'string',
        maxLength: TEXT_MAX_CHARS.externalId,
        description: "The uploader's own id of the ride: an upload with one already stored is a duplicate.",
      },
    },
  },
};

/** An upload between reading its fields and storing its file. */
interface PendingUpload {
  parts: AsyncIterator<Multipart>;
  file: MultipartFile | null;
  /** the form's fields, by name: a repeated field's values in order */
  fields: Record<string, string | string[]>;
  stored: boolean;
}

const pendingUploads = new WeakMap<FastifyRequest, PendingUpload>();

/** How POST /trips reads a multipart body (legacy/route.ts, MultipartIntake). */
export function uploadIntake(context: ServerContext): MultipartIntake {
  return {
    fields: (request) => readFieldsBeforeFile(request, context),
    discard: discardUnreadBody,
    fieldsAfterFile: (request) => dropFileAndReadFields(request, context),
  };
}

/**
 * For a refused upload (MultipartIntake.fieldsAfterFile): the file read and dropped, up to the upload
 * limit (413 past it), then the fields after it, whose names it returns; none is kept.
 */
async function dropFileAndReadFields(request: FastifyRequest, context: ServerContext): Promise<string[]> {
  const upload = pendingUploads.get(request);
  if (upload?.file == null) return [];
  const file = upload.file;
  upload.file = null;
  // An empty file is no reason to refuse: the refusal is for the credentials.
  await streamFile(file, context, () => undefined, { empty: true }).catch(asBadForm);
  const after: Record<string, string | string[]> = {};
  await readRestOfForm({ ...upload, fields: after }).catch(asBadForm);
  return Object.keys(after);
}

/** The fields before the file, and the file part itself kept for queueUpload. */
async function readFieldsBeforeFile(
  request: FastifyRequest,
  context: ServerContext,
): Promise<Record<string, unknown>> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > context.options.limits.uploadBytes + FORM_OVERHEAD_BYTES) {
    throw tooLarge(context);
  }
  const upload: PendingUpload = {
    parts: request.parts()[Symbol.asyncIterator](),
    file: null,
    fields: {},
    stored: false,
  };
  pendingUploads.set(request, upload);
  upload.file = await readFieldsUntilFile(upload).catch(asBadForm);
  return upload.fields;
}

/** Reads parts into `upload.fields` up to the next file part, which it returns (null: none came). */
async function readFieldsUntilFile(upload: PendingUpload): Promise<MultipartFile | null> {
  for (;;) {
    const next = await upload.parts.next();
    if (next.done === true) return null;
    const part = next.value;
    if (part.type === 'field') {
      addField(upload.fields, part.fieldname, part.value);
    } else if (FILE_FIELDS.has(part.fieldname)) {
      return part;
    } else {
      // A file under another name is not the ride: read past it.
      part.file.resume();
    }
  }
}

function addField(fields: Record<string, string | string[]>, name: string, value: unknown): void {
  const text = typeof value === 'string' ? value : String(value);
  const before = fields[name];
  if (before === undefined) fields[name] = text;
  else if (Array.isArray(before)) before.push(text);
  else fields[name] = [before, text];
}

async function readRestOfForm(upload: PendingUpload): Promise<void> {
  for (let next = await upload.parts.next(); next.done !== true; next = await upload.parts.next()) {
    const part = next.value;
    if (part.type === 'field') addField(upload.fields, part.fieldname, part.value);
    else part.file.resume();
  }
}

/**
 * A failure while reading the form: our own errors and @fastify/multipart's limits (413) as they are;
 * anything else (busboy's "Unexpected end of form", a malformed part) is the body's fault: 400.
 */
function asBadForm(error: unknown): never {
  // A second file where the form takes one (POST /trips.json): @fastify/multipart's "reach files limit"
  // in words, before any of the form is stored.
  if ((error as { code?: unknown }).code === 'FST_FILES_LIMIT') {
    throw new ServerError(
      ServerErrorCode.PAYLOAD_TOO_LARGE,
      'one file per upload: send the others in uploads of their own, or together in one ZIP archive',
    );
  }
  const status = (error as { statusCode?: unknown }).statusCode;
  if (error instanceof ServerError || (typeof status === 'number' && status < 500)) throw error;
  const message = error instanceof Error ? error.message : String(error);
  throw badRequest(`the multipart form could not be read: ${message}`);
}

/**
 * After the answer: whatever of the body nobody read (the sender was refused, or the file was too
 * large) is read and dropped, so the connection can carry the next request and the sender, who may be
 * waiting to finish sending before it reads the answer, is not left hanging.
 */
function discardUnreadBody(request: FastifyRequest): void {
  const upload = pendingUploads.get(request);
  pendingUploads.delete(request);
  if (upload?.stored === true) return;
  const raw = request.raw;
  if (raw.readableEnded || raw.destroyed) return;
  raw.unpipe();
  raw.resume();
}

/** Whom a stored upload belongs to. */
export interface Uploader {
  userId: number;
  /**
   * The API client it came through; null for the dashboard's upload form (pages/dashboard/sync.ts),
   * where a signed-in browser session, not a client, sends the file (queued_tasks.api_client_id is
   * nullable for this).
   */
  apiClientId: number | null;
}

/**
 * Stores the upload of an authenticated request (legacy/create-trip.ts): streams the file into memory,
 * hashing it, up to the limit; reads the rest of the form; then commits the task and its bytes. A ZIP
 * of ride files (issue 20) answers with every task's id, `task_id` being the first one's, and the
 * entries that became no task.
 */
export async function queueUpload(
  request: FastifyRequest,
  call: LegacyCall,
  context: ServerContext,
): Promise<LegacyAnswer> {
  const stored = await storeUpload(request, context, () => ({
    userId: call.user!.user.id,
    apiClientId: call.client.id,
  }));
  const taskId = stored.taskIds[0]!;
  if (stored.skipped === null) return { body: { success: 1, task_id: taskId } };
  return {
    body: {
      success: 1,
      task_id: taskId,
      task_ids: stored.taskIds,
      // Bounded (issue 36): the first entries, names cut, and the count of all of them.
      skipped: stored.skipped.listed,
      skipped_count: stored.skipped.count,
      message: archiveWords(stored.taskIds.length, stored.skipped),
    },
  };
}

/** What became of a ZIP upload, in words: the count of rides queued and what was skipped. */
export function archiveWords(rides: number, skipped: SkippedEntries): string {
  const queued = `${rides} ride file${rides === 1 ? '' : 's'} in the ZIP archive ${rides === 1 ? 'is' : 'are'} read as ${rides === 1 ? 'an upload' : 'uploads'} of ${rides === 1 ? 'its' : 'their'} own`;
  return skipped.count === 0
    ? `${queued}.`
    : `${queued}; ${skipped.count} skipped: ${skippedWords(skipped.listed, skipped.count)}.`;
}

/**
 * What an upload became: its tasks, and for a ZIP of rides or several files the entries skipped
 * (null: one file that is no archive).
 */
export interface StoredUpload {
  /** one at least: a ZIP without a ride is refused (archive.ts) */
  taskIds: number[];
  /** the files the form carried (one, but for the dashboard's form) */
  files: number;
  skipped: SkippedEntries | null;
}

/** A ZIP's entries that became no task: the first ones (queue/archive.ts bounds them) and their count. */
export interface SkippedEntries {
  listed: SkippedEntry[];
  count: number;
}

/** One file of a form, received whole. */
interface ReceivedFile {
  filename: string;
  bytes: Buffer;
  sha256: string;
}

/**
 * What queueUpload does, for any caller whose form was read by `uploadIntake(...).fields` first (the
 * legacy route, and the dashboard's upload form): stores the file as a task of `uploader`, or each
 * ride file of a ZIP as a task (queue/archive.ts), in one transaction, and wakes the queue.
 *
 * `files` is the most file parts the form may carry (the API: one; the dashboard's form: several,
 * issue 40). Together they count against the one upload limit, as one file would, so a form of many
 * files holds no more memory than the largest single upload. They are stored in one transaction: all
 * of them, or, when one is refused (too large, an empty file, a ZIP without a ride), none.
 */
export async function storeUpload(
  request: FastifyRequest,
  context: ServerContext,
  uploader: () => Uploader,
  { files: maxFiles = 1 }: { files?: number } = {},
): Promise<StoredUpload> {
  const upload = pendingUploads.get(request);
  if (upload?.file == null) {
    throw badRequest('no file: send the ride file in the multipart field "file" (or "data_file")');
  }
  const { userId, apiClientId } = uploader();
  const received: ReceivedFile[] = [];
  const limit = context.options.limits.uploadBytes;
  let total = 0;
  for (let file: MultipartFile | null = upload.file; file !== null;) {
    const room = limit - total;
    const one = await receiveFile(file, context, room, received.length > 0).catch(asBadForm);
    received.push({ filename: file.filename, ...one });
    total += one.bytes.length;
    // Fields after the file (the trip's name, say) count too; a body that ends early fails here.
    if (received.length < maxFiles) file = await readFieldsUntilFile(upload).catch(asBadForm);
    else if (maxFiles > 1 && (await readFieldsUntilFile(upload).catch(asBadForm)) !== null) {
      throw tooManyFiles(maxFiles);
    } else file = null;
  }
  upload.file = null;
  await readRestOfForm(upload).catch(asBadForm);
  const { metadata, externalId } = uploadMetadata(new LegacyParams(request.query, upload.fields));
  const stored: NewTaskFile[] = [];
  const skipped: SkippedEntries = { listed: [], count: 0 };
  let archives = 0;
  for (const one of received) {
    // Each moves to a worker thread to be unzipped there (issue 20), and comes back when it is one ride.
    const split = await request.server.uploadQueue.splitUpload(one.bytes);
    if ('single' in split) {
      stored.push({
        sha256: one.sha256,
        filename: uploadFilename(one.filename),
        bytes: split.single,
        // One external_id for several files names each by its file, as the rides of an archive.
        externalId:
          externalId === null || received.length === 1
            ? externalId
            : archiveExternalId(externalId, one.filename),
      });
      continue;
    }
    archives += 1;
    for (const ride of split.rides) {
      stored.push({
        sha256: ride.sha256,
        filename: uploadFilename(ride.path),
        bytes: ride.bytes,
        unzippedLength: ride.unzippedLength,
        externalId: externalId === null ? null : archiveExternalId(externalId, ride.path),
      });
    }
    skipped.listed.push(...split.skipped.slice(0, MAX_SKIPPED_LISTED - skipped.listed.length));
    skipped.count += split.skippedCount;
  }
  const taskIds = await context.store.tasks.createMany(
    stored.map((one) => ({ userId, apiClientId, metadata, ...one })),
  );
  upload.stored = true;
  taskIds.forEach((taskId, index) => {
    request.server.uploadQueue.accepted(taskId, stored[index]!.bytes);
  });
  // Several files are answered as an archive is: every task, and what was skipped.
  return { taskIds, files: received.length, skipped: received.length > 1 || archives > 0 ? skipped : null };
}

/** What a file of the form becomes in its task, but the uploader's. */
type NewTaskFile = Omit<NewTask, 'userId' | 'apiClientId' | 'metadata'>;

/**
 * A ride's external_id in an archive sent with one: the archive's and the ride's path, so sending the
 * same archive again with the same external_id makes each ride a duplicate of itself (issue 20), and
 * no ride a duplicate of another of the archive.
 */
function archiveExternalId(externalId: string, path: string): string {
  const id = `${externalId}/${path}`;
  if (isTooLong(id, TEXT_MAX_CHARS.externalId)) {
    throw badRequest(
      `external_id: with the path of "${path}" in the ZIP archive it is longer than ${TEXT_MAX_CHARS.externalId} characters; send a shorter one`,
    );
  }
  return id;
}

/**
 * The file's bytes and SHA-256; 413 as soon as it passes the upload limit.
 */
async function receiveFile(
  file: MultipartFile,
  context: ServerContext,
  limit: number,
  together: boolean,
): Promise<{ bytes: Buffer; sha256: string }> {
  const hash = createHash('sha256');
  // Issue 18, "memory bounded per upload": the bytes are copied, as they arrive, into one buffer that
  // grows in place (a resizable ArrayBuffer commits memory only as it is written), instead of a list of
  // chunks joined at the end, which holds the file twice. Its memory is the parse worker's to take
  // (queue/pool.ts moves an ArrayBuffer that no other view shares), so it is never copied again here.
  const received = new ArrayBuffer(0, { maxByteLength: Math.max(0, limit) });
  const length = await streamFile(
    file,
    context,
    (chunk, end) => {
      hash.update(chunk);
      received.resize(end);
      new Uint8Array(received, end - chunk.length).set(chunk);
    },
    { limit, together },
  );
  return { bytes: Buffer.from(received, 0, length), sha256: hash.digest('hex') };
}

/**
 * Reads the file's stream to its end, giving each chunk to `take` with the length so far; resolves
 * with the whole length; 413 as soon as it passes `limit` (the upload limit, or what is left of it for
 * a further file of the same form: `together`), 400 when it is empty (unless `empty` allows it).
 * busboy stops passing on the file's data at the upload limit (the multipart limits,
 * legacy/index.ts) and says so with 'limit'; the rest of the body is then read and dropped after the
 * answer (discardUnreadBody).
 */
function streamFile(
  file: MultipartFile,
  context: ServerContext,
  take: (chunk: Buffer, length: number) => void,
  {
    empty = false,
    limit = context.options.limits.uploadBytes,
    together = false,
  }: { empty?: boolean; limit?: number; together?: boolean } = {},
): Promise<number> {
  const stream = file.file;
  let length = 0;
  return new Promise((resolve, reject) => {
    const fail = (error: unknown): void => {
      stream.off('data', onData);
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > limit) {
        fail(tooLarge(context, together));
        return;
      }
      take(chunk, length);
    };
    stream.on('data', onData);
    stream.once('limit', () => {
      fail(tooLarge(context, together));
    });
    stream.once('error', fail);
    stream.once('end', () => {
      if (stream.truncated || length > limit) fail(tooLarge(context, together));
      else if (length === 0 && !empty) {
        fail(badRequest(together ? `the file "${file.filename}" is empty` : 'the file is empty'));
      } else resolve(length);
    });
  });
}

function tooManyFiles(maxFiles: number): ServerError {
  return new ServerError(
    ServerErrorCode.PAYLOAD_TOO_LARGE,
    `at most ${maxFiles} files can be uploaded at once: choose fewer, or send them as one ZIP archive`,
  );
}

function tooLarge(context: ServerContext, together = false): ServerError {
  const limit = context.options.limits.uploadBytes;
  const size =
    limit >= 1024 * 1024
      ? `${Math.round(limit / (1024 * 1024))} MB`
      : limit >= 1024
        ? `${Math.round(limit / 1024)} KB`
        : `${limit} bytes`;
  return new ServerError(
    ServerErrorCode.PAYLOAD_TOO_LARGE,
    together
      ? `the files together are larger than the upload limit of ${size}`
      : `the file is larger than the upload limit of ${size}`,
  );
}

/**
 * `trip[name]`, `trip[description]`, `trip[visibility]`, and `external_id` (issue 20; Strava's upload
 * field: the uploader's own id of the ride, at most 255 characters, refused rather than cut since a cut
 * id would name another ride; blank is none); 400 naming every bad one.
 */
function uploadMetadata(params: LegacyParams): { metadata: TaskMetadata; externalId: string | null } {
  const problems: string[] = [];
  const externalText = params.text('external_id');
  let externalId: string | null = null;
  if (externalText !== undefined && isTooLong(externalText, TEXT_MAX_CHARS.externalId)) {
    problems.push(tooLongWords('external_id', TEXT_MAX_CHARS.externalId));
  } else if (externalText !== undefined && externalText.trim() !== '') {
    externalId = externalText.trim();
  }
  const metadata: TaskMetadata = {};
  const name = params.text('trip[name]');
  if (name !== undefined && isTooLong(name, TEXT_MAX_CHARS.assetName)) {
    problems.push(tooLongWords('trip[name]', TEXT_MAX_CHARS.assetName));
  } else if (name !== undefined) {
    metadata.name = name;
  }
  const description = params.text('trip[description]');
  if (description !== undefined && isTooLong(description, TEXT_MAX_CHARS.assetDescription)) {
    problems.push(tooLongWords('trip[description]', TEXT_MAX_CHARS.assetDescription));
  } else if (description !== undefined) {
    metadata.description = description;
  }
  const visibilityText = params.text('trip[visibility]');
  if (Array.isArray(params.raw('trip[visibility]'))) {
    // A number sent twice is a 400, not its first value (issue 36).
    problems.push(
      'trip[visibility] was sent more than once: send it once, 0 (public), 1 (private) or 2 (friends)',
    );
  } else if (visibilityText !== undefined) {
    const visibility = Object.hasOwn(VISIBILITIES, visibilityText) ? VISIBILITIES[visibilityText] : undefined;
    if (visibility === undefined)
      problems.push('trip[visibility] must be 0 (public), 1 (private) or 2 (friends)');
    else metadata.visibility = visibility;
  }
  if (problems.length > 0) throw badRequest(problems);
  return { metadata, externalId };
}

/** The name the client gave the file, without any folder, as a hint for the format. */
function uploadFilename(filename: string): string | null {
  const base = filename.split(/[/\\]/).pop()?.trim() ?? '';
  return base === '' ? null : cutToWholeChars(base, TEXT_MAX_CHARS.filename);
}

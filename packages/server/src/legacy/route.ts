/**
 * Registering legacy endpoints (docs/contributors/decisions.md §5): paths at the site root, each answering as `.json`
 * (JSON) and `.js` (JSONP); the API client is checked on every request and the user where the
 * endpoint needs one; errors are `{"error": "..."}` with the specification's statuses, in JSONP too
 * when the request asked for JSONP with a safe callback.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import type { ServerContext } from '../context.js';
import { storageFaultError } from '../storage-fault.js';
import { answerableError, badRequest, notAuthorized, ServerError, TextTooLongError } from '../errors.js';
import { LEGACY_OPTIONAL_USER_SECURITY, LEGACY_USER_SECURITY } from '../openapi.js';
import type { ApiClient } from '../store/index.js';
import { LOG_IN_AGAIN } from '../auth/credentials.js';
import { legacyCaller, type LegacyUser } from './credentials.js';
import { LegacyParams } from './params.js';
import { jsonpCallback, sendLegacy } from './respond.js';
import { legacyVersion, type LegacyVersion } from './version.js';

export interface LegacyCall {
  params: LegacyParams;
  client: ApiClient;
  /** the signed-in user; null only on routes with `auth: 'optional'` called without user credentials */
  user: LegacyUser | null;
  version: LegacyVersion;
}

export interface LegacyAnswer {
  status?: number;
  body: unknown;
}

/**
 * How an endpoint whose body is a streamed multipart form (the file upload of POST /trips) reads it:
 * the fields come first, then the handler streams the file.
 */
export interface MultipartIntake {
  /**
   * Reads the form fields sent before the file; they stand in for request.body, so credentials,
   * version and callback are looked up among them (and in the query string) before the file is read.
   */
  fields(request: FastifyRequest): Promise<Record<string, unknown>>;
  /** Once the answer is sent: discards whatever of the body the handler did not read. */
  discard(request: FastifyRequest): void;
  /**
   * When the request is refused for want of credentials (401): reads the rest of the body, the file
   * counted against the upload limit and stored nowhere, and returns the names of the fields that
   * came after the file (issue 35), so that the refusal can say which credentials came too late.
   */
  fieldsAfterFile(request: FastifyRequest): Promise<string[]>;
}

/** The fields that carry credentials, as the legacy interface reads them (legacy/credentials.ts). */
const CREDENTIAL_FIELDS = ['apikey', 'auth_token', 'email', 'password'];

/**
 * Issue 35: `curl -F file=@ride.fit -F apikey=… -F auth_token=…` was answered "the apikey parameter
 * is required", though the key was sent. The credentials are read from the fields before the file, so
 * that no file of a caller who is not authenticated is ever held (upload-intake.ts); credentials found
 * only after it are therefore refused, in a sentence that names them and the fix. Any other refusal
 * stays as it was.
 */
async function lateCredentials(
  request: FastifyRequest,
  multipart: MultipartIntake,
  refusal: unknown,
): Promise<never> {
  const late = new Set(await multipart.fieldsAfterFile(request));
  const names = CREDENTIAL_FIELDS.filter((name) => late.has(name));
  if (names.length === 0) throw refusal;
  const listed = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
  const curl = names.map((name) => `-F ${name}=…`).join(' ');
  throw badRequest(
    `${listed} came after the file: send ${names.length === 1 ? 'it' : 'them'} before the file part, in the query string or in headers; with curl, put ${curl} before -F file=@…`,
  );
}

export interface LegacyRouteOptions {
  method: HTTPMethods;
  /** without extension, e.g. `/users/:id` */
  path: string;
  /** 'user': user credentials required (401 without); 'optional': used when given */
  auth: 'user' | 'optional';
  /** what the endpoint does, in a few words, for the OpenAPI document (issue 20) */
  summary: string;
  /**
   * the JSON schema of a 200 answer, for the OpenAPI document's `.json` form (issue 35: it names the
   * client's types). The answer is sent as JSON text already (respond.ts), so it only describes it.
   */
  answer?: object;
  schema?: FastifySchema;
  /** Fastify route options passed through (e.g. bodyLimit), for endpoints that need them */
  bodyLimit?: number;
  /** for a multipart body that is streamed rather than parsed up front */
  multipart?: MultipartIntake;
  /**
   * The multipart form's fields, for the OpenAPI document only (issue 35): a streamed body has no
   * schema Fastify could check, so the document alone is given one.
   */
  documentedForm?: { description: string; schema: Record<string, unknown> };
  handler(request: FastifyRequest, call: LegacyCall): Promise<LegacyAnswer>;
}

/** Answers an error thrown in a legacy endpoint: `{"error"}` as JSON or, when asked for, JSONP. */
export function sendLegacyError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const { status, message, retryAfterSeconds } = describe(error);
  // A failure nobody foresaw; a storage fault (503, 507) is the queue's and the operator's to see once,
  // not a line per request while it lasts.
  if (status === 500) request.log.error({ err: error }, 'legacy request failed');
  if (retryAfterSeconds !== null) void reply.header('retry-after', String(retryAfterSeconds));
  let callback: string | null = null;
  try {
    callback = jsonpCallback(request, new LegacyParams(request.query, request.body));
  } catch {
    // An unsafe callback is answered as plain JSON.
  }
  return sendLegacy(reply, callback, status, { error: message });
}

function describe(thrown: unknown): { status: number; message: string; retryAfterSeconds: number | null } {
  // A text over its maximum that no check before the store caught (store/text-limits.ts, issue 17):
  // 400, as the legacy interface has no 422.
  if (thrown instanceof TextTooLongError)
    return { status: 400, message: thrown.message, retryAfterSeconds: null };
  const answerable = answerableError(storageFaultError(thrown) ?? thrown);
  if (answerable !== null) {
    return {
      status: answerable.statusCode,
      message: answerable.problems.join('; '),
      retryAfterSeconds: answerable.retryAfterSeconds,
    };
  }
  const fastifyError = thrown as { statusCode?: number; message?: string; validation?: unknown };
  const status = fastifyError.statusCode ?? 500;
  if (status >= 500) return { status: 500, message: 'internal server error', retryAfterSeconds: null };
  return { status, message: fastifyError.message ?? 'bad request', retryAfterSeconds: null };
}

export function legacyRoute(app: FastifyInstance, context: ServerContext, options: LegacyRouteOptions): void {
  const { multipart } = options;
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (multipart !== undefined && request.isMultipart()) request.body = await multipart.fields(request);
    const params = new LegacyParams(request.query, request.body);
    const callback = jsonpCallback(request, params);
    let caller;
    try {
      caller = await legacyCaller(request, params, context);
      if (caller.user === null && options.auth === 'user') {
        throw notAuthorized(
          `authentication required: send auth_token, or email and password (${LOG_IN_AGAIN})`,
        );
      }
    } catch (error) {
      const refused = error instanceof ServerError && error.statusCode === 401;
      if (refused && multipart !== undefined && request.isMultipart()) {
        await lateCredentials(request, multipart, error);
      }
      throw error;
    }
    const { client, user } = caller;
    const version = legacyVersion(params, client);
    const answer = await options.handler(request, { params, client, user, version });
    return sendLegacy(reply, callback, answer.status ?? 200, answer.body);
  };
  // A POST body may be as large as an upload (docs/contributors/decisions.md §7, 64 MB by default): raw track points as
  // JSON or a form (200,000 points, docs/contributors/decisions.md §7) are far past Fastify's own 1 MiB default.
  const bodyLimit =
    options.bodyLimit ?? (options.method === 'POST' ? context.options.limits.uploadBytes : undefined);
  // Issue 20: both forms are in the OpenAPI document, with the credentials the endpoint accepts.
  const security = options.auth === 'user' ? LEGACY_USER_SECURITY : LEGACY_OPTIONAL_USER_SECURITY;
  const form = options.documentedForm;
  for (const extension of ['.json', '.js']) {
    app.route({
      method: options.method,
      url: `${options.path}${extension}`,
      schema: {
        ...options.schema,
        ...legacyDocumentation(options.summary, extension, options.answer),
        security,
      },
      ...(form === undefined
        ? {}
        : {
            config: {
              swaggerTransform: ({ schema, url }: { schema: FastifySchema; url: string }) => {
                const description = (schema as { description?: string }).description;
                return {
                  schema: {
                    ...schema,
                    consumes: ['multipart/form-data'],
                    body: form.schema,
                    description:
                      description === undefined ? form.description : `${description}\n\n${form.description}`,
                  },
                  url,
                };
              },
            },
          }),
      ...(bodyLimit === undefined ? {} : { bodyLimit }),
      ...(multipart === undefined
        ? {}
        : {
            onResponse: (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
              multipart.discard(request);
              done();
            },
          }),
      handler,
      errorHandler: (error, request, reply) => {
        void sendLegacyError(request, reply, error);
      },
    });
  }
}

/**
 * How the OpenAPI document describes one form of a legacy endpoint: `.js` is JSONP, the answer
 * wrapped in a call of the `callback` parameter (respond.ts), so it says so and answers JavaScript.
 */
function legacyDocumentation(summary: string, extension: string, answer: object | undefined): FastifySchema {
  if (extension === '.json') {
    return { tags: ['legacy'], summary, ...(answer === undefined ? {} : { response: { 200: answer } }) };
  }
  return {
    tags: ['legacy'],
    summary: `${summary} (JSONP)`,
    description:
      'JSONP: `/**/<callback>(<json>);` as application/javascript, where `<callback>` is the `callback` ' +
      'parameter (a JavaScript name such as app.handleTrip), `callback` when none is sent.',
  };
}

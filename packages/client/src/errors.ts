/**
 * The client's one error catalogue (docs/contributors/architecture.md, house style: "Each package owns one error catalogue with
 * stable codes; callers branch on `code`, never on message text"). Every failure the client reports is
 * a ClientError; the sync engine decides from `code` (and isRetryable) whether to back off, park an
 * upload as "needs sign-in", or mark a file failed with the server's message (docs/contributors/architecture.md, "Sync engine").
 */

export const ClientErrorCode = {
  /** 401: no or bad credentials; an expired auth token says "log in again" (docs/contributors/decisions.md §1, §5) */
  UNAUTHORIZED: 'CLIENT_UNAUTHORIZED',
  /** 403: a valid user without the right */
  FORBIDDEN: 'CLIENT_FORBIDDEN',
  /** 404: unknown id or endpoint */
  NOT_FOUND: 'CLIENT_NOT_FOUND',
  /** 429 still answered after the allowed waits (docs/contributors/decisions.md §7) */
  RATE_LIMITED: 'CLIENT_RATE_LIMITED',
  /** any other 4xx (400, 413, 422, …), and an upload task that ended failed (status -1) */
  REJECTED: 'CLIENT_REJECTED',
  /**
   * 507: the server's disk is full (issue 17). It stored nothing; every upload will meet the same
   * answer until space is freed there, so callers wait longer than for one failed request.
   */
  SERVER_FULL: 'CLIENT_SERVER_FULL',
  /** any other 5xx */
  SERVER: 'CLIENT_SERVER',
  /** connect or socket errors: the request may or may not have reached the server */
  UNREACHABLE: 'CLIENT_UNREACHABLE',
  /**
   * the uploadRide deadline passed, the transport gave up waiting for a response, or the server gave up
   * waiting for the request (408: its header or request time ran out, issue 17)
   */
  TIMEOUT: 'CLIENT_TIMEOUT',
  /** a response that is not what the API promises (not JSON, a root key missing, an odd status) */
  BAD_RESPONSE: 'CLIENT_BAD_RESPONSE',
  /** the caller's AbortSignal fired */
  ABORTED: 'CLIENT_ABORTED',
} as const;

export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/** What a `ClientError` carries beside its code and message (see its properties). */
export interface ClientErrorDetails {
  status?: number | null;
  serverMessages?: readonly string[];
  serverCodes?: readonly string[];
  serverCode?: string | null;
  retryAfterMs?: number | null;
  taskId?: number | null;
  cause?: unknown;
}

/**
 * The one error the client throws: `code` says what happened (a `ClientErrorCode`, for programs),
 * `message` says it in words, and `serverMessages` hold what the server said.
 */
export class ClientError extends Error {
  override readonly name = 'ClientError';
  readonly code: ClientErrorCode;
  /** the HTTP status, when there was a response */
  readonly status: number | null;
  /** what the server said: the strings of `{"errors": [...]}` (v1) or `{"error": "..."}` (legacy) */
  readonly serverMessages: string[];
  /**
   * the server's stable code of each message, at the same index: a v1 error body's `error_codes`
   * (SERVER_MISSING_FIELD, SERVER_NOT_FOUND, …; issue 35). Empty when the server sends none: the
   * legacy and OAuth interfaces, and servers before them.
   */
  readonly serverCodes: string[];
  /**
   * the server's stable code for what it refused, when it gives one: a failed upload task's
   * `error_code` (RIDEFILE_MALFORMED, …; issue 16), else the first of `serverCodes`, while
   * `serverMessages` say it in words
   */
  readonly serverCode: string | null;
  /** how long the server asked to wait (Retry-After of a 429 or a 503), ms */
  readonly retryAfterMs: number | null;
  /** the upload task concerned (uploadRide), so a caller can poll it again later */
  readonly taskId: number | null;

  constructor(code: ClientErrorCode, message: string, details: ClientErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.status = details.status ?? null;
    this.serverMessages = [...(details.serverMessages ?? [])];
    this.serverCodes = [...(details.serverCodes ?? [])];
    this.serverCode = details.serverCode ?? this.serverCodes[0] ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
    this.taskId = details.taskId ?? null;
  }

  /** The same error about `taskId` (uploadRide adds the task to errors met while polling it). */
  withTaskId(taskId: number): ClientError {
    return new ClientError(this.code, this.message, {
      status: this.status,
      serverMessages: this.serverMessages,
      serverCodes: this.serverCodes,
      serverCode: this.serverCode,
      retryAfterMs: this.retryAfterMs,
      taskId,
      cause: this.cause,
    });
  }
}

const RETRYABLE: ReadonlySet<string> = new Set([
  ClientErrorCode.UNREACHABLE,
  ClientErrorCode.TIMEOUT,
  ClientErrorCode.SERVER,
  ClientErrorCode.SERVER_FULL,
  ClientErrorCode.RATE_LIMITED,
]);

/**
 * Whether trying the same thing later may succeed (docs/contributors/architecture.md, "Retryable failures back off; a file the
 * server rejects is marked failed … and not retried until the user asks").
 */
export function isRetryable(error: unknown): boolean {
  return error instanceof ClientError && RETRYABLE.has(error.code);
}

/** Whether `error` is a `ClientError` (with `code`, when given): a type guard for `catch` blocks. */
export function isClientError(error: unknown, code?: ClientErrorCode): error is ClientError {
  return error instanceof ClientError && (code === undefined || error.code === code);
}

/** How many characters of an unexpected body an error quotes. */
export const EXCERPT_CHARS = 200;

/** The start of a body as text, for messages about bodies that are not what was expected. */
export function excerpt(body: Uint8Array): string {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body.subarray(0, EXCERPT_CHARS * 4));
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > EXCERPT_CHARS ? `${oneLine.slice(0, EXCERPT_CHARS)}…` : oneLine;
}

/** What an error body says: its messages, and the code of each when the server gives them. */
interface ServerSaid {
  messages: string[];
  codes: string[];
}

/**
 * The messages of an error body: v1 `{"errors": ["..."]}` (docs/integrators/api.md, Errors) with its
 * `error_codes` beside them (issue 35), legacy `{"error": "..."}` (docs/contributors/decisions.md §5), OAuth's
 * `error_description` (docs/contributors/decisions.md §3). Codes are taken only as many as the messages, one string
 * each, so that the code at an index is the message's at that index; otherwise there are none.
 */
function serverSaid(body: Uint8Array): ServerSaid {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return { messages: [], codes: [] };
  }
  if (typeof parsed !== 'object' || parsed === null) return { messages: [], codes: [] };
  const record = parsed as Record<string, unknown>;
  const errors = record['errors'];
  if (Array.isArray(errors)) {
    const texts = errors.filter((item): item is string => typeof item === 'string');
    if (texts.length > 0) return { messages: texts, codes: codesBeside(record['error_codes'], texts) };
  }
  for (const key of ['error_description', 'error']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return { messages: [value], codes: [] };
  }
  return { messages: [], codes: [] };
}

function codesBeside(codes: unknown, messages: readonly string[]): string[] {
  if (!Array.isArray(codes) || codes.length !== messages.length) return [];
  return codes.every((code): code is string => typeof code === 'string') ? codes : [];
}

/** The messages of an error body (serverSaid); empty when the body says nothing readable. */
export function serverMessagesOf(body: Uint8Array): string[] {
  return serverSaid(body).messages;
}

/** The codes of a v1 error body's messages (`error_codes`, issue 35); empty when it gives none. */
export function serverCodesOf(body: Uint8Array): string[] {
  return serverSaid(body).codes;
}

/** The code of an HTTP status that is not a success. */
export function codeForStatus(status: number): ClientErrorCode {
  if (status === 401) return ClientErrorCode.UNAUTHORIZED;
  if (status === 403) return ClientErrorCode.FORBIDDEN;
  if (status === 404) return ClientErrorCode.NOT_FOUND;
  if (status === 429) return ClientErrorCode.RATE_LIMITED;
  // RFC 9110 §15.5.9: a 408 may be repeated; a slow upload over a slow link is tried again later.
  if (status === 408) return ClientErrorCode.TIMEOUT;
  if (status >= 400 && status < 500) return ClientErrorCode.REJECTED;
  if (status === 507) return ClientErrorCode.SERVER_FULL;
  if (status >= 500 && status < 600) return ClientErrorCode.SERVER;
  // 1xx/3xx: the API answers neither (redirects are not followed: credentials stay where they were sent).
  return ClientErrorCode.BAD_RESPONSE;
}

/**
 * The error for a response that is not a success. `what` names the request without its query string:
 * legacy queries carry passwords and auth tokens, which must never end up in a message or a log.
 */
export function errorFromResponse(
  what: string,
  status: number,
  body: Uint8Array,
  retryAfterMs: number | null = null,
): ClientError {
  const { messages: serverMessages, codes: serverCodes } = serverSaid(body);
  const said = serverMessages.length > 0 ? serverMessages.join('; ') : excerpt(body) || '(empty body)';
  return new ClientError(codeForStatus(status), `${what} answered ${status}: ${said}`, {
    status,
    serverMessages,
    serverCodes,
    retryAfterMs,
  });
}

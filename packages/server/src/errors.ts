/**
 * The server's one error catalogue (issue 35): every code the server reports, each with the HTTP
 * status it answers with where it has one, and the few error classes that carry them. Codes are
 * `SERVER_<NAME>` in upper snake case, like every package's (`RIDEFILE_*`, `CLIENT_*`, `RIDEPORT_*`,
 * `HOST_*`); callers branch on `code`, never on the words.
 *
 * The exception is the upload task codes `UPLOAD_*`: they are stored in task rows and published as the
 * task record's `error_code` (issue 16), so renaming them would break stored rows and integrators.
 * They keep their strings, here in the same table.
 *
 * Each interface formats a ServerError its own way: v1 `{"errors": [...], "error_codes": [...]}`, one
 * code per problem (api/v1/errors.ts; docs/integrators/api.md), legacy `{"error": "..."}`
 * (legacy/route.ts), OAuth's RFC 6749 body (oauth/errors.ts), pages as HTML (pages/errors.ts).
 *
 * The classes (as few as are truly different):
 * - ServerError: what handlers and the store throw; `code`, the problems in words (one per problem,
 *   each with its own code), the status, and Retry-After for 429 and 503.
 * - DataDirectoryError, ConflictError, TextTooLongError: ServerErrors with a code of their own kind,
 *   kept as classes because callers outside the server catch them by class (the cli's `admin`, the
 *   data directory's claim) or read what they add (TextTooLongError's field and maximum).
 * - DatabaseUnreachableError: not a ServerError. Its `code` keeps the driver's (ECONNREFUSED, ENOENT,
 *   PostgreSQL's SQLSTATE) for operators; every answer it causes carries SERVER_DATABASE_UNREACHABLE
 *   (storage-fault.ts).
 */

/**
 * Every code with its HTTP status (null: never an HTTP answer). Problem codes (MISSING_FIELD,
 * INVALID_FIELD, TEXT_TOO_LONG) are finer than the answer they stand in, whose status is its error's:
 * a v1 422 that lists three missing fields has three SERVER_MISSING_FIELD codes.
 */
export const SERVER_ERRORS = {
  /** a request the server cannot act on (the generic 400) */
  BAD_REQUEST: { code: 'SERVER_BAD_REQUEST', status: 400 },
  /** one parameter or field is not what the endpoint takes: the problem names it and the rule */
  INVALID_FIELD: { code: 'SERVER_INVALID_FIELD', status: 400 },
  /** one required parameter or field is missing: "name is required" (in a 400, or a v1 422) */
  MISSING_FIELD: { code: 'SERVER_MISSING_FIELD', status: 400 },
  /** the body is not what its content type says: malformed JSON, an empty JSON body */
  MALFORMED_BODY: { code: 'SERVER_MALFORMED_BODY', status: 400 },
  /** no or bad credentials */
  NOT_AUTHORIZED: { code: 'SERVER_NOT_AUTHORIZED', status: 401 },
  /** valid credentials without the right */
  FORBIDDEN: { code: 'SERVER_FORBIDDEN', status: 403 },
  /** no such record, or one the caller may not know of */
  NOT_FOUND: { code: 'SERVER_NOT_FOUND', status: 404 },
  /** no such endpoint: a client newer than the server, or a wrong path */
  NO_SUCH_ENDPOINT: { code: 'SERVER_NO_SUCH_ENDPOINT', status: 404 },
  /** a record like it exists already (an email taken), whichever engine refused it (issue 18) */
  CONFLICT: { code: 'SERVER_CONFLICT', status: 409 },
  /** the body or the file is larger than the limit */
  PAYLOAD_TOO_LARGE: { code: 'SERVER_PAYLOAD_TOO_LARGE', status: 413 },
  /** a content type the endpoint does not read */
  UNSUPPORTED_MEDIA_TYPE: { code: 'SERVER_UNSUPPORTED_MEDIA_TYPE', status: 415 },
  /** the request is well formed but its values cannot be used (the generic 422) */
  UNPROCESSABLE: { code: 'SERVER_UNPROCESSABLE', status: 422 },
  /**
   * a text longer than its maximum (store/text-limits.ts, issue 17): 422 on v1, 400 on the legacy
   * interface and the pages, whose specification has no 422
   */
  TEXT_TOO_LONG: { code: 'SERVER_TEXT_TOO_LONG', status: 422 },
  /** rate limited (docs/contributors/decisions.md §7); Retry-After says when to try again */
  TOO_MANY_REQUESTS: { code: 'SERVER_TOO_MANY_REQUESTS', status: 429 },
  /** the server failed; the answer says nothing of the inside, the log says the rest */
  INTERNAL: { code: 'SERVER_INTERNAL', status: 500 },
  /** the server cannot answer for now (the generic 503) */
  SERVICE_UNAVAILABLE: { code: 'SERVER_SERVICE_UNAVAILABLE', status: 503 },
  /** the database cannot be reached for now (storage-fault.ts); Retry-After says when to try again */
  DATABASE_UNREACHABLE: { code: 'SERVER_DATABASE_UNREACHABLE', status: 503 },
  /** the disk is full: nothing could be stored (disk-full.ts) */
  INSUFFICIENT_STORAGE: { code: 'SERVER_INSUFFICIENT_STORAGE', status: 507 },

  // Why a data directory cannot be served or opened (issue 17, "One server per data directory"):
  // the cli prints the code, the message says what to do.
  /** another process holds the directory's lock: a server runs on it already */
  DATA_DIRECTORY_IN_USE: { code: 'SERVER_DATA_DIRECTORY_IN_USE', status: null },
  /** the directory itself cannot be used: not a folder, not writable, a lock file that is not ours */
  DATA_DIRECTORY_UNUSABLE: { code: 'SERVER_DATA_DIRECTORY_UNUSABLE', status: null },
  /** no database, though the directory holds other state (db/database-state.ts) */
  DATABASE_MISSING: { code: 'SERVER_DATABASE_MISSING', status: null },
  /** an empty database, though the directory holds other state */
  DATABASE_EMPTY: { code: 'SERVER_DATABASE_EMPTY', status: null },
  /** a database file that cannot be read as Rideport's: not SQLite, damaged, another program's, no permission */
  DATABASE_UNREADABLE: { code: 'SERVER_DATABASE_UNREADABLE', status: null },

  /** a webhook URL the target policy refuses (webhooks/targets.ts); logged as the attempt's error */
  WEBHOOK_TARGET_REFUSED: { code: 'SERVER_WEBHOOK_TARGET_REFUSED', status: null },

  // Why an upload task failed, when it is not the parser's verdict on the file (issue 16): the task's
  // `error_code`. Stored in task rows and published: these keep their UPLOAD_ strings. A file the
  // parser rejects fails with the parser's own code (a RideFileErrorCode such as RIDEFILE_MALFORMED).
  /** the parser crashed on the file, every attempt */
  UPLOAD_PARSER_CRASHED: { code: 'UPLOAD_PARSER_CRASHED', status: null },
  /** the parser took longer than the time limit on the file, every attempt */
  UPLOAD_PARSER_TIMEOUT: { code: 'UPLOAD_PARSER_TIMEOUT', status: null },
  /** the server stopped while reading the file, every attempt */
  UPLOAD_INTERRUPTED: { code: 'UPLOAD_INTERRUPTED', status: null },
  /** the uploaded bytes were no longer stored */
  UPLOAD_LOST: { code: 'UPLOAD_LOST', status: null },
  /** the file was read, but storing its rides failed on the server, every attempt (issue 20) */
  UPLOAD_STORE_FAILED: { code: 'UPLOAD_STORE_FAILED', status: null },
} as const satisfies Record<string, { code: string; status: number | null }>;

type ServerErrorName = keyof typeof SERVER_ERRORS;

/** The codes by name: `ServerErrorCode.NOT_FOUND` is `'SERVER_NOT_FOUND'`. */
export const ServerErrorCode = Object.fromEntries(
  Object.entries(SERVER_ERRORS).map(([name, entry]) => [name, entry.code]),
) as { readonly [Name in ServerErrorName]: (typeof SERVER_ERRORS)[Name]['code'] };

export type ServerErrorCode = (typeof SERVER_ERRORS)[ServerErrorName]['code'];

/** Every code of the catalogue, in its order (for the OpenAPI document's enum and the tests). */
export const SERVER_ERROR_CODES: readonly ServerErrorCode[] = Object.values(ServerErrorCode);

/** The codes an HTTP answer may carry: those with a status (the v1 body's `error_codes`). */
export const HTTP_ERROR_CODES: readonly ServerErrorCode[] = Object.values(SERVER_ERRORS)
  .filter((entry) => entry.status !== null)
  .map((entry) => entry.code);

const STATUS_OF = new Map<string, number | null>(
  Object.values(SERVER_ERRORS).map((entry) => [entry.code, entry.status]),
);

/** The HTTP status of `code`, or null when it has none. */
export function statusOf(code: ServerErrorCode): number | null {
  return STATUS_OF.get(code) ?? null;
}

/** Whether `code` is a code of the catalogue. */
export function isServerErrorCode(code: unknown): code is ServerErrorCode {
  return typeof code === 'string' && STATUS_OF.has(code);
}

/**
 * The code that stands for a bare HTTP status (Fastify's own 4xx, which carry none of ours): the
 * catalogue's first code with that status, else the generic one of its class.
 */
export function codeForStatus(status: number): ServerErrorCode {
  for (const entry of Object.values(SERVER_ERRORS)) if (entry.status === status) return entry.code;
  return status >= 500 ? ServerErrorCode.INTERNAL : ServerErrorCode.BAD_REQUEST;
}

/** The upload task codes (the task record's `error_code`), by their names before issue 35. */
export const UploadErrorCode = {
  PARSER_CRASHED: ServerErrorCode.UPLOAD_PARSER_CRASHED,
  PARSER_TIMEOUT: ServerErrorCode.UPLOAD_PARSER_TIMEOUT,
  INTERRUPTED: ServerErrorCode.UPLOAD_INTERRUPTED,
  LOST: ServerErrorCode.UPLOAD_LOST,
  STORE_FAILED: ServerErrorCode.UPLOAD_STORE_FAILED,
} as const;

export type UploadErrorCode = (typeof UploadErrorCode)[keyof typeof UploadErrorCode];

/** The data directory codes (DataDirectoryError), by their names before issue 35. */
export const DataDirectoryErrorCode = {
  IN_USE: ServerErrorCode.DATA_DIRECTORY_IN_USE,
  UNUSABLE: ServerErrorCode.DATA_DIRECTORY_UNUSABLE,
  DATABASE_MISSING: ServerErrorCode.DATABASE_MISSING,
  DATABASE_EMPTY: ServerErrorCode.DATABASE_EMPTY,
  DATABASE_UNREADABLE: ServerErrorCode.DATABASE_UNREADABLE,
} as const;

export type DataDirectoryErrorCode = (typeof DataDirectoryErrorCode)[keyof typeof DataDirectoryErrorCode];

/** One problem of a request: its code for programs, its words for people. */
export interface Problem {
  readonly code: ServerErrorCode;
  readonly words: string;
}

/** "name is required", coded as a missing field. */
export function missingField(field: string): Problem {
  return { code: ServerErrorCode.MISSING_FIELD, words: `${field} is required` };
}

/** A field that breaks its rule, in words that name it ("page_size must be …"). */
export function invalidField(words: string): Problem {
  return { code: ServerErrorCode.INVALID_FIELD, words };
}

/** "trip[name] must be at most 255 characters" */
export function tooLongWords(field: string, maxChars: number): string {
  return `${field} must be at most ${maxChars.toLocaleString('en-US')} characters`;
}

/** A text over its maximum, as a problem among others. */
export function textTooLong(field: string, maxChars: number): Problem {
  return { code: ServerErrorCode.TEXT_TOO_LONG, words: tooLongWords(field, maxChars) };
}

export interface ServerErrorOptions {
  /** seconds, for 429 and 503 answers */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/**
 * The error the server throws for anything it reports: `code` for programs (the first problem's),
 * each problem in words with its own code, and the HTTP status of `code` (null: not an HTTP answer).
 * Problems given as plain strings take the error's code.
 */
export class ServerError extends Error {
  override readonly name: string = 'ServerError';
  readonly code: ServerErrorCode;
  readonly statusCode: number | null;
  /** one string per problem (a 422 lists every missing field) */
  readonly problems: string[];
  /** one code per problem, in the same order */
  readonly problemCodes: ServerErrorCode[];
  /** seconds, for 429 and 503 answers */
  readonly retryAfterSeconds: number | null;

  constructor(
    code: ServerErrorCode,
    problems: string | readonly (string | Problem)[],
    options: ServerErrorOptions = {},
  ) {
    const list = (typeof problems === 'string' ? [problems] : problems).map((problem): Problem =>
      typeof problem === 'string' ? { code, words: problem } : problem,
    );
    super(
      list.map((problem) => problem.words).join('; '),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.statusCode = statusOf(code);
    this.problems = list.map((problem) => problem.words);
    this.problemCodes = list.map((problem) => problem.code);
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }
}

/** A ServerError that has an HTTP status: one an interface can answer with as it is. */
export function answerableError(error: unknown): (ServerError & { statusCode: number }) | null {
  return error instanceof ServerError && error.statusCode !== null
    ? (error as ServerError & { statusCode: number })
    : null;
}

/** Why a data directory cannot be served or opened; its message a sentence that says what to do. */
export class DataDirectoryError extends ServerError {
  override readonly name = 'DataDirectoryError';
  declare readonly code: DataDirectoryErrorCode;

  // Not useless: it narrows `code` to the data directory's codes.
  // eslint-disable-next-line @typescript-eslint/no-useless-constructor
  constructor(code: DataDirectoryErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * A record the store would not write because one like it exists already (an email taken), said in
 * words; whichever engine refused it (issue 18: no engine's error codes outside the data layer).
 */
export class ConflictError extends ServerError {
  override readonly name = 'ConflictError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(ServerErrorCode.CONFLICT, message, options);
  }
}

/**
 * A text longer than its maximum (or a list longer than its own) reached the store
 * (store/text-limits.ts, issue 17): `field` and `maxChars` say which and how long it may be.
 */
export class TextTooLongError extends ServerError {
  override readonly name = 'TextTooLongError';

  constructor(
    readonly field: string,
    readonly maxChars: number,
    message = tooLongWords(field, maxChars),
  ) {
    super(ServerErrorCode.TEXT_TOO_LONG, message);
  }
}

/**
 * The database cannot be reached: no server listens where the URL says, the host is not known, the
 * connection was refused or cut (issue 18). Its message says why in words; `code` keeps the cause's
 * (ECONNREFUSED, ENOENT, or PostgreSQL's SQLSTATE) for operators, whichever engine it is. Not a
 * ServerError: the answers it causes carry SERVER_DATABASE_UNREACHABLE (storage-fault.ts).
 */
export class DatabaseUnreachableError extends Error {
  override readonly name = 'DatabaseUnreachableError';
  readonly code: string | undefined;

  constructor(message: string, options: { cause: unknown; code: string | undefined }) {
    super(message, { cause: options.cause });
    this.code = options.code;
  }
}

export const badRequest = (problems: string | readonly (string | Problem)[]): ServerError =>
  new ServerError(ServerErrorCode.BAD_REQUEST, problems);
export const notAuthorized = (problem: string): ServerError =>
  new ServerError(ServerErrorCode.NOT_AUTHORIZED, problem);
export const forbidden = (problem: string): ServerError =>
  new ServerError(ServerErrorCode.FORBIDDEN, problem);
export const notFound = (problem: string): ServerError => new ServerError(ServerErrorCode.NOT_FOUND, problem);
export const unprocessable = (problems: readonly (string | Problem)[]): ServerError =>
  new ServerError(ServerErrorCode.UNPROCESSABLE, problems);

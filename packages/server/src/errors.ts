/**
 * The server's error catalogue: handlers throw ApiError with the status and every problem found;
 * each interface formats it its own way (v1 `{"errors": [...]}`, legacy `{"error": "..."}`, OAuth's
 * RFC 6749 body, pages as HTML).
 */

export const ApiErrorCode = {
  BAD_REQUEST: 'bad_request',
  NOT_AUTHORIZED: 'not_authorized',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNPROCESSABLE: 'unprocessable',
  TOO_MANY_REQUESTS: 'too_many_requests',
  /** the disk is full: nothing could be stored (disk-full.ts) */
  INSUFFICIENT_STORAGE: 'insufficient_storage',
  /** the database cannot be reached for now (storage-fault.ts) */
  SERVICE_UNAVAILABLE: 'service_unavailable',
} as const;

export type ApiErrorCode = (typeof ApiErrorCode)[keyof typeof ApiErrorCode];

/**
 * Why an upload task failed, when it is not the parser's verdict on the file (issue 16): the task's
 * `error_code` for programs, beside its message in words. A file the parser rejects fails with the
 * parser's own code (a RideFileErrorCode such as RIDEFILE_MALFORMED).
 */
export const UploadErrorCode = {
  /** the parser crashed on the file, every attempt */
  PARSER_CRASHED: 'UPLOAD_PARSER_CRASHED',
  /** the parser took longer than the time limit on the file, every attempt */
  PARSER_TIMEOUT: 'UPLOAD_PARSER_TIMEOUT',
  /** the server stopped while reading the file, every attempt */
  INTERRUPTED: 'UPLOAD_INTERRUPTED',
  /** the uploaded bytes were no longer stored */
  LOST: 'UPLOAD_LOST',
  /** the file was read, but storing its rides failed on the server, every attempt (issue 20) */
  STORE_FAILED: 'UPLOAD_STORE_FAILED',
} as const;

export type UploadErrorCode = (typeof UploadErrorCode)[keyof typeof UploadErrorCode];

/**
 * Why a data directory cannot be served or opened (issue 17, "One server per data directory"): the
 * error's `code` for programs, its message a sentence that says what to do.
 */
export const DataDirectoryErrorCode = {
  /** another process holds the directory's lock: a server runs on it already */
  IN_USE: 'DATA_DIRECTORY_IN_USE',
  /** the directory itself cannot be used: not a folder, not writable, a lock file that is not ours */
  UNUSABLE: 'DATA_DIRECTORY_UNUSABLE',
  /** no database, though the directory holds other state (db/database-state.ts) */
  DATABASE_MISSING: 'DATABASE_MISSING',
  /** an empty database, though the directory holds other state */
  DATABASE_EMPTY: 'DATABASE_EMPTY',
  /** a database file that cannot be read as Rideport's: not SQLite, damaged, another program's, no permission */
  DATABASE_UNREADABLE: 'DATABASE_UNREADABLE',
} as const;

export type DataDirectoryErrorCode = (typeof DataDirectoryErrorCode)[keyof typeof DataDirectoryErrorCode];

export class DataDirectoryError extends Error {
  override readonly name = 'DataDirectoryError';
  readonly code: DataDirectoryErrorCode;

  constructor(code: DataDirectoryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * A record the store would not write because one like it exists already (an email taken), said in
 * words; whichever engine refused it (issue 18: no engine's error codes outside the data layer).
 */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
}

/**
 * The database cannot be reached: no server listens where the URL says, the host is not known, the
 * connection was refused or cut (issue 18). Its message says why in words; `code` keeps the cause's
 * (ECONNREFUSED, ENOENT, or PostgreSQL's SQLSTATE) for programs. Whichever engine it is.
 */
export class DatabaseUnreachableError extends Error {
  override readonly name = 'DatabaseUnreachableError';
  readonly code: string | undefined;

  constructor(message: string, options: { cause: unknown; code: string | undefined }) {
    super(message, { cause: options.cause });
    this.code = options.code;
  }
}

const STATUS: Record<ApiErrorCode, number> = {
  bad_request: 400,
  not_authorized: 401,
  forbidden: 403,
  not_found: 404,
  payload_too_large: 413,
  unprocessable: 422,
  too_many_requests: 429,
  insufficient_storage: 507,
  service_unavailable: 503,
};

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ApiErrorCode;
  readonly statusCode: number;
  /** one string per problem (a 422 lists every missing field) */
  readonly problems: string[];
  /** seconds, for 429 and 503 answers */
  readonly retryAfterSeconds: number | null;

  constructor(code: ApiErrorCode, problems: string | string[], options: { retryAfterSeconds?: number } = {}) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.join('; '));
    this.code = code;
    this.statusCode = STATUS[code];
    this.problems = list;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }
}

export const badRequest = (problems: string | string[]): ApiError =>
  new ApiError(ApiErrorCode.BAD_REQUEST, problems);
export const notAuthorized = (problem: string): ApiError =>
  new ApiError(ApiErrorCode.NOT_AUTHORIZED, problem);
export const forbidden = (problem: string): ApiError => new ApiError(ApiErrorCode.FORBIDDEN, problem);
export const notFound = (problem: string): ApiError => new ApiError(ApiErrorCode.NOT_FOUND, problem);
export const unprocessable = (problems: string[]): ApiError =>
  new ApiError(ApiErrorCode.UNPROCESSABLE, problems);

/**
 * Whether `error` or an error it wraps passes `test`: its `cause`, or the `inner` error of the OAuth
 * library's ServerError (oauth/token.ts), a few levels deep.
 */
export function someCause(error: unknown, test: (error: object) => boolean): boolean {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if (test(current)) return true;
    const { cause, inner } = current as { cause?: unknown; inner?: unknown };
    current = cause ?? inner;
  }
  return false;
}

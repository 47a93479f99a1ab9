/**
 * The error catalogue of the `rideport` command and the one-line error format of docs/contributors/architecture.md
 * ("Errors go to stderr as one line `rideport: <what>: <CODE>: <message>`"). Library errors keep
 * their own codes (`RIDEFILE_*`), file-system errors their Node codes (`ENOENT`, …).
 */
import { dirname } from 'node:path';
import { isRideFileError } from '@rideport/ridefile';

export const CliErrorCode = {
  /** bad usage; printed as `rideport: usage: <message>` without the code */
  USAGE: 'RIDEPORT_USAGE',
  /** an unexpected failure inside the command; always a bug in rideport */
  INTERNAL: 'RIDEPORT_INTERNAL',
  /** `admin`: the named account or client does not exist */
  NOT_FOUND: 'RIDEPORT_NOT_FOUND',
  /** `admin`: the account or membership exists already */
  CONFLICT: 'RIDEPORT_CONFLICT',
  /** `admin sign-in-link`: no server runs on the data directory to sign in to */
  NOT_RUNNING: 'RIDEPORT_NOT_RUNNING',
  /** `serve`/`up`: the address is taken or cannot be used */
  LISTEN: 'RIDEPORT_LISTEN',
  /** `sync --once`: a folder named on the command line does not exist or is not a folder; nothing was uploaded */
  NO_FOLDER: 'RIDEPORT_NO_FOLDER',
  /** `sync --once`: rides failed in this run (the lines above say why) */
  RIDES_FAILED: 'RIDEPORT_RIDES_FAILED',
  /** `sync --once`: rides still queued after their attempts (the server answered with a passing error) */
  NOT_UPLOADED: 'RIDEPORT_NOT_UPLOADED',
  /** `sync --once`: files not complete yet (being written, or cut off for less than 2 minutes) */
  NOT_COMPLETE: 'RIDEPORT_NOT_COMPLETE',
  /** `sync --once`: the server refused the credentials; rides wait for a new sign-in */
  SIGN_IN: 'RIDEPORT_SIGN_IN',
  /** `sync --once`: the server could not be reached; rides wait in the inbox */
  UNREACHABLE: 'RIDEPORT_UNREACHABLE',
  /** `sync --once`: the server's disk is full (507, issue 17); rides wait in the inbox */
  SERVER_FULL: 'RIDEPORT_SERVER_FULL',
  /** `sync --once`: this computer's disk is full (issue 17): the ledger or inbox cannot be written */
  DISK_FULL: 'RIDEPORT_DISK_FULL',
  /** `up`, `serve`, `worker`, `admin`: @rideport/host, which brings the server, is not installed (issue 35) */
  NOT_INSTALLED: 'RIDEPORT_NOT_INSTALLED',
} as const;

export type CliErrorCode = (typeof CliErrorCode)[keyof typeof CliErrorCode];

/** Bad usage: the command line itself is wrong (exit status 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = CliErrorCode.USAGE;
}

/** A file-system failure reworded to name the file the user asked for (e.g. not a temporary file). */
export class FileError extends Error {
  override readonly name = 'FileError';
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** A failure of ours with a stable code from CliErrorCode (e.g. an admin command naming an unknown email). */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly code: CliErrorCode;

  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** A failed operation (exit status 1); `what` names it in the error line, e.g. `inspect ride.fit`. */
export class OperationError extends Error {
  override readonly name = 'OperationError';
  readonly what: string;
  readonly code: string;

  constructor(what: string, cause: unknown) {
    const { code, message } = describeFailure(cause);
    super(message, { cause });
    this.what = what;
    this.code = code;
  }
}

interface SystemError extends Error {
  code: string;
  syscall?: string;
  path?: string;
}

function isSystemError(error: unknown): error is SystemError {
  return error instanceof Error && typeof (error as Partial<SystemError>).code === 'string';
}

/** The stable code and the message of any failure. */
export function describeFailure(error: unknown): { code: string; message: string } {
  if (isRideFileError(error)) return { code: error.code, message: error.message };
  if (isSystemError(error)) return { code: error.code, message: systemErrorWords(error) };
  const message = error instanceof Error ? error.message : String(error);
  return { code: CliErrorCode.INTERNAL, message };
}

/**
 * A file-system failure of reading `path` in plain words (issue 20: "ENOENT: no such file or
 * directory, open '/x'" became "/x does not exist"); the code stays in the error line for programs.
 */
const READ_WORDS: Readonly<Record<string, (path: string) => string>> = {
  ENOENT: (path) => `${path} does not exist`,
  EISDIR: (path) => `${path} is a folder, not a file`,
  ENOTDIR: (path) => `${path} cannot be there: a part of its path is a file, not a folder`,
  EACCES: (path) => `you have no permission to read ${path}`,
  EPERM: (path) => `you have no permission to read ${path}`,
};

function systemErrorWords(error: SystemError): string {
  const words = READ_WORDS[error.code];
  return words !== undefined && error.path !== undefined ? words(error.path) : withoutCodePrefix(error);
}

/** Why a file could not be written to `path`, in plain words (atomic-write.ts). */
export function writeFailureWords(error: unknown, path: string): string {
  const code = isSystemError(error) ? error.code : '';
  const folder = dirname(path);
  if (code === 'ENOENT') return `cannot write ${path}: the folder ${folder} does not exist`;
  if (code === 'EISDIR') return `cannot write ${path}: it is a folder`;
  if (code === 'ENOTDIR') return `cannot write ${path}: a part of its path is a file, not a folder`;
  if (code === 'EACCES' || code === 'EPERM')
    return `cannot write ${path}: you have no permission to write in ${folder}`;
  return `cannot write ${path}: ${systemErrorReason(error)}`;
}

/** Node's "ENOENT: no such file or directory, open '/x'" without the code the error line already shows. */
function withoutCodePrefix(error: SystemError): string {
  const prefix = `${error.code}: `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

/**
 * Node's reason alone ("no such file or directory"), without the code prefix and the syscall and
 * path suffix, so a message can name a different path than the one the syscall saw.
 */
export function systemErrorReason(error: unknown): string {
  if (!isSystemError(error)) return error instanceof Error ? error.message : String(error);
  const message = withoutCodePrefix(error);
  const suffix = error.syscall === undefined ? -1 : message.indexOf(`, ${error.syscall}`);
  return suffix > 0 ? message.slice(0, suffix) : message;
}

/** One line, whatever the message holds: the error line must stay one line for scripts. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

export function failureLine(what: string, code: string, message: string): string {
  return `rideport: ${oneLine(what)}: ${code}: ${oneLine(message)}\n`;
}

export function usageLine(message: string): string {
  return `rideport: usage: ${oneLine(message)}\n`;
}

/**
 * Faults of the server's storage that pass by themselves, answered in words instead of "internal
 * server error" (issue 17, "Faults said in words"; issue 18): a full disk is 507 (disk-full.ts), a
 * database that cannot be reached for now is 503 Service Unavailable with Retry-After (RFC 9110
 * §15.6.4: "temporarily unable to handle the request"). The cause's details (host, port) stay in the
 * server's log: a client is told what it can act on, when to try again.
 */
import { someCause } from '@rideport/files';
import type { FastifyBaseLogger } from 'fastify';
import { diskFullError, isDiskFull } from './disk-full.js';
import { ServerError, ServerErrorCode, DatabaseUnreachableError } from './errors.js';

export const DATABASE_UNREACHABLE_PROBLEM =
  'the server cannot reach its database just now; try again in a few seconds';

/** Seconds a client is asked to wait while the database cannot be reached. */
export const DATABASE_UNREACHABLE_RETRY_SECONDS = 5;

/** Whether `error`, or an error it wraps (`someCause`), says the database is out of reach. */
export function isDatabaseUnreachable(error: unknown): boolean {
  return someCause(error, (cause) => cause instanceof DatabaseUnreachableError);
}

/** The answer for a storage fault (507 or 503); null for any other error. */
export function storageFaultError(error: unknown): ServerError | null {
  if (isDatabaseUnreachable(error)) {
    return new ServerError(ServerErrorCode.DATABASE_UNREACHABLE, DATABASE_UNREACHABLE_PROBLEM, {
      retryAfterSeconds: DATABASE_UNREACHABLE_RETRY_SECONDS,
    });
  }
  return diskFullError(error);
}

/** A fault of the storage that passes by itself, during which the upload queue waits (queue/queue.ts). */
export type StorageFault = 'disk full' | 'database unreachable';

/** Which passing storage fault `error` is, if it is one. */
export function passingStorageFault(error: unknown): StorageFault | null {
  if (isDiskFull(error)) return 'disk full';
  if (isDatabaseUnreachable(error)) return 'database unreachable';
  return null;
}

/** What a part of the server says when a storage fault begins and when it has passed. */
export type FaultWords = Record<StorageFault, { began: string; passed: string }>;

/**
 * The words every part that waits out a storage fault says (the upload queue, the webhook dispatcher):
 * `part` names it in the log, `work` is what waits meanwhile ("uploads", "deliveries"). One table, so
 * the parts say the same fault the same way.
 */
export function faultWords(part: string, work: string): FaultWords {
  return {
    'disk full': {
      began: `${part}: the server's disk is full; ${work} wait until there is space again`,
      passed: `${part}: there is disk space again; waiting ${work} go on`,
    },
    'database unreachable': {
      began: `${part}: the database cannot be reached; ${work} wait until it can`,
      passed: `${part}: the database can be reached again; waiting ${work} go on`,
    },
  };
}

/**
 * A storage fault said once when it begins (a warning) and once when it has passed, however often the
 * work that meets it is tried meanwhile: a poll that fails every second during an outage is not an
 * error per poll (issue 18). Call `failed` with what a try threw (false: not a storage fault, for the
 * caller to report; pass `fault` when the caller has classified the error already) and `succeeded` after
 * a try that reached the storage.
 */
export class StorageFaultNotice {
  readonly #log: Pick<FastifyBaseLogger, 'warn' | 'info'>;
  readonly #words: FaultWords;
  #current: StorageFault | null = null;

  constructor(log: Pick<FastifyBaseLogger, 'warn' | 'info'>, words: FaultWords) {
    this.#log = log;
    this.#words = words;
  }

  failed(error: unknown, fault: StorageFault | null = passingStorageFault(error)): boolean {
    if (fault === null) return false;
    if (this.#current !== fault) this.#log.warn({ err: error }, this.#words[fault].began);
    this.#current = fault;
    return true;
  }

  succeeded(): void {
    if (this.#current === null) return;
    this.#log.info(this.#words[this.#current].passed);
    this.#current = null;
  }
}

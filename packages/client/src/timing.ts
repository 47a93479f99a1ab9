/**
 * Waiting: exponential backoff with jitter (docs/integrators/api.md, legacy endpoints rule 1: "the client polls
 * the queued task status endpoint and should back off exponentially between polls"), Retry-After
 * (docs/contributors/decisions.md §7: "429 with Retry-After"), and an abortable sleep. Pure functions of their inputs, so
 * the schedules are tested without a clock.
 */
import { ClientError, ClientErrorCode } from './errors.js';

/** Waits `ms`, or rejects when `signal` fires: `realSleep`, or a stand-in in tests. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** How `backoffDelayMs` grows the delay between attempts (exponential, capped, with equal jitter). */
export interface BackoffOptions {
  /** the delay before the first retry or poll, before jitter, ms */
  baseMs: number;
  /** no delay is longer than this, before jitter, ms */
  capMs: number;
  /** growth per attempt; default 2 */
  factor?: number;
  /** uniform in [0, 1); default Math.random */
  random?: () => number;
}

/**
 * The delay before retry (or poll) number `attempt` (0 for the first): the capped exponential
 * min(cap, base·factor^attempt) with "equal jitter": half of it fixed, half random. The fixed half keeps
 * the first poll soon but never instant and the interval growing; the random half keeps many clients
 * that failed together from retrying in step.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions): number {
  const factor = options.factor ?? 2;
  const random = options.random ?? Math.random;
  const exponential = options.baseMs * factor ** Math.max(0, attempt);
  const capped = Math.min(options.capMs, exponential);
  const unit = Math.min(Math.max(random(), 0), 1);
  return capped / 2 + (capped / 2) * unit;
}

/**
 * A Retry-After value (RFC 9110 §10.2.3: delay-seconds, or an HTTP date) as ms from `nowMs`; null when
 * absent or unreadable. A date in the past means "now" (0).
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only the date forms: Date.parse also reads "1.5" or "-1" as dates, which a server never means here.
  if (!/[a-z]/i.test(text)) return null;
  const atMs = Date.parse(text);
  if (Number.isNaN(atMs)) return null;
  return Math.max(0, atMs - nowMs);
}

function abortedError(signal: AbortSignal): ClientError {
  return new ClientError(ClientErrorCode.ABORTED, 'the request was aborted', { cause: signal.reason });
}

/** Throws ABORTED when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw abortedError(signal);
}

/** setTimeout as a promise that rejects with ABORTED when the signal fires first. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal!));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * `sleep`, then ABORTED if the signal fired meanwhile, whatever the (injected) sleep did about it: an
 * abort is always reported the same way.
 */
export async function pause(sleep: Sleep, ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch (error) {
    throwIfAborted(signal);
    throw error;
  }
  throwIfAborted(signal);
}

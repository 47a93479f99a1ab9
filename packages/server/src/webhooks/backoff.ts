/**
 * When a failed delivery is tried again (docs/contributors/decisions.md §6: "retried with exponential backoff and jitter
 * for up to 24 hours, then marked failed").
 */
import { backoffDelayMs } from '@rideport/client';

export interface RetryPolicy {
  backoffBaseMs: number;
  backoffCapMs: number;
  giveUpAfterMs: number;
}

/**
 * The wait after failed attempt number `attempt` (1 for the first): base · 2^(attempt−1), capped, with
 * "equal jitter" (a random point in its upper half), so deliveries that failed together (a receiver
 * that went down) do not all come back at the same instant, and no retry comes much sooner than the
 * schedule says. The dispatcher is an HTTP client of the integrators' receivers: it waits on the
 * client's schedule (@rideport/client's backoffDelayMs, issue 35), in whole milliseconds.
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  return Math.round(
    backoffDelayMs(attempt - 1, { baseMs: policy.backoffBaseMs, capMs: policy.backoffCapMs, random }),
  );
}

/**
 * After failed attempt `attempt` at `nowMs` of a delivery whose oldest change was at `oldestChangeMs`:
 * the time of the next attempt, or null when the delivery is to be marked failed. The last retry is
 * made at the deadline itself (24 hours after the oldest change), so the give-up age is used in full.
 */
export function nextAttemptAt(
  attempt: number,
  nowMs: number,
  oldestChangeMs: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | null {
  const deadline = oldestChangeMs + policy.giveUpAfterMs;
  if (nowMs >= deadline) return null;
  return Math.min(nowMs + retryDelayMs(attempt, policy, random), deadline);
}

/**
 * Uploading one ride from the inbox and recording the outcome (docs/contributors/architecture.md, "Sync engine": "upload from
 * the inbox, record the outcome"; issue 6: 401 → needs sign-in, server unreachable → offline with
 * backoff, a file the server rejects → failed and not retried until asked; issue 17: the server's disk
 * is full → every upload waits, with backoff, and no ride fails for it).
 */
import {
  backoffDelayMs,
  ClientError,
  ClientErrorCode,
  type RideUpload,
  type UploadedRide,
  type UploadRideOptions,
} from '@rideport/client';
import { rideExternalId } from './external-id.js';
import type { Inbox } from './inbox.js';
import type { Ledger, RideRow } from './ledger.js';

/** What the engine needs of @rideport/client's RideportClient (tests pass fakes). */
export interface RideUploader {
  uploadRide(upload: RideUpload, options?: UploadRideOptions): Promise<UploadedRide>;
}

export type UploadVerdict =
  | { kind: 'synced' }
  | { kind: 'failed' }
  /** a retryable failure of this ride; it is due again later */
  | { kind: 'postponed' }
  /** uploads must stop for now: nothing will get through until the cause is gone */
  | {
      kind: 'stop';
      cause: 'needs-sign-in' | 'offline' | 'server-full' | 'disk-full';
      message: string;
      retryAfterMs: number | null;
    };

/**
 * Backoff of a ride whose upload failed in a retryable way: 2 s doubling to at most 10 minutes, on the
 * client's schedule (issue 35), whose jitter waits between half and all of that: the desktops that
 * failed together when a server went away do not all come back to it at the same instant.
 */
export function rideBackoffMs(attempts: number, random: () => number = Math.random): number {
  return Math.round(backoffDelayMs(attempts, { baseMs: 2_000, capMs: 600_000, random }));
}

export async function uploadRide(
  ride: RideRow,
  uploader: RideUploader,
  ledger: Ledger,
  inbox: Inbox,
  nowMs: () => number,
  signal: AbortSignal,
): Promise<UploadVerdict> {
  const bytes = await inbox.read(ride.inboxName);
  if (bytes === null) {
    ledger.markFailed(ride.sha256, 'the copy in the inbox is missing; sync the device again', nowMs());
    return { kind: 'failed' };
  }
  ledger.markUploading(ride.sha256, nowMs());
  try {
    const uploaded = await uploader.uploadRide(
      { bytes, filename: ride.filename, externalId: rideExternalId(ride) },
      { signal },
    );
    ledger.markSynced(
      ride.sha256,
      {
        message: uploaded.message,
        tripIds: uploaded.trips.map((trip) => trip.id),
        routeIds: uploaded.routes.map((route) => route.id),
        // issue 16: the same recording in other bytes is a duplicate of the trip it is, and synced.
        duplicate: uploaded.outcome === 'duplicate',
      },
      nowMs(),
    );
    await inbox.remove(ride.inboxName);
    return { kind: 'synced' };
  } catch (error) {
    return judgeFailure(ride, error, ledger, nowMs());
  }
}

function judgeFailure(ride: RideRow, error: unknown, ledger: Ledger, nowMs: number): UploadVerdict {
  if (!(error instanceof ClientError)) {
    // Not the server's judgement (a bug or a local failure): keep the ride and try again later.
    const message = error instanceof Error ? error.message : String(error);
    ledger.postpone(ride.sha256, message, nowMs + rideBackoffMs(ride.attempts), true, nowMs);
    return { kind: 'postponed' };
  }
  const message = error.serverMessages.length > 0 ? error.serverMessages.join('; ') : error.message;
  switch (error.code) {
    case ClientErrorCode.UNAUTHORIZED:
      ledger.postpone(ride.sha256, 'waiting for sign-in', nowMs, false, nowMs);
      return { kind: 'stop', cause: 'needs-sign-in', message, retryAfterMs: null };
    case ClientErrorCode.UNREACHABLE:
      ledger.postpone(ride.sha256, 'waiting for the server', nowMs, false, nowMs);
      return { kind: 'stop', cause: 'offline', message, retryAfterMs: null };
    case ClientErrorCode.SERVER_FULL:
      // Not this ride's fault, and no other ride would get through now either.
      ledger.postpone(ride.sha256, 'waiting for disk space on the server', nowMs, false, nowMs);
      return { kind: 'stop', cause: 'server-full', message, retryAfterMs: null };
    case ClientErrorCode.ABORTED:
      ledger.postpone(ride.sha256, 'interrupted', nowMs, false, nowMs);
      return { kind: 'postponed' };
    case ClientErrorCode.RATE_LIMITED:
      ledger.postpone(
        ride.sha256,
        message,
        nowMs + (error.retryAfterMs ?? rideBackoffMs(ride.attempts)),
        true,
        nowMs,
      );
      return { kind: 'postponed' };
    case ClientErrorCode.SERVER:
      // A 503 says when to ask again (the server's database out of reach, issue 18): then, rather than
      // after the ride's own backoff, which grows while the outage lasts. Still an attempt, so that
      // `sync --once` ends.
      ledger.postpone(
        ride.sha256,
        message,
        nowMs + ((error.status === 503 ? error.retryAfterMs : null) ?? rideBackoffMs(ride.attempts)),
        true,
        nowMs,
      );
      return { kind: 'postponed' };
    case ClientErrorCode.TIMEOUT:
    case ClientErrorCode.BAD_RESPONSE:
      ledger.postpone(ride.sha256, message, nowMs + rideBackoffMs(ride.attempts), true, nowMs);
      return { kind: 'postponed' };
    default:
      // REJECTED (the file is unreadable, too large, …), FORBIDDEN, NOT_FOUND: the server has judged
      // this file; asking again gets the same answer until the user says otherwise.
      ledger.markFailed(ride.sha256, message, nowMs, error.serverCode);
      return { kind: 'failed' };
  }
}

/**
 * Ride files and a fake uploader for the engine's tests: real files in real temporary folders; only
 * the server is replaced (the end-to-end tests in test/ use the real one).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ClientError, ClientErrorCode, type RideUpload, type UploadedRide } from '@rideport/client';
import { sha256Of } from '../inbox.js';
import type { RideUploader } from '../upload.js';

/** A small, complete GPX ride; `seed` makes its bytes (and so its SHA-256) unique. */
export function gpxRide(seed: number, points = 5): string {
  const start = Date.UTC(2026, 0, 1) / 1000 + seed * 3600;
  const trkpts = Array.from({ length: points }, (_, i) => {
    const time = new Date((start + i) * 1000).toISOString().replace('.000', '');
    return `<trkpt lat="${(47 + seed * 0.001 + i * 0.0001).toFixed(6)}" lon="8.5"><ele>400</ele><time>${time}</time></trkpt>`;
  }).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Ride ${seed}</name><trkseg>${trkpts}</trkseg></trk></gpx>\n`;
}

export interface TempFolder {
  path: string;
  write(relativePath: string, content: string | Uint8Array): string;
  remove(): void;
}

export function tempFolder(prefix = 'rideport-sync-'): TempFolder {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    write(relativePath, content) {
      const target = join(path, relativePath);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
      return target;
    },
    remove() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

export type FakeAnswer = 'created' | ClientError;

/**
 * Answers uploads like the server would: a new content becomes trip N, repeated content a duplicate
 * of it. `next` lets a test make the following uploads fail in a chosen way.
 */
export class FakeUploader implements RideUploader {
  readonly uploads: { filename: string; sha256: string }[] = [];
  readonly #trips = new Map<string, number>();
  #failures: ClientError[] = [];
  #failAlways: ClientError | null = null;
  rejectNames = new Set<string>();
  /**
   * Files by name that the server finds to be a recording it has already (issue 16: a `.fit.gz` of a
   * synced `.fit`, an export): their upload ends as a duplicate of this trip, whatever their bytes.
   */
  sameRecordingAs = new Map<string, number>();

  /** the next uploads fail with these errors, one each */
  failNext(...errors: ClientError[]): void {
    this.#failures.push(...errors);
  }

  /** every upload fails with `error` until called with null */
  failAlways(error: ClientError | null): void {
    this.#failAlways = error;
  }

  uploadRide(upload: RideUpload): Promise<UploadedRide> {
    const sha256 = sha256Of(upload.bytes);
    const failure = this.#failAlways ?? this.#failures.shift();
    if (failure !== undefined) return Promise.reject(failure);
    this.uploads.push({ filename: upload.filename, sha256 });
    if (this.rejectNames.has(upload.filename)) {
      return Promise.reject(
        new ClientError(ClientErrorCode.REJECTED, 'the task failed', {
          serverMessages: ['Could not read the file: not a ride file'],
          serverCode: 'RIDEFILE_MALFORMED',
          taskId: this.uploads.length,
        }),
      );
    }
    const recorded = this.sameRecordingAs.get(upload.filename);
    if (recorded !== undefined) {
      return Promise.resolve({
        taskId: this.uploads.length,
        outcome: 'duplicate',
        message: `Already on the platform as Ride ${recorded}`,
        trips: [{ id: recorded } as UploadedRide['trips'][number]],
        routes: [],
      });
    }
    const known = this.#trips.get(sha256);
    const tripId = known ?? this.#trips.size + 1;
    this.#trips.set(sha256, tripId);
    return Promise.resolve({
      taskId: this.uploads.length,
      outcome: known === undefined ? 'created' : 'duplicate',
      message: known === undefined ? 'Created 1 ride from upload' : 'Duplicate upload',
      trips: [{ id: tripId } as UploadedRide['trips'][number]],
      routes: [],
    });
  }
}

export const unauthorized = (): ClientError =>
  new ClientError(ClientErrorCode.UNAUTHORIZED, 'HTTP 401', {
    status: 401,
    serverMessages: ['log in again'],
  });
export const unreachable = (): ClientError =>
  new ClientError(ClientErrorCode.UNREACHABLE, 'connect ECONNREFUSED 127.0.0.1:9');

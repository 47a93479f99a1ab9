/**
 * Issue 22: uploadRide keeps nothing behind on the caller's signal. The sync engine passes one signal,
 * alive as long as the engine, to every upload; in Node 20, AbortSignal.any made from it left a
 * reference on it per request (upload and each status poll), about 60 bytes each, for good. Bytes of
 * heap after a forced collection are compared; nothing is timed.
 */
import { expect, it } from 'vitest';
import { legacyUploadTransport, retainedHeapBytes } from '../../../test/support/heap.js';
import { RideportClient } from './client.js';

it('keeps nothing on a long-lived signal per upload (issue 22)', async () => {
  const client = new RideportClient({
    baseUrl: 'http://rideport.invalid',
    credentials: { kind: 'auth-token', apiKey: 'key', authToken: 'token' },
    transport: legacyUploadTransport(),
    sleep: () => Promise.resolve(),
  });
  const engineLifetime = new AbortController();
  const bytes = new TextEncoder().encode('<gpx/>');
  const upload = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      await client.uploadRide({ bytes, filename: 'ride.gpx' }, { signal: engineLifetime.signal });
    }
  };
  await upload(2_000);
  const before = await retainedHeapBytes();
  const uploads = 30_000;
  await upload(uploads);
  const bytesPerUpload = ((await retainedHeapBytes()) - before) / uploads;
  // Before: about 120 bytes per upload (two requests).
  expect(bytesPerUpload, `${bytesPerUpload.toFixed(1)} bytes kept per upload`).toBeLessThan(20);
}, 120_000);

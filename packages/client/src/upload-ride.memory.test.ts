/**
 * Issue 22: uploadRide keeps nothing behind on the caller's signal. The sync engine passes one signal,
 * alive as long as the engine, to every upload; in Node 20, AbortSignal.any made from it left a
 * reference on it per request (upload and each status poll), about 60 bytes each, for good. Bytes of
 * heap after a forced collection are compared; nothing is timed.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { RideportClient } from './client.js';
import type { Transport, TransportResponse } from './transport.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap still reachable after full collections (and the finalizers they let run). */
async function retainedHeapBytes(): Promise<number> {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return process.memoryUsage().heapUsed;
}

const json = (body: unknown): TransportResponse => ({
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: new TextEncoder().encode(JSON.stringify(body)),
});

/** Accepts every upload and answers its first status poll with the trip; keeps nothing. */
const server: Transport = {
  request(request) {
    const url = new URL(request.url);
    if (request.method === 'POST') return Promise.resolve(json({ success: 1, task_id: 7 }));
    const at = new Date(0).toISOString();
    return Promise.resolve(
      json({
        queued_tasks: [
          {
            id: Number(url.searchParams.get('ids')),
            status: 1,
            message: 'Created 1 ride from upload',
            response_code: 'success',
            progress: 100,
            created_at: at,
            updated_at: at,
            user_id: 1,
            associated_objects: [{ type: 'trip', trip: { id: 41 } }],
          },
        ],
      }),
    );
  },
  close: () => Promise.resolve(),
};

it('keeps nothing on a long-lived signal per upload (issue 22)', async () => {
  const client = new RideportClient({
    baseUrl: 'http://rideport.invalid',
    credentials: { kind: 'auth-token', apiKey: 'key', authToken: 'token' },
    transport: server,
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

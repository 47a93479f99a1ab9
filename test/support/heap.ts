/**
 * Memory measured without timing anything (issue 22): the heap still reachable after full collections,
 * and a transport that answers the client's uploads as the server's legacy API does while keeping
 * nothing, so that what a test measures is the code under test.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Transport, TransportResponse } from '@rideport/client';

/** The heap still reachable after full collections (and the finalizers they let run); no flag needed. */
export async function retainedHeapBytes(): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
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

/**
 * Answers an upload (`POST /trips.json`) with a new task and a status poll with that task, ended, with
 * one trip of the same id (docs/contributors/decisions.md §5); keeps nothing per upload but a counter.
 */
export function legacyUploadTransport(): Transport {
  let tasks = 0;
  return {
    request(request) {
      const url = new URL(request.url);
      if (request.method === 'POST' && url.pathname === '/trips.json') {
        return Promise.resolve(json({ success: 1, task_id: ++tasks }));
      }
      if (url.pathname === '/queued_tasks/status.json') {
        const id = Number(url.searchParams.get('ids'));
        const at = new Date(0).toISOString();
        return Promise.resolve(
          json({
            queued_tasks: [
              {
                id,
                status: 1,
                message: 'Created 1 ride from upload',
                response_code: 'success',
                progress: 100,
                created_at: at,
                updated_at: at,
                user_id: 1,
                associated_objects: [{ type: 'trip', trip: { id } }],
              },
            ],
          }),
        );
      }
      return Promise.resolve({ status: 404, headers: {}, body: new Uint8Array() });
    },
    close: () => Promise.resolve(),
  };
}

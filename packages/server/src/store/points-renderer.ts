/**
 * The points' JSON at their first reading (store/assets.ts, migration 004), rendered off the main
 * thread when the track is large (issue 36, "a legal archive stalls everyone": the first reading of
 * four rides of 2,000,000 points rendered them on the main thread, and every other rider's request
 * waited seconds). A small track is rendered where it is asked for: a thread's round trip would cost
 * more than the work. The caller keeps the JSON in place of the packed form, so later readings send it
 * as it is (a track of days is not given here: store/record-body.ts). The thread starts with the first
 * large track and ends once it has had nothing to do for a while, so its memory goes back too.
 */
import type { Piscina } from 'piscina';
import { packedPointCount, packedPointsJson } from '../codec/track-points.js';
import { threadPool } from '../thread-pool.js';
import { workerScript } from '../worker-script.js';

/** Points from which a track is rendered in the thread: a few milliseconds of the main thread's time. */
export const RENDER_IN_THREAD_FROM_POINTS = 5_000;
/** How long the thread is kept with nothing to do. */
const IDLE_MS = 30_000;

export class PointsRenderer {
  #pool: Piscina<Uint8Array, Uint8Array> | null = null;

  /** `[{"x":…,"y":…,…},…]` as UTF-8 bytes, point for point what packedPointsJson renders. */
  async render(packed: Uint8Array): Promise<Buffer> {
    if (packedPointCount(packed) < RENDER_IN_THREAD_FROM_POINTS) return Buffer.from(packedPointsJson(packed));
    this.#pool ??= threadPool<Uint8Array, Uint8Array>({
      ...workerScript('render-worker', import.meta.url),
      name: 'renderPointsJson',
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: IDLE_MS,
    });
    // A copy goes to the thread: the caller's bytes may be a view of a larger buffer.
    const bytes = await this.#pool.run(packed);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async close(): Promise<void> {
    await this.#pool?.destroy();
    this.#pool = null;
  }
}

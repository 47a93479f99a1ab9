/**
 * Renders stored points as JSON the first time they are read (store/assets.ts, migration 004), off
 * the main thread when the track is large (issue 36, "a legal archive stalls everyone": the first
 * reading of four rides of 2,000,000 points rendered them on the main thread, and every other rider's
 * request waited seconds). A small track is rendered where it is asked for: a thread's round trip
 * would cost more than the work. The thread is started with the first large track and ended once it
 * has had nothing to do for a while, so its memory goes back too.
 */
import { Piscina } from 'piscina';
import { packedPointsJson } from '../codec/track-points.js';
import { workerScript } from '../worker-script.js';

/** Packed bytes from which a track is rendered in the thread: about 5,000 points or more. */
export const RENDER_IN_THREAD_FROM_BYTES = 64 * 1024;
/** How long the thread is kept with nothing to do. */
const IDLE_MS = 30_000;

export class PointsRenderer {
  #pool: Piscina<Uint8Array, string> | null = null;

  /** The points' JSON: `[{"x":…,"y":…,…},…]`. */
  async json(packed: Uint8Array): Promise<string> {
    if (packed.byteLength < RENDER_IN_THREAD_FROM_BYTES) return packedPointsJson(packed);
    this.#pool ??= new Piscina<Uint8Array, string>({
      ...workerScript('render-worker', import.meta.url),
      name: 'renderPointsJson',
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: IDLE_MS,
      recordTiming: false,
    });
    // A copy goes to the thread: the caller's bytes may be a view of a larger buffer.
    return this.#pool.run(packed);
  }

  async close(): Promise<void> {
    await this.#pool?.destroy();
    this.#pool = null;
  }
}

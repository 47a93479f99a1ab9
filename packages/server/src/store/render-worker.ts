/**
 * The thread that renders a large track's points as JSON (store/points-renderer.ts, issue 36): the
 * work is a JavaScript object per point and about 75 bytes of text per point, seconds and hundreds of
 * megabytes for the longest legal ride, which the main thread, answering every rider's requests, must
 * not spend. The text comes back as UTF-8 bytes, moved rather than copied, ready for the socket. At
 * import it only keeps the young generation small where the host asked; after a large track it
 * collects its garbage (the text as a string, the points as objects) rather than wait with it.
 */
import { move } from 'piscina';
import { packedPointsJson } from '../codec/track-points.js';
import { collectAfterLargeTask, collectOwedGarbage } from '../heap-collection.js';
import { keepYoungGenerationSmallInThisWorker } from '../young-generation.js';

keepYoungGenerationSmallInThisWorker();

export function renderPointsJson(packed: Uint8Array): Uint8Array {
  collectOwedGarbage();
  const bytes = Buffer.from(packedPointsJson(packed));
  collectAfterLargeTask(bytes.length);
  // A Buffer of its own memory (not Node's shared pool, which a large one never uses) can be moved.
  return move(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as unknown as Uint8Array;
}

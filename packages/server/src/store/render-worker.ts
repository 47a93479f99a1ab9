/**
 * The thread that renders a large track's points as JSON (store/points-renderer.ts, issue 36): the
 * work is a JavaScript object per point and a string of about 75 bytes per point, seconds and hundreds
 * of megabytes for the longest legal ride, which the main thread, answering every rider's requests,
 * must not spend. At import it only keeps the young generation small where the host asked.
 */
import { keepYoungGenerationSmallInThisWorker } from '../young-generation.js';
import { packedPointsJson } from '../codec/track-points.js';

keepYoungGenerationSmallInThisWorker();

export function renderPointsJson(packed: Uint8Array): string {
  return packedPointsJson(packed);
}

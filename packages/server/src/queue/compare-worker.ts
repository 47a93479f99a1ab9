/**
 * The points of a new ride compared with a stored trip's (one-ride.ts; same-recording.ts, rule (c)
 * and whether the new file completes the stored copy), in a worker thread of the upload queue's pool
 * (issue 36): two rides of 2,000,000 points take most of a second to compare even as columns, which
 * the main thread, answering every rider's requests, must not spend. The packed forms come here and
 * are read as columns; only the verdict goes back.
 */
import type { TrackPoint } from '@rideport/ridefile';
import { PackedPointsReader } from '../codec/track-points.js';
import type { StoredPoints } from '../store/index.js';
import { collectAfterLargeTask, collectOwedGarbage } from '../heap-collection.js';
import { keepYoungGenerationSmallInThisWorker } from '../young-generation.js';
import {
  COMPARED_KEYS,
  comparedPoints,
  comparePoints,
  completes,
  pointsAgree,
  type RecordingFacts,
} from './same-recording.js';

keepYoungGenerationSmallInThisWorker();

export interface CompareRequest {
  /** the new ride's packed points */
  incoming: Uint8Array;
  incomingFacts: RecordingFacts;
  stored: StoredPoints;
  storedFacts: RecordingFacts;
}

export interface CompareOutcome {
  /** rule (c): the points agree (pointsAgree) */
  agree: boolean;
  /** the new ride goes on where the stored copy was cut off (completes) */
  completes: boolean;
}

export function compareRecordings(request: CompareRequest): CompareOutcome {
  collectOwedGarbage();
  const incoming = new PackedPointsReader(request.incoming).columns(COMPARED_KEYS);
  // A small trip kept as JSON is made columns once here, not once by each rule.
  const stored =
    'packed' in request.stored
      ? new PackedPointsReader(request.stored.packed).columns(COMPARED_KEYS)
      : comparedPoints(JSON.parse(request.stored.json) as TrackPoint[]);
  const outcome = {
    agree: pointsAgree(comparePoints(incoming, stored)),
    completes: completes(
      { facts: request.storedFacts, points: stored },
      { facts: request.incomingFacts, points: incoming },
    ),
  };
  // The columns are garbage now: six of eight bytes a point, for each ride (heap-collection.ts).
  collectAfterLargeTask((incoming.t.length + stored.t.length) * COMPARED_KEYS.length * 8);
  return outcome;
}

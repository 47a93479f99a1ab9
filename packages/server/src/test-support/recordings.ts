/**
 * For tests that upload many real files and count what they make (the queue's durability test, the
 * sync engine end to end): which files hold only recordings none of the others holds. Since issue 16
 * the same recording in other bytes is one ride, so such tests take distinct recordings, and count
 * "every upload ends as its rides" exactly; the same recording twice is queue/one-ride's own tests'.
 */
import type { Track } from '@rideport/ridefile';
import { sameRecording, trackFacts } from '../queue/same-recording.js';
import { timeRange } from '../store/track-columns.js';

/** Whether two parsed tracks are the same recording by the server's rules (queue/same-recording.ts). */
export function sameRecordingTracks(a: Track, b: Track): boolean {
  if (a.kind !== 'ride' || b.kind !== 'ride') return false;
  const recording = (track: Track) => ({
    facts: trackFacts(track, timeRange(track.points)),
    points: track.points,
  });
  return sameRecording(recording(a), recording(b));
}

/**
 * Keeps files in order while every ride of the next one is a recording of its own: none is the same
 * recording as another ride of the file (chained copies) or of a file kept before it.
 */
export class DistinctRecordings {
  readonly #kept: Track[] = [];

  /** Whether `tracks` (one file's) bring only new recordings; if so they are kept. */
  add(tracks: readonly Track[]): boolean {
    for (const [index, track] of tracks.entries()) {
      const others = [...this.#kept, ...tracks.slice(0, index)];
      if (others.some((other) => sameRecordingTracks(track, other))) return false;
    }
    this.#kept.push(...tracks);
    return true;
  }
}

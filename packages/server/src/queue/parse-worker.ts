/**
 * The upload queue's worker thread (issue 5; design.md, "Upload queue"): parses one uploaded file with
 * @rideport/ridefile and hands back what the main thread stores, in a form that crosses threads
 * cheaply. A track's points would be cloned object by object (longer than parsing them); they come
 * back as the JSON text the store keeps (store/track-points.ts), which crosses as one string, and the
 * track itself without them. Nothing runs at import but the imports: piscina calls `parseUpload`.
 */
import { isRideFileError, parseRideFile, type Track } from '@rideport/ridefile';
import { renderPointsJson } from './points-json.js';

export interface ParseRequest {
  bytes: Uint8Array;
  /** the upload's file name, a hint for the format */
  filename: string | null;
  /** decisions.md §7: the largest file after gunzip */
  maxBytes: number;
  /** decisions.md §7: the most points in one track */
  maxPoints: number;
}

/** A track of the file: `track.points` is empty, its points are `pointsJson`. */
export interface ParsedTrack {
  track: Track;
  pointCount: number;
  pointsJson: string;
}

/** A file that was read, or the parser's verdict on one that could not be (a RideFileError). */
export type ParseOutcome = { ok: true; tracks: ParsedTrack[] } | { ok: false; code: string; message: string };

export function parseUpload(request: ParseRequest): ParseOutcome {
  const options = {
    maxBytes: request.maxBytes,
    maxPoints: request.maxPoints,
    ...(request.filename === null ? {} : { filename: request.filename }),
  };
  let tracks: Track[];
  try {
    tracks = parseRideFile(request.bytes, options).tracks;
  } catch (error) {
    // parseRideFile throws nothing else (design.md); anything else is a bug, and fails the attempt.
    if (isRideFileError(error)) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
  return {
    ok: true,
    tracks: tracks.map((track) => ({
      track: { ...track, points: [] },
      pointCount: track.points.length,
      pointsJson: renderPointsJson(track.points),
    })),
  };
}

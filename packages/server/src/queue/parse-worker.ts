/**
 * The upload queue's worker thread (issue 5; design.md, "Upload queue"): parses one uploaded file with
 * @rideport/ridefile and hands back what the main thread stores, in a form that crosses threads
 * cheaply. A track's points would be cloned object by object (longer than parsing them); they come
 * back packed (store/track-points.ts), in one ArrayBuffer per track that moves to the main thread
 * without a copy, and the track itself without them. Nothing runs at import but the imports: piscina
 * calls `parseUpload`.
 */
import { isRideFileError, parseRideFile, type Track } from '@rideport/ridefile';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { packTrackPoints } from '../store/track-points.js';

export interface ParseRequest {
  bytes: Uint8Array;
  /** the upload's file name, a hint for the format */
  filename: string | null;
  /** decisions.md §7: the largest file after gunzip */
  maxBytes: number;
  /** decisions.md §7: the most points in one track */
  maxPoints: number;
}

/** A track of the file: `track.points` is empty, its points are `packedPoints`. */
export interface ParsedTrack {
  track: Track;
  pointCount: number;
  packedPoints: Uint8Array;
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
  const parsed = tracks.map((track) => ({
    track: { ...track, points: [] },
    pointCount: track.points.length,
    packedPoints: packTrackPoints(track.points),
  }));
  // The packed buffers are transferred with the answer, not copied: piscina moves the transfer list of
  // a top-level Transferable (`move` only marks a value at the top of the answer).
  const answer = {
    [transferableSymbol]: parsed.map((track) => track.packedPoints.buffer),
    [valueSymbol]: { ok: true, tracks: parsed } satisfies ParseOutcome,
  };
  return move(answer) as unknown as ParseOutcome;
}

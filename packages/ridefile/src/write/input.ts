import type { RideFile, Track } from '../model.js';

/** What the writers accept: a whole parsed file, one track, or a list of tracks. */
export type WriteInput = RideFile | Track | readonly Track[];

/** What every writer takes beside the tracks. */
export interface WriteOptions {
  /** the program or device to name as the file's creator; default: the parsed file's creator, else "Rideport" */
  creator?: string;
}

export interface WriterInput {
  tracks: readonly Track[];
  creator: string;
}

export const DEFAULT_CREATOR = 'Rideport';

export function writerInput(input: WriteInput, options: WriteOptions): WriterInput {
  if (Array.isArray(input))
    return { tracks: input as readonly Track[], creator: options.creator ?? DEFAULT_CREATOR };
  if ('tracks' in input) {
    return { tracks: input.tracks, creator: options.creator ?? input.creator ?? DEFAULT_CREATOR };
  }
  return { tracks: [input as Track], creator: options.creator ?? DEFAULT_CREATOR };
}

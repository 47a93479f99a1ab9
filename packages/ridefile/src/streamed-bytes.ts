/**
 * A file's bytes as they are decompressed, never held whole (issue 36, "a legal archive stalls
 * everyone"): a gzipped GPX of 250 MB is read by the XML readers a piece at a time, straight from
 * gunzip's output, where gunzipping it first held all 250 MB beside the points read from it.
 */
export interface StreamedBytes {
  /** the first bytes: at least what the format is sniffed from (64 KB), or all of them when fewer */
  readonly head: Uint8Array;
  /** hands every byte, from the first, to `take` a piece at a time, keeping none; walked once */
  each(take: (piece: Uint8Array) => void): void;
}

/** What the XML readers read: the bytes whole, or as they are decompressed. */
export type FileBytes = Uint8Array | StreamedBytes;

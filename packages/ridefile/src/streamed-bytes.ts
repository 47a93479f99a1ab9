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
  /** how many bytes there will be, as far as is known beforehand (a gzip's own word): a hint only */
  readonly expectedLength?: number;
}

/** The bytes' length, or what they are expected to come to; null when unknown. */
export function expectedByteLength(bytes: FileBytes): number | null {
  return bytes instanceof Uint8Array ? bytes.length : (bytes.expectedLength ?? null);
}

/** What the XML readers read: the bytes whole, or as they are decompressed. */
export type FileBytes = Uint8Array | StreamedBytes;

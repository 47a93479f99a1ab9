/**
 * Compressed input goes to fflate's streaming inflaters (gzip.ts, zip.ts) in slices this big, so that
 * a bomb is stopped soon after its output bound: a slice of deflate data inflates to at most about
 * 1000 times its size before the output callback can refuse more.
 */
const INPUT_SLICE_BYTES = 16 * 1024;

/** Pushes `bytes` into `stream` a slice at a time, the last one marked final (an empty input too). */
export function pushInSlices(
  stream: { push(chunk: Uint8Array, final?: boolean): void },
  bytes: Uint8Array,
): void {
  if (bytes.length === 0) stream.push(bytes, true);
  for (let start = 0; start < bytes.length; start += INPUT_SLICE_BYTES) {
    const end = Math.min(start + INPUT_SLICE_BYTES, bytes.length);
    stream.push(bytes.subarray(start, end), end === bytes.length);
  }
}

/**
 * FIT CRC-16 (FIT protocol, "CRC"): CRC-16/ARC, reflected polynomial 0xA001, initial value 0.
 * Computed sixteen bytes at a time ("slicing-by-16", issue 2: speed): four aligned 32-bit reads per
 * step instead of sixteen byte reads, and one flat table of 16 × 256 entries (table k at k × 256, 8 KB,
 * within the L1 cache), so the loop keeps one table in a register instead of sixteen. About a quarter
 * fewer instructions per byte than slicing-by-4 with byte reads. `fitCrcBytewise` is the plain
 * definition, kept as the test oracle.
 */

const SLICES = 16;

const TABLE = (() => {
  const table = new Uint16Array(SLICES * 256);
  for (let n = 0; n < 256; n++) {
    let crc = n;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
    table[n] = crc;
  }
  // Table k: the CRC of byte n followed by k zero bytes.
  for (let k = 1; k < SLICES; k++) {
    for (let n = 0; n < 256; n++) {
      const previous = table[(k - 1) * 256 + n]!;
      table[k * 256 + n] = (previous >>> 8) ^ table[previous & 0xff]!;
    }
  }
  return table;
})();

/** Whether a Uint32Array reads bytes little-endian here (all platforms Node and browsers run on, in practice). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const EMPTY_WORDS = new Uint32Array(0);

export function fitCrc(bytes: Uint8Array, start: number, end: number): number {
  if (!LITTLE_ENDIAN) return fitCrcBytewise(bytes, start, end);
  const table = TABLE;
  let crc = 0;
  let i = start;
  // Byte by byte up to a 4-byte boundary of the underlying buffer, so the words can be read aligned.
  for (; i < end && ((bytes.byteOffset + i) & 3) !== 0; i++)
    crc = (crc >>> 8) ^ table[(crc ^ bytes[i]!) & 0xff]!;
  const wordCount = end - i >= 16 ? ((end - i) >> 2) & ~3 : 0;
  // (A view over no words is not made: the head loop may have stopped at `end`, unaligned.)
  const words =
    wordCount === 0 ? EMPTY_WORDS : new Uint32Array(bytes.buffer, bytes.byteOffset + i, wordCount);
  for (let w = 0; w < wordCount; w += 4) {
    const a = words[w]! ^ crc;
    const b = words[w + 1]!;
    const c = words[w + 2]!;
    const d = words[w + 3]!;
    crc =
      table[15 * 256 + (a & 0xff)]! ^
      table[14 * 256 + ((a >>> 8) & 0xff)]! ^
      table[13 * 256 + ((a >>> 16) & 0xff)]! ^
      table[12 * 256 + (a >>> 24)]! ^
      table[11 * 256 + (b & 0xff)]! ^
      table[10 * 256 + ((b >>> 8) & 0xff)]! ^
      table[9 * 256 + ((b >>> 16) & 0xff)]! ^
      table[8 * 256 + (b >>> 24)]! ^
      table[7 * 256 + (c & 0xff)]! ^
      table[6 * 256 + ((c >>> 8) & 0xff)]! ^
      table[5 * 256 + ((c >>> 16) & 0xff)]! ^
      table[4 * 256 + (c >>> 24)]! ^
      table[3 * 256 + (d & 0xff)]! ^
      table[2 * 256 + ((d >>> 8) & 0xff)]! ^
      table[256 + ((d >>> 16) & 0xff)]! ^
      table[d >>> 24]!;
  }
  for (i += wordCount * 4; i < end; i++) crc = (crc >>> 8) ^ table[(crc ^ bytes[i]!) & 0xff]!;
  return crc;
}

export function fitCrcBytewise(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ TABLE[(crc ^ bytes[i]!) & 0xff]!;
  return crc;
}

/** CRC-32 of gzip and ZIP (RFC 1952 §8, APPNOTE 4.4.7; ISO 3309: reflected polynomial 0xEDB88320). */
const CRC32_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** The CRC-32 of `bytes`, continued from `crc` (0 to start). */
export function crc32(crc: number, bytes: Uint8Array): number {
  const table = CRC32_TABLE;
  let c = ~crc;
  for (let i = 0; i < bytes.length; i++) c = (c >>> 8) ^ table[(c ^ bytes[i]!) & 0xff]!;
  return ~c >>> 0;
}

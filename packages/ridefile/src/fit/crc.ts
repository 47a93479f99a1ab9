/**
 * FIT CRC-16 (FIT protocol, "CRC"): CRC-16/ARC, reflected polynomial 0xA001, initial value 0.
 * Computed four bytes at a time with four tables ("slicing-by-4"); `fitCrcBytewise` is the plain
 * definition, kept as the test oracle.
 */

const TABLES = (() => {
  const tables = [
    new Uint16Array(256),
    new Uint16Array(256),
    new Uint16Array(256),
    new Uint16Array(256),
  ] as const;
  for (let n = 0; n < 256; n++) {
    let crc = n;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
    tables[0][n] = crc;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 4; k++) {
      const previous = tables[k - 1]![n]!;
      tables[k]![n] = (previous >>> 8) ^ tables[0][previous & 0xff]!;
    }
  }
  return tables;
})();

export function fitCrc(bytes: Uint8Array, start: number, end: number): number {
  const [t0, t1, t2, t3] = TABLES;
  let crc = 0;
  let i = start;
  for (const last = end - 3; i < last; i += 4) {
    const word = crc ^ (bytes[i]! | (bytes[i + 1]! << 8));
    crc = t3[word & 0xff]! ^ t2[word >>> 8]! ^ t1[bytes[i + 2]!]! ^ t0[bytes[i + 3]!]!;
  }
  for (; i < end; i++) crc = (crc >>> 8) ^ t0[(crc ^ bytes[i]!) & 0xff]!;
  return crc;
}

export function fitCrcBytewise(bytes: Uint8Array, start: number, end: number): number {
  const table = TABLES[0];
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ table[(crc ^ bytes[i]!) & 0xff]!;
  return crc;
}

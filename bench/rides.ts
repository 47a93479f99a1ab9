/**
 * Ride files for the upload and sync benchmarks (bench/upload.ts, bench/sync.ts): corpus rides of about
 * an hour, and copies of a FIT file with bytes of their own (the server and the sync engine recognise
 * identical bytes as a duplicate, so a benchmark of many uploads needs distinct files that still read
 * as the same ride).
 */

/** Rides of about an hour (SOURCES.md: 0.88 to 1.20 h): Garmin, Karoo and Zwift recordings. */
export const HOUR_FITS = [
  'FITfileR__garmin-fenix6-turbo.fit',
  'muktihari-fit__activity_lowbattery.fit',
  'goldencheetah__Karoo-Botley_BW_Swanmore_Wickham-2025-05-09-1238.fit',
  'fitfilefaker__zwift_20250401.fit',
  'fitfilefaker__tpv_20251120.fit',
  'gpsbabel__garmin-edge-800.fit',
];

const CRC_TABLE = Uint16Array.from({ length: 256 }, (_, n) => {
  let crc = n;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  return crc;
});

/** FIT CRC-16 (CRC-16/ARC), a byte at a time through a table. */
function fitCrc(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ CRC_TABLE[(crc ^ bytes[i]!) & 0xff]!;
  return crc;
}

/**
 * The file with its header's profile version moved by `variant` (1..65535) and both CRCs written again:
 * a valid FIT file with other bytes, so the server's duplicate check does not recognise it.
 */
export function fitVariant(original: Uint8Array, variant: number): Uint8Array {
  const bytes = Uint8Array.from(original);
  const view = new DataView(bytes.buffer);
  const headerSize = bytes[0]!;
  view.setUint16(2, (view.getUint16(2, true) + variant) % 0x10000, true);
  if (headerSize >= 14 && view.getUint16(12, true) !== 0) view.setUint16(12, fitCrc(bytes, 0, 12), true);
  view.setUint16(bytes.length - 2, fitCrc(bytes, 0, bytes.length - 2), true);
  return bytes;
}

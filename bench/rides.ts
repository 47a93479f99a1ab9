/**
 * Ride files for the upload and sync benchmarks (bench/upload.ts, bench/sync.ts): corpus rides of about
 * an hour, and copies of a FIT file with bytes of their own (the server and the sync engine recognise
 * identical bytes as a duplicate, so a benchmark of many uploads needs distinct files that still read
 * as the same ride).
 */

/**
 * Rides of about an hour (SOURCES.md: 0.88 to 1.26 h): Garmin, Stages, Karoo and Zwift recordings, each
 * with a serial number field that fitVariant can change (a Garmin Edge 1030 file without one read as
 * one recording in every copy, issue 16).
 */
export const HOUR_FITS = [
  'FITfileR__garmin-fenix6-turbo.fit',
  'fitfilefaker__activity_multiple_developer_index.fit',
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
 * The file with its header's profile version moved by `variant` (1..65535), its recording device's
 * serial number changed (file_id.serial_number, when the file has one) and both CRCs written again: a
 * valid FIT file with other bytes, so the server's duplicate check does not recognise it, and another
 * device's recording of the same ride, so its "one ride per ride" check (issue 16) does not either.
 */
export function fitVariant(original: Uint8Array, variant: number): Uint8Array {
  const bytes = Uint8Array.from(original);
  const view = new DataView(bytes.buffer);
  const headerSize = bytes[0]!;
  view.setUint16(2, (view.getUint16(2, true) + variant) % 0x10000, true);
  const serial = serialNumberOffset(bytes);
  if (serial !== null) {
    const { offset, littleEndian } = serial;
    view.setUint32(offset, (view.getUint32(offset, littleEndian) + variant) % 0xffffffff || 1, littleEndian);
  }
  if (headerSize >= 14 && view.getUint16(12, true) !== 0) view.setUint16(12, fitCrc(bytes, 0, 12), true);
  view.setUint16(bytes.length - 2, fitCrc(bytes, 0, bytes.length - 2), true);
  return bytes;
}

const FILE_ID = 0;
const SERIAL_NUMBER = 3;

/**
 * Where the first file_id message's 4-byte serial number lies, or null when the file has none before
 * its other messages (walks the record headers: definitions give each local type its field sizes).
 */
function serialNumberOffset(bytes: Uint8Array): { offset: number; littleEndian: boolean } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const layouts = new Map<
    number,
    { global: number; littleEndian: boolean; fields: number[][]; size: number }
  >();
  const end = bytes[0]! + view.getUint32(4, true);
  let at = bytes[0]!;
  while (at < end) {
    const header = bytes[at]!;
    at += 1;
    if ((header & 0x80) !== 0) {
      // Compressed timestamp header: a data message of local type 0-3.
      const layout = layouts.get((header >> 5) & 0x3);
      if (layout === undefined) return null;
      at += layout.size;
      continue;
    }
    const local = header & 0xf;
    if ((header & 0x40) !== 0) {
      const littleEndian = bytes[at + 1] === 0;
      const global = view.getUint16(at + 2, littleEndian);
      const count = bytes[at + 4]!;
      const fields = Array.from({ length: count }, (_, i) => [
        bytes[at + 5 + i * 3]!,
        bytes[at + 6 + i * 3]!,
      ]);
      at += 5 + count * 3;
      let size = fields.reduce((sum, [, fieldSize]) => sum + fieldSize!, 0);
      if ((header & 0x20) !== 0) {
        const developerCount = bytes[at]!;
        for (let i = 0; i < developerCount; i++) size += bytes[at + 2 + i * 3]!;
        at += 1 + developerCount * 3;
      }
      layouts.set(local, { global, littleEndian, fields, size });
      continue;
    }
    const layout = layouts.get(local);
    if (layout === undefined) return null;
    if (layout.global === FILE_ID) {
      let offset = at;
      for (const [field, size] of layout.fields) {
        if (field === SERIAL_NUMBER && size === 4) return { offset, littleEndian: layout.littleEndian };
        offset += size!;
      }
      return null;
    }
    at += layout.size;
  }
  return null;
}

import type { RideFileFormat } from './model.js';
import { decodeXmlPrefix } from './xml/text.js';
import { isZip } from './zip.js';
import { localName } from './xml/names.js';

/**
 * The name of a file `parseRideFile` reads, by its extension (optionally gzip-wrapped): for tools that
 * pick ride files out of a folder or an archive (the sync engine, the server's ZIP uploads; issue 20).
 * The content still decides the format.
 */
export const RIDE_FILE_EXTENSION = /\.(?:fit|tcx|gpx|kml|kmz)(?:\.gz)?$/i;

/** How far into an XML file the root element is looked for (comments and a DOCTYPE may come first). */
export const XML_SNIFF_BYTES = 64 * 1024;

const ROOT_ELEMENT_FORMATS: Record<string, RideFileFormat> = {
  gpx: 'gpx',
  trainingcenterdatabase: 'tcx',
  kml: 'kml',
};

const EXTENSION_FORMATS: Record<string, RideFileFormat> = {
  fit: 'fit',
  gpx: 'gpx',
  tcx: 'tcx',
  kml: 'kml',
};

/**
 * The format of (already gunzipped) bytes, from their content; `filename` only breaks a tie. Any ZIP
 * archive is taken for a KMZ, whose reader says so when it holds no KML (kmz.ts).
 */
export function sniffFormat(bytes: Uint8Array, filename?: string): RideFileFormat | null {
  if (looksLikeFit(bytes)) return 'fit';
  if (isZip(bytes)) return 'kmz';
  const root = xmlRootElement(bytes);
  if (root !== null) {
    const byRoot = ROOT_ELEMENT_FORMATS[localName(root).toLowerCase()];
    if (byRoot !== undefined) return byRoot;
  }
  // XML whose root we could not see in the prefix (a huge comment or DOCTYPE): trust the name.
  const hinted = formatFromFilename(filename);
  if (hinted !== null && hinted !== 'fit' && root === null && looksLikeXml(bytes)) return hinted;
  return null;
}

/** A FIT file header: size 12 or 14, then ".FIT" at offset 8 (FIT protocol, "File Header"). */
export function looksLikeFit(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 12 &&
    (bytes[0] === 12 || bytes[0] === 14) &&
    bytes[8] === 0x2e &&
    bytes[9] === 0x46 &&
    bytes[10] === 0x49 &&
    bytes[11] === 0x54
  );
}

export function formatFromFilename(filename: string | undefined): RideFileFormat | null {
  if (filename === undefined) return null;
  const match = /\.([a-z]+)(?:\.gz)?$/i.exec(filename);
  return match === null ? null : (EXTENSION_FORMATS[match[1]!.toLowerCase()] ?? null);
}

function looksLikeXml(bytes: Uint8Array): boolean {
  return /^\s*</.test(decodeXmlPrefix(bytes, 256));
}

/** The qualified name of the first element, skipping the declaration, comments, PIs and a DOCTYPE. */
function xmlRootElement(bytes: Uint8Array): string | null {
  const text = decodeXmlPrefix(bytes, XML_SNIFF_BYTES);
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return null;
    if (text.startsWith('<?', lt)) {
      i = skipPast(text, lt, '?>');
    } else if (text.startsWith('<!--', lt)) {
      i = skipPast(text, lt, '-->');
    } else if (text.startsWith('<!', lt)) {
      i = skipDoctype(text, lt);
    } else {
      const match = /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(lt, lt + 200));
      return match?.[1] ?? null;
    }
    if (i < 0) return null;
  }
  return null;
}

function skipPast(text: string, from: number, terminator: string): number {
  const end = text.indexOf(terminator, from);
  return end < 0 ? -1 : end + terminator.length;
}

/** A DOCTYPE may hold an internal subset in brackets, itself holding `>` characters. */
function skipDoctype(text: string, from: number): number {
  const bracket = text.indexOf('[', from);
  const close = text.indexOf('>', from);
  if (close < 0) return -1;
  if (bracket >= 0 && bracket < close) {
    const subsetEnd = text.indexOf(']', bracket);
    return subsetEnd < 0 ? -1 : skipPast(text, subsetEnd, '>');
  }
  return close + 1;
}

/**
 * KMZ (issue 20: OpenTracks and Google Earth export them): a ZIP archive holding one KML document and
 * the files it refers to (images, models). The document is `doc.kml` at the top of the archive, else
 * the first `.kml` at the top, else the first `.kml` anywhere (Google's KMZ rules: "the first .kml file
 * at root level"); it is read by the KML reader. The other files are not opened.
 */
import type { ReaderOptions, ReaderResult } from './draft.js';
import { RideFileError, RideFileErrorCode } from './errors.js';
import { DEFAULT_MAX_BYTES } from './gzip.js';
import { readKml } from './xml/kml.js';
import { quotedName, readZipEntries, unzipEntry, type ZipEntry } from './zip.js';

/** The archive's KML document, or undefined when it holds none. */
export function kmzDocument(entries: readonly ZipEntry[]): ZipEntry | undefined {
  const kml = entries.filter((entry) => !entry.directory && /\.kml$/i.test(entry.name));
  const atTop = kml.filter((entry) => !entry.name.includes('/'));
  return atTop.find((entry) => entry.name.toLowerCase() === 'doc.kml') ?? atTop[0] ?? kml[0];
}

/** Reads a KMZ: its KML document, decompressed within `maxBytes`, through the KML reader. */
export function readKmz(bytes: Uint8Array, options: ReaderOptions): ReaderResult {
  const entries = readZipEntries(bytes);
  const document = kmzDocument(entries);
  if (document === undefined) {
    const names = entries.filter((entry) => !entry.directory).map((entry) => entry.name);
    throw new RideFileError(
      RideFileErrorCode.UNKNOWN_FORMAT,
      `the ZIP archive holds no .kml file, so it is not a KMZ (it holds ${
        names.length === 0 ? 'no files' : describeNames(names)
      }); upload an archive of several ride files to the server, which reads each one`,
    );
  }
  return readKml(unzipEntry(bytes, document, options.maxBytes ?? DEFAULT_MAX_BYTES), options);
}

/** At most five names, then how many more: a message stays short whatever the archive holds. */
function describeNames(names: readonly string[]): string {
  const shown = names.slice(0, 5).map(quotedName).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

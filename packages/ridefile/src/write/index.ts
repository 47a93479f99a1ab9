import { csvChunks, writeCsv } from './csv.js';
import { geoJsonChunks, writeGeoJson } from './geojson.js';
import { gpxChunks, writeGpx } from './gpx.js';
import type { WriteInput, WriteOptions } from './input.js';
import { tcxChunks, writeTcx } from './tcx.js';

export { csvChunks, geoJsonChunks, gpxChunks, tcxChunks, writeCsv, writeGeoJson, writeGpx, writeTcx };
export { CSV_HEADER } from './csv.js';
export type { WriteInput, WriteOptions } from './input.js';

/** The formats the writers write. */
export type WriteFormat = 'gpx' | 'tcx' | 'geojson' | 'csv';

/** Each format's chunked writer, for callers that pick the format at run time (`rideport convert --to`). */
export const WRITERS: Readonly<
  Record<WriteFormat, (input: WriteInput, options?: WriteOptions) => Generator<string, void, undefined>>
> = {
  gpx: gpxChunks,
  tcx: tcxChunks,
  geojson: geoJsonChunks,
  csv: csvChunks,
};

/** File name extension and media type of each format. */
export const WRITE_FORMATS: Readonly<Record<WriteFormat, { extension: string; mediaType: string }>> = {
  gpx: { extension: 'gpx', mediaType: 'application/gpx+xml' },
  tcx: { extension: 'tcx', mediaType: 'application/vnd.garmin.tcx+xml' },
  geojson: { extension: 'geojson', mediaType: 'application/geo+json' },
  csv: { extension: 'csv', mediaType: 'text/csv' },
};

/**
 * A gzip bomb that reads as a ride file: a GPX whose `megabytes` of blanks inside its track compress
 * to about a thousandth of that. The readers take a gzipped GPX as it is gunzipped (issue 36), so it
 * is refused only once the gunzip limit is passed, after a worker has inflated that much; a gzip of
 * zeros is refused from its first 64 KB as no ride file at all.
 */
import { gzipSync } from 'node:zlib';

const GPX_HEAD =
  '<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>';

export function gpxGzipBomb(megabytes = 300): Buffer {
  const blanks = Buffer.alloc(megabytes * 1024 * 1024, ' ');
  blanks.write(GPX_HEAD);
  return gzipSync(blanks, { level: 9 });
}

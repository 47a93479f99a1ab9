/**
 * "Download original" (issue 20, "Original files"): the file a ride or route was read from, as its
 * owner uploaded it, with its file name and the content type of its format. Kept gzip-compressed
 * (store/original-files.ts): an upload that was a `.gz` is sent byte for byte, any other is gunzipped
 * as it streams, so the file is never held decompressed in memory; a large one is read from the
 * database a part at a time as the client takes it (store/large-values.ts).
 */
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import { attachment } from './content-disposition.js';
import type { OriginalFile } from './store/original-files.js';

/** The content type of each format the parser reads. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  fit: 'application/vnd.ant.fit',
  tcx: 'application/vnd.garmin.tcx+xml',
  gpx: 'application/gpx+xml',
  kml: 'application/vnd.google-earth.kml+xml',
  kmz: 'application/vnd.google-earth.kmz',
};

/** The original's name: as uploaded, else `<fallback>.<format>` (with `.gz` when it came gzipped). */
function originalName(file: OriginalFile, fallback: string): { stem: string; extension: string } {
  const name = file.filename ?? `${fallback}.${file.format}${file.uploadedGzip ? '.gz' : ''}`;
  const match = /^(.+?)((?:\.[A-Za-z0-9]{1,8}){1,2})$/.exec(name);
  return match === null ? { stem: name, extension: '' } : { stem: match[1]!, extension: match[2]! };
}

export function sendOriginal(reply: FastifyReply, file: OriginalFile, fallback: string): FastifyReply {
  const { stem, extension } = originalName(file, fallback);
  const contentType = file.uploadedGzip
    ? 'application/gzip'
    : Object.hasOwn(CONTENT_TYPES, file.format)
      ? CONTENT_TYPES[file.format]!
      : 'application/octet-stream';
  void reply.headers({
    'content-type': contentType,
    'content-disposition': attachment(stem, fallback, extension),
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  });
  const gzipped = Readable.from(file.gzipped, { objectMode: false });
  if (file.uploadedGzip) return reply.header('content-length', file.gzippedLength).send(gzipped);
  // An error on the way (the ride was deleted while it was sent) destroys both streams; Fastify then
  // ends the answer, cut short, rather than leaving the client waiting.
  return reply.send(
    pipeline(gzipped, createGunzip(), () => {
      // Said by the streams' own error, which Fastify sees.
    }),
  );
}

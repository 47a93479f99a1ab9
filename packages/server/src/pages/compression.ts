/**
 * The pages compressed when the browser asks (issue 40: a long ride's page was 310 KB of HTML sent as
 * it is, with gzip asked for). Fastify's compress plugin, registered in the pages' scope only: the API
 * answers as before, so the legacy clients see the bytes they always saw.
 *
 * What is compressed: HTML, CSS, JavaScript, JSON and XML (the GPX, TCX and KML downloads) of 1 KB and
 * more. Not the originals of binary formats nor gzip files, which gain little or nothing. Brotli at
 * the plugin's quality 4 (11, zlib's own default, costs many times the CPU for a few per cent).
 */
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** The content types worth compressing; text/event-stream is left alone, it must flush as it goes. */
const COMPRESSIBLE = /^text\/(?!event-stream)|javascript|(?:\+|\/)(?:json|xml)(?:;|$)/u;

export async function registerPageCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    customTypes: COMPRESSIBLE,
    encodings: ['br', 'gzip', 'deflate'],
  });
}

/**
 * "Download original" over a real socket (issue 20; issue 36: a large original is read a part at a time
 * as it is sent): the file comes back whole, gzip as it was or gunzipped as it streams; and when its
 * bytes go missing half way (the ride deleted while it is sent, store/large-values.ts), the answer
 * stops short, so that no client takes a cut file for the whole one.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendOriginal } from './original-download.js';
import type { OriginalFile } from './store/index.js';
import { LargeValueGoneError } from './store/large-values.js';

const PART = 64 * 1024;
// Random text, so that the gzip is as long as the text and several parts long.
const text = Buffer.from(randomBytes(6 * PART).toString('base64'));
const gzipped = gzipSync(text);
const partsOf = (bytes: Buffer): Buffer[] =>
  Array.from({ length: Math.ceil(bytes.length / PART) }, (_, i) => bytes.subarray(i * PART, (i + 1) * PART));

/** The parts, the value said gone after `whole` of them. */
async function* cutAfter(whole: number): AsyncGenerator<Buffer> {
  const parts = partsOf(gzipped);
  for (const [index, part] of parts.entries()) {
    if (index === whole) throw new LargeValueGoneError(1);
    await new Promise((resolve) => setImmediate(resolve));
    yield part;
  }
}

const file = (uploadedGzip: boolean, gzippedParts: OriginalFile['gzipped']): OriginalFile => ({
  filename: uploadedGzip ? 'ride.gpx.gz' : 'ride.gpx',
  format: 'gpx',
  uploadedGzip,
  byteLength: uploadedGzip ? gzipped.length : text.length,
  gzippedLength: gzipped.length,
  gzipped: gzippedParts,
});

let app: FastifyInstance;
let origin: string;
const served = new Map<string, () => OriginalFile>();

beforeAll(async () => {
  app = Fastify();
  app.get('/:name', (request, reply) => {
    const { name } = request.params as { name: string };
    return sendOriginal(reply, served.get(name)!(), 'trip-1');
  });
  origin = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app.close();
});

async function download(name: string): Promise<Buffer> {
  const answer = await request(`${origin}/${name}`);
  expect(answer.statusCode).toBe(200);
  return Buffer.from(await answer.body.arrayBuffer());
}

describe('sendOriginal', () => {
  it('sends a gzip upload as it came, and any other gunzipped, a part at a time', async () => {
    served.set('gzip', () => file(true, cutAfter(Infinity)));
    served.set('plain', () => file(false, cutAfter(Infinity)));
    served.set('in-row', () => file(false, [gzipped]));
    expect((await download('gzip')).equals(gzipped)).toBe(true);
    expect((await download('plain')).equals(text)).toBe(true);
    expect((await download('in-row')).equals(text)).toBe(true);
  });

  it('stops short when the bytes go missing half way, gzip or gunzipped', async () => {
    served.set('gzip-cut', () => file(true, cutAfter(2)));
    served.set('plain-cut', () => file(false, cutAfter(2)));
    await expect(download('gzip-cut')).rejects.toThrow();
    await expect(download('plain-cut')).rejects.toThrow();
  });
});

/**
 * A single-record response, `{"trip":{…record…,"track_points":[…points…]}}`: the stored record
 * without its closing brace, then the points' JSON as the store gives it (store/assets.ts,
 * findRecordWithPoints), never parsed and stringified again. The points come as stored bytes, or, for
 * a track of days, as their JSON rendered a slice at a time (issue 36): such a response is sent as a
 * stream that renders the next slice only once the socket has taken the last, so neither the text of
 * two million points nor their objects ever exist at once, and the main thread renders a few
 * milliseconds at a time between other riders' requests.
 */
import { Readable } from 'node:stream';
import type { AssetType } from '../db/schema.js';

/** JSON text as UTF-8 bytes, or as pieces of text rendered when they are asked for. */
export type JsonText = Buffer | Iterable<string>;

const CLOSE_RECORD_AND_ROOT = '}}';

/** The record (`{"id":…}`, its `url` included) and its points as one response's JSON. */
export function recordWithPointsJson(type: AssetType, record: string, points: JsonText): JsonText {
  const head = `{"${type}":${record.slice(0, -1)},"track_points":`;
  if (Buffer.isBuffer(points)) {
    return Buffer.concat([Buffer.from(head), points, Buffer.from(CLOSE_RECORD_AND_ROOT)]);
  }
  return spliced(head, points, CLOSE_RECORD_AND_ROOT);
}

/** `head`, the pieces of `middle`, then `tail`, each given when asked for. */
export function* spliced(
  head: string,
  middle: Iterable<string>,
  tail: string,
): Generator<string, void, undefined> {
  yield head;
  yield* middle;
  yield tail;
}

/**
 * A body for Fastify's `reply.send`: the bytes as they are, or a stream of the pieces that asks for
 * the next one only when the socket has taken the last (one piece buffered at a time), and lets the
 * event loop turn before each: a socket that takes everything at once (a reader on the same machine)
 * would otherwise have every piece rendered in one go, while other riders' requests wait.
 */
export function jsonBody(json: JsonText): Buffer | Readable {
  return Buffer.isBuffer(json) ? json : Readable.from(paced(json), { highWaterMark: 1 });
}

async function* paced(pieces: Iterable<string>): AsyncGenerator<string, void, undefined> {
  for (const piece of pieces) {
    yield piece;
    await new Promise((turned) => setImmediate(turned));
  }
}

/** Each piece of the text passed through `change` (a JSONP wrapper's escaping), when asked for. */
export function* mappedText(
  pieces: Iterable<string>,
  change: (text: string) => string,
): Generator<string, void, undefined> {
  for (const piece of pieces) yield change(piece);
}

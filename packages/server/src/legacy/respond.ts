/**
 * Legacy responses (docs/contributors/decisions.md §5): JSON, or JSONP with the `.js` extension or a `callback`
 * parameter: `/**\/<callback>(<json>);` as `application/javascript` with `nosniff`. The callback must
 * be a plain (dotted) JavaScript name of at most 128 characters: anything else is refused, so nothing
 * a caller sends can become script around the JSON.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';
import type { LegacyParams } from './params.js';
import { jsonBody, mappedText, spliced, type JsonText } from '../store/record-body.js';

const CALLBACK_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const MAX_CALLBACK_LENGTH = 128;
/** The callback of a `.js` request that names none. */
const DEFAULT_CALLBACK = 'callback';

/** How to answer: JSON (null) or JSONP with this callback. Throws 400 for an unsafe callback. */
export function jsonpCallback(request: FastifyRequest, params: LegacyParams): string | null {
  const callback = params.raw('callback');
  const script = request.url.split('?', 1)[0]!.endsWith('.js');
  if (callback === undefined || callback === '') return script ? DEFAULT_CALLBACK : null;
  if (
    typeof callback !== 'string' ||
    callback.length > MAX_CALLBACK_LENGTH ||
    !CALLBACK_PATTERN.test(callback)
  ) {
    throw badRequest(
      `callback must be a JavaScript name such as handleTrip or app.handleTrip, of at most ${MAX_CALLBACK_LENGTH} characters`,
    );
  }
  return callback;
}

/**
 * A body already rendered as JSON text: a record spliced with its stored track points (store/assets.ts
 * findRecordWithPoints), sent as it is rather than parsed and stringified again (a long ride holds
 * hundreds of thousands of points).
 */
export class RenderedJson {
  constructor(readonly json: JsonText) {}
}

/** Sends `body` (a value, or RenderedJson) as JSON or as JSONP, with `status`. */
export function sendLegacy(
  reply: FastifyReply,
  callback: string | null,
  status: number,
  body: unknown,
): FastifyReply {
  void reply.code(status);
  const rendered = body instanceof RenderedJson ? body.json : null;
  if (callback === null) {
    return reply
      .type('application/json; charset=utf-8')
      .send(rendered === null ? JSON.stringify(body) : jsonBody(rendered));
  }
  // U+2028/2029 are valid in JSON but ended a script string literal before ES2019; escape them.
  const safe = (json: string): string => json.replaceAll('\u2028', '\\u2028').replaceAll('\u2029', '\\u2029');
  let script: string | ReturnType<typeof jsonBody>;
  if (rendered === null || Buffer.isBuffer(rendered)) {
    const json = rendered === null ? JSON.stringify(body) : rendered.toString('utf8');
    script = `/**/${callback}(${safe(json)});`;
  } else {
    // A track of days, a slice at a time (store/record-body.ts): each slice escaped as it comes.
    script = jsonBody(spliced(`/**/${callback}(`, mappedText(rendered, safe), ');'));
  }
  return reply
    .type('application/javascript; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .send(script);
}

/**
 * Errors on the web pages become HTML pages with the status of docs/integrators/api.md's Errors table: 400
 * for a malformed form, 401 for a failed sign-in, 403 for a missing right or a form without a valid
 * CSRF token, 404, 429 with Retry-After (docs/contributors/decisions.md §7), 507 when the disk is full (disk-full.ts), and
 * a 500 that tells nothing of the inside.
 * (No not-found handler: the pages share the site root with the legacy interface, which owns its 404s.)
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { storageFaultError } from '../storage-fault.js';
import { answerableError, TextTooLongError, type ServerError } from '../errors.js';
import { html } from './html.js';
import { sendPage } from './layout.js';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign in required',
  403: 'Forbidden',
  404: 'Not found',
  413: 'Too large',
  429: 'Too many requests',
  500: 'Something went wrong',
  507: 'Disk full',
};

/** The codes @fastify/csrf-protection fails a request with. */
const CSRF_ERRORS = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);

export function sendErrorPage(
  reply: FastifyReply,
  statusCode: number,
  problems: readonly string[],
): FastifyReply {
  const title = TITLES[statusCode] ?? 'Error';
  return sendPage(reply, statusCode, {
    title,
    body: html`<h1>${title}</h1>
      ${problems.map((problem) => html`<p class="error">${problem}</p>`)}
      <p><a href="/">Back to Rideport</a></p>`,
  });
}

export function installPageErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError | ServerError, request, reply) => {
    // A text over its maximum that no check before the store caught (store/text-limits.ts, issue 17):
    // 400 here, as the pages check texts themselves (the 422 is v1's).
    if (thrown instanceof TextTooLongError) return sendErrorPage(reply, 400, [thrown.message]);
    const answerable = answerableError(storageFaultError(thrown) ?? thrown);
    if (answerable !== null) {
      if (answerable.retryAfterSeconds !== null) {
        void reply.header('retry-after', String(answerable.retryAfterSeconds));
      }
      return sendErrorPage(reply, answerable.statusCode, answerable.problems);
    }
    const error = thrown as FastifyError;
    if (CSRF_ERRORS.has(error.code)) {
      return sendErrorPage(reply, 403, [
        'This form has expired or was not sent from this site. Go back, reload the page and try again.',
      ]);
    }
    if (error.validation !== undefined) return sendErrorPage(reply, 400, ['The request is malformed.']);
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'page request failed');
      return sendErrorPage(reply, 500, ['The server could not answer this request.']);
    }
    // Fastify's own 4xx (malformed body, unsupported media type, body too large): its message is safe.
    return sendErrorPage(reply, status, [error.message]);
  });
}

/**
 * Error answers of the token and revocation endpoints (docs/contributors/decisions.md §3): RFC 6749 §5.2 bodies
 * `{"error", "error_description"}` plus the v1 `errors` list with the description, status 400, and
 * 401 for `invalid_client` (with WWW-Authenticate, as HTTP wants for a 401). Anything the server did
 * wrong is a 500 `server_error` that says nothing of the inside.
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { storageFaultError } from '../storage-fault.js';
import { answerableError, type ServerError } from '../errors.js';

const BODY_TYPE_PROBLEM = 'Invalid request: the body must be application/x-www-form-urlencoded or JSON';

export interface OAuthErrorBody {
  error: string;
  error_description: string;
  errors: string[];
}

export const OAUTH_ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'error_description', 'errors'],
  properties: {
    error: { type: 'string' },
    error_description: { type: 'string' },
    errors: { type: 'array', items: { type: 'string' } },
  },
} as const;

export function sendOAuthError(
  reply: FastifyReply,
  statusCode: number,
  error: string,
  description: string,
): FastifyReply {
  if (statusCode === 401) void reply.header('www-authenticate', 'Basic realm="Rideport OAuth"');
  const body: OAuthErrorBody = { error, error_description: description, errors: [description] };
  return reply.code(statusCode).header('cache-control', 'no-store').send(body);
}

/** Statuses that say "not now" rather than "not this request": rate limiting and storage faults. */
const UNAVAILABLE_STATUSES: ReadonlySet<number> = new Set([429, 503, 507]);

function sendStorageFault(reply: FastifyReply, fault: ServerError): FastifyReply {
  if (fault.retryAfterSeconds !== null) void reply.header('retry-after', String(fault.retryAfterSeconds));
  return sendOAuthError(reply, fault.statusCode ?? 503, 'temporarily_unavailable', fault.problems.join('; '));
}

/**
 * The answer for an error of the library's token(): its name and message as they are, except
 * - `invalid_client` is always 401 (the library makes it 400 unless the client used Basic);
 * - `unauthorized_client` becomes `unsupported_grant_type`: every client here may use the one grant
 *   there is, so the library only says that for grants it knows but this server does not offer
 *   (password, client_credentials, refresh_token);
 * - a full disk (507) or a database out of reach (503) is `temporarily_unavailable` in words
 *   (storage-fault.ts);
 * - any other server-side failure is logged and answered without its message.
 */
export function sendLibraryError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const fault = storageFaultError(error);
  if (fault !== null) return sendStorageFault(reply, fault);
  if (
    !(error instanceof OAuth2Server.OAuthError) ||
    error instanceof OAuth2Server.ServerError ||
    error.code >= 500
  ) {
    request.log.error({ err: error }, 'OAuth request failed');
    return sendOAuthError(reply, 500, 'server_error', 'internal server error');
  }
  if (error instanceof OAuth2Server.InvalidClientError)
    return sendOAuthError(reply, 401, error.name, error.message);
  if (error instanceof OAuth2Server.UnauthorizedClientError) {
    return sendOAuthError(
      reply,
      400,
      'unsupported_grant_type',
      'Unsupported grant type: only `authorization_code` is supported',
    );
  }
  return sendOAuthError(reply, error.code, error.name, error.message);
}

export function installOAuthErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError | ServerError, request, reply) => {
    const answerable = answerableError(storageFaultError(thrown) ?? thrown);
    if (answerable !== null) {
      if (answerable.retryAfterSeconds !== null) {
        void reply.header('retry-after', String(answerable.retryAfterSeconds));
      }
      // RFC 6749 has no code for rate limiting or a storage fault; temporarily_unavailable (§4.1.2.1,
      // "temporary overloading or maintenance") is its nearest, and the 429, 503 or 507 status says the rest.
      const code = UNAVAILABLE_STATUSES.has(answerable.statusCode)
        ? 'temporarily_unavailable'
        : 'invalid_request';
      return sendOAuthError(reply, answerable.statusCode, code, answerable.problems.join('; '));
    }
    const error = thrown as FastifyError;
    if (error.validation !== undefined) {
      const problems = error.validation.map((problem) => {
        const field = problem.instancePath.replace(/^\//, '');
        // A body that is not an object: text, or a JSON array or string.
        if (field === '') return BODY_TYPE_PROBLEM;
        return `Invalid parameter: \`${field}\` ${problem.message ?? 'is invalid'}`;
      });
      return sendOAuthError(reply, 400, 'invalid_request', problems.join('; '));
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'OAuth request failed');
      return sendOAuthError(reply, 500, 'server_error', 'internal server error');
    }
    // Fastify's own 4xx: malformed JSON, a content type other than JSON or form, a body too large.
    const description =
      status === 415
        ? 'Invalid request: the body must be application/x-www-form-urlencoded or JSON'
        : error.message;
    return sendOAuthError(reply, status === 413 ? 413 : 400, 'invalid_request', description);
  });
}

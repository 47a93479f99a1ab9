/**
 * CSRF protection of every form (docs/contributors/decisions.md §3–4; issue 4): a POST to a page without a valid token
 * is refused with 403.
 *
 * Why @fastify/csrf-protection in its cookie mode rather than a synchronizer token kept with the
 * session: the sign-in form has to be protected too (login CSRF), and there is no session before
 * sign-in; the sessions table also has no place for a token. The plugin keeps a random secret in its
 * own HttpOnly, SameSite=Lax cookie and puts in each form a token derived from that secret. On its
 * own that is a double-submit scheme, which someone able to plant cookies for this host (a sibling
 * subdomain, plain-http injection) could defeat; so each token is also bound to the browser session
 * (`getUserInfo` = the session cookie, none before sign-in), keyed with an HMAC key derived from the
 * server's master key: a token made for one session does not validate for another. Tokens are read
 * only from the form field `_csrf`, never from headers, because only forms post here.
 */
import { createHmac } from 'node:crypto';
import csrfProtection from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, type SafeHtml } from './html.js';
import { sessionCookie } from './session.js';

export const CSRF_FIELD = '_csrf';
const CSRF_COOKIE = 'rideport_csrf';

/** The key CSRF tokens are bound to sessions with: derived, so tokens stay valid across restarts. */
export function csrfHmacKey(masterKey: Buffer): Buffer {
  return createHmac('sha256', masterKey).update('csrf-token-binding').digest();
}

export async function registerCsrf(
  app: FastifyInstance,
  options: { secureCookies: boolean; hmacKey: Buffer },
): Promise<void> {
  await app.register(csrfProtection, {
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', secure: options.secureCookies },
    getToken: (request) => {
      const value = (request.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
      return typeof value === 'string' ? value : undefined;
    },
    getUserInfo: sessionBinding,
    csrfOpts: { userInfo: true, hmacKey: options.hmacKey },
  });
}

/** A token for a form on this response (sets the secret cookie when the browser has none yet). */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  return reply.generateCsrf({ userInfo: sessionBinding(request) });
}

/** What tokens are bound to: the session cookie (never empty, which the plugin would refuse). */
function sessionBinding(request: FastifyRequest): string {
  return `session:${sessionCookie(request)}`;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;
}

/** Checks the token of every POST in this scope before its handler runs (after the body is parsed). */
export function requireCsrfOnPosts(app: FastifyInstance): void {
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method === 'POST') app.csrfProtection(request, reply, done);
    else done();
  });
}

/**
 * Sign-in and sign-out (docs/contributors/decisions.md §4). `GET /sign_in` shows the form, `POST /sign_in` checks the
 * email and password, starts a session and goes on to `return_to` (a path on this site only, so the
 * form cannot be used to send people elsewhere); `POST /sign_out` ends the session. Sign-in attempts
 * are rate-limited per IP and per account (docs/contributors/decisions.md §7).
 */
import type { FastifyInstance } from 'fastify';
import { perIpRateLimit } from '../auth/rate-limit.js';
import type { PluginOptions } from '../context.js';
import { csrfField, csrfToken } from './csrf.js';
import { FormFields } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { sendPage } from './layout.js';
import { endSession, signedInUser, startSession } from './session.js';

/** Where signing in leads when nothing asked for another page: the rider's dashboard (issue 19). */
export const DEFAULT_RETURN_TO = '/dashboard';

/** Any base: only used to resolve a path and check that it stays on the same origin. */
const PATH_BASE = 'http://rideport.invalid';

/**
 * `value` when it is a path on this site, else the default. "//host/x" and "/\host/x" are refused
 * (browsers read both as another host), and so is anything with a backslash or a control character
 * (URL parsers drop tabs and newlines, which could turn "/\t/host" into "//host").
 */
export function safeReturnTo(value: string): string {
  if (value === '' || value.length > 4096) return DEFAULT_RETURN_TO;
  if (!value.startsWith('/') || value.startsWith('//')) return DEFAULT_RETURN_TO;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return DEFAULT_RETURN_TO;
  const url = new URL(value, PATH_BASE);
  if (url.origin !== PATH_BASE) return DEFAULT_RETURN_TO;
  return `${url.pathname}${url.search}${url.hash}`;
}

export interface SignInFormOptions {
  csrfToken: string;
  returnTo: string;
  email?: string;
  error?: string;
  /** a line above the form (the OAuth authorize page names the application asking) */
  intro?: SafeHtml;
}

export function signInForm({
  csrfToken: token,
  returnTo,
  email = '',
  error,
  intro,
}: SignInFormOptions): SafeHtml {
  return html`<h1>Sign in</h1>
    ${intro} ${error === undefined ? '' : html`<p class="error" role="alert">${error}</p>`}
    <form method="post" action="/sign_in">
      ${csrfField(token)}
      <input type="hidden" name="return_to" value="${returnTo}" />
      <label for="sign-in-email">Email</label>
      <input type="email" id="sign-in-email" name="email" value="${email}" autocomplete="username" required />
      <label for="sign-in-password">Password</label>
      <input type="password" id="sign-in-password" name="password" autocomplete="current-password" required />
      <button type="submit">Sign in</button>
    </form>`;
}

export function signInRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  app.get('/sign_in', { schema: { hide: true } }, async (request, reply) => {
    const query = new FormFields(request.query);
    const returnTo = safeReturnTo(query.text('return_to'));
    if ((await signedInUser(request, reply, context)) !== undefined) return reply.redirect(returnTo, 303);
    return sendPage(reply, 200, {
      title: 'Sign in',
      body: signInForm({ csrfToken: csrfToken(request, reply), returnTo }),
    });
  });

  app.post(
    '/sign_in',
    { schema: { hide: true }, config: { rateLimit: perIpRateLimit(context, 'sign_in') } },
    async (request, reply) => {
      const form = new FormFields(request.body);
      const email = form.text('email');
      // Passwords are taken as typed: leading or trailing spaces may be part of one.
      const password = form.text('password', { raw: true });
      const returnTo = safeReturnTo(form.text('return_to'));
      const again = (statusCode: number, error: string) =>
        sendPage(reply, statusCode, {
          title: 'Sign in',
          body: signInForm({ csrfToken: csrfToken(request, reply), returnTo, email, error }),
        });
      if (email === '' || password === '') return again(400, 'Enter your email and password.');
      const throttle = request.server.signInThrottle;
      await throttle.assertAllowed(email, request.ip);
      const user = await context.store.users.authenticate(email, password);
      if (user === undefined) {
        await throttle.recordFailure(email, request.ip);
        // One message for an unknown email and a wrong password (docs/contributors/decisions.md §1).
        return again(401, 'Invalid email or password.');
      }
      await throttle.recordSuccess(email, request.ip);
      await startSession(request, reply, context, user.id);
      return reply.redirect(returnTo, 303);
    },
  );

  app.post('/sign_out', { schema: { hide: true } }, async (request, reply) => {
    await endSession(request, reply, context);
    const returnTo = new FormFields(request.body).text('return_to');
    return reply.redirect(returnTo === '' ? '/sign_in' : safeReturnTo(returnTo), 303);
  });
  return Promise.resolve();
}

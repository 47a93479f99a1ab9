/**
 * One-time sign-in links (issue 7): the desktop app's window and `rideport up` open the dashboard
 * already signed in. The host asks `app.rideport.signInLink(userId, next)` for an absolute URL
 * `/sign-in/link?token=…`; the token is 256-bit random, stored hashed, good once and for two minutes
 * (store/sign-in-links.ts). `GET /sign-in/link` starts an ordinary web session (session.ts) and
 * redirects (303) to the path the link was made for; a used, expired or unknown token shows the
 * sign-in form with a message instead.
 *
 * A GET that signs in could be used to sign someone into another account (login CSRF), just as an
 * emailed sign-in link could; these links are only handed to the person at the machine (the app's own
 * window, the terminal running `rideport up`) and run out within two minutes.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../context.js';
import type { Store } from '../store/index.js';
import { csrfToken } from './csrf.js';
import { FormFields } from './forms.js';
import { sendPage } from './layout.js';
import { startSession } from './session.js';
import { safeReturnTo, signInForm } from './sign-in.js';

export const SIGN_IN_LINK_PATH = '/sign-in/link';
export const DEFAULT_LINK_NEXT = '/dashboard';

/**
 * A new link for `userId` going on to `next`, for ServerContext.signInLink. `next` must be a path on
 * this site as safeReturnTo keeps it (a programming error otherwise: the hosts pass constants).
 */
export async function issueSignInLink(
  store: Store,
  baseUrl: URL,
  userId: number,
  next: string = DEFAULT_LINK_NEXT,
): Promise<string> {
  if (safeReturnTo(next) !== next) throw new RangeError(`next must be a path on this site, got '${next}'`);
  const token = await store.signInLinks.issue(userId, next);
  const url = new URL(SIGN_IN_LINK_PATH, baseUrl.origin);
  url.searchParams.set('token', token);
  return url.href;
}

export function signInLinkRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  app.get(SIGN_IN_LINK_PATH, { schema: { hide: true } }, async (request, reply) => {
    const token = new FormFields(request.query).text('token');
    // The token is in this URL: keep it out of Referer headers and caches.
    void reply.headers({ 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
    const link = token === '' ? undefined : await context.store.signInLinks.redeem(token);
    if (link === undefined) {
      return sendPage(reply, 400, {
        title: 'Sign in',
        body: signInForm({
          csrfToken: csrfToken(request, reply),
          returnTo: DEFAULT_LINK_NEXT,
          error:
            // Plain words: this string is escaped text, so markup or backticks would show literally (issue 19).
            'This sign-in link has expired or has already been used: each link works once, within two minutes. Sign in with your email and password, or open the dashboard again from the desktop app.',
        }),
      });
    }
    await startSession(request, reply, context, link.userId);
    // Checked again, though the path was checked when the link was made.
    const next = safeReturnTo(link.nextPath);
    return reply.redirect(next === link.nextPath ? next : DEFAULT_LINK_NEXT, 303);
  });
  return Promise.resolve();
}

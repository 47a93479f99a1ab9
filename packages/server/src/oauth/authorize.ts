/**
 * `GET /oauth/authorize` and the consent form's `POST /oauth/authorize` (docs/integrators/api.md, OAuth 2.0
 * step 2; docs/contributors/decisions.md §3). An HTML page: the sign-in form first when the browser has no session, then
 * a consent page naming the API client, with Approve and Deny. An unknown client_id or a redirect_uri
 * that is not exactly one of the client's is shown as an error page and never redirected; every other
 * error, Deny (`access_denied`) and Approve (`code`) go back to the redirect URI with `state` unchanged.
 *
 * Approve and Deny go through the library's authorize(), which checks the request again, applies
 * `state` and PKCE, creates the code through the model, or fails with `access_denied`. Its own
 * redirect URL is not used (redirect.ts says why); its Response only tells whether the error arose
 * after the redirect URI was validated, i.e. whether RFC 6749 §4.1.2.1 allows redirecting it.
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import { PUBLIC_SECURITY } from '../openapi.js';
import { csrfField, csrfToken, requireCsrfOnPosts } from '../pages/csrf.js';
import { installPageErrorHandling, sendErrorPage } from '../pages/errors.js';
import { FormFields } from '../pages/forms.js';
import { html } from '../pages/html.js';
import { sendPage } from '../pages/layout.js';
import { signedInUser } from '../pages/session.js';
import { signInForm } from '../pages/sign-in.js';
import {
  authorizationParams,
  checkAuthorizationRequest,
  type AuthorizationRequest,
  type CheckedAuthorization,
} from './authorize-request.js';
import { toOAuthUser } from './model.js';
import { redirectWith } from './redirect.js';
import type { OAuthServers } from './server.js';

export interface AuthorizeRoutesOptions {
  context: ServerContext;
  servers: OAuthServers;
}

const AUTHORIZE_PATH = '/oauth/authorize';

/**
 * The authorization endpoint in the OpenAPI document (issue 20). Its parameters are checked by
 * checkAuthorizationRequest, which answers with an error page or a redirect, so they are described
 * in words rather than in a schema Fastify would validate first.
 */
const AUTHORIZE_GET_DOCUMENTATION = {
  tags: ['oauth'],
  summary: 'Authorization endpoint: the sign-in and consent page (RFC 6749 §4.1.1)',
  description:
    'Query: `response_type=code`, `client_id`, `redirect_uri` (registered with the client), optional ' +
    '`state` and `scope`. Answers an HTML page; after consent the browser is redirected to ' +
    '`redirect_uri` with `code` and `state`.',
  security: PUBLIC_SECURITY,
};

const AUTHORIZE_POST_DOCUMENTATION = {
  tags: ['oauth'],
  summary: "The consent page's answer (Approve or Deny)",
  description:
    'A form sent by the consent page with the signed-in session and its CSRF token: the same fields ' +
    'as the query of GET, and `decision` (`approve` or `deny`). Redirects to `redirect_uri`.',
  security: PUBLIC_SECURITY,
};

function authorizeUrl(request: AuthorizationRequest): string {
  return `${AUTHORIZE_PATH}?${new URLSearchParams(authorizationParams(request)).toString()}`;
}

/** The error page or the error redirect of a request that failed the checks. */
function refuse(reply: FastifyReply, checked: Exclude<CheckedAuthorization, { ok: true }>): FastifyReply {
  if (!checked.redirect) {
    return sendErrorPage(reply, 400, [`This authorization request cannot be completed. ${checked.problem}`]);
  }
  return reply.redirect(
    redirectWith(checked.redirectUri, {
      error: checked.error.name,
      error_description: checked.error.message,
      state: checked.state,
    }),
    302,
  );
}

export async function authorizeRoutes(
  app: FastifyInstance,
  { context, servers }: AuthorizeRoutesOptions,
): Promise<void> {
  installPageErrorHandling(app);
  requireCsrfOnPosts(app);

  app.get(AUTHORIZE_PATH, { schema: AUTHORIZE_GET_DOCUMENTATION }, async (request, reply) => {
    const checked = await checkAuthorizationRequest(request.query, context);
    if (!checked.ok) return refuse(reply, checked);
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return signInFirst(request, reply, checked.request, 200);
    return consentPage(request, reply, checked.request, user);
  });

  app.post(AUTHORIZE_PATH, { schema: AUTHORIZE_POST_DOCUMENTATION }, async (request, reply) => {
    const checked = await checkAuthorizationRequest(request.body, context);
    if (!checked.ok) return refuse(reply, checked);
    const user = await signedInUser(request, reply, context);
    // The session ended between the consent page and the answer.
    if (user === undefined) return signInFirst(request, reply, checked.request, 401);
    const decision = new FormFields(request.body).text('decision');
    if (decision !== 'approve' && decision !== 'deny') {
      return sendErrorPage(reply, 400, ['Choose Approve or Deny.']);
    }
    const { redirectUri, state } = checked.request;
    const libraryRequest = new OAuth2Server.Request({
      method: 'POST',
      headers: {},
      query: {},
      body: {
        ...authorizationParams(checked.request),
        // The library's way of saying Deny: it then fails with access_denied.
        ...(decision === 'deny' ? { allowed: 'false' } : {}),
      },
    });
    const libraryResponse = new OAuth2Server.Response();
    let location: string;
    try {
      const code = await servers.authorization.authorize(libraryRequest, libraryResponse, {
        authenticateHandler: { handle: () => toOAuthUser(user) },
      });
      location = redirectWith(redirectUri, { code: code.authorizationCode, state });
    } catch (error) {
      // Not redirectable (the library failed before validating the redirect URI): an error page.
      if (!(error instanceof OAuth2Server.OAuthError) || libraryResponse.status !== 302) throw error;
      const serverFault = error instanceof OAuth2Server.ServerError || error.code >= 500;
      if (serverFault) request.log.error({ err: error }, 'authorization failed');
      location = redirectWith(redirectUri, {
        error: serverFault ? 'server_error' : error.name,
        error_description: serverFault ? 'The server could not complete the authorization.' : error.message,
        state,
      });
    }
    return reply.redirect(location, 302);
  });
  return Promise.resolve();
}

function signInFirst(
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: AuthorizationRequest,
  statusCode: number,
): FastifyReply {
  return sendPage(reply, statusCode, {
    title: 'Sign in',
    body: signInForm({
      csrfToken: csrfToken(request, reply),
      returnTo: authorizeUrl(authorization),
      intro: html`<p>Sign in to Rideport to continue to <strong>${authorization.client.name}</strong>.</p>`,
    }),
  });
}

function consentPage(
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: AuthorizationRequest,
  user: UserRow,
): FastifyReply {
  const token = csrfToken(request, reply);
  const { client } = authorization;
  return sendPage(reply, 200, {
    title: `Authorize ${client.name}`,
    user,
    csrfToken: token,
    body: html`<h1>Authorize ${client.name}</h1>
      <p>
        <strong>${client.name}</strong> asks to use your Rideport
        account${user.email === null ? '' : html` (${user.email})`}.
      </p>
      <p>
        If you approve, it can act for you through the Rideport API: read your profile, and read, add, change
        and delete your routes, rides and events.
      </p>
      <p>You will then be sent back to <code>${authorization.redirectUri}</code>.</p>
      <form method="post" action="${AUTHORIZE_PATH}">
        ${csrfField(token)}
        ${Object.entries(authorizationParams(authorization)).map(
          ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
        )}
        <button type="submit" name="decision" value="approve">Approve</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </form>
      <form method="post" action="/sign_out">
        ${csrfField(token)}
        <input type="hidden" name="return_to" value="${authorizeUrl(authorization)}" />
        <p>Not ${user.name}? <button type="submit">Sign out and use another account</button></p>
      </form>`,
  });
}

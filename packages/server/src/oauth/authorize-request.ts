/**
 * Checking an authorization request before anything is shown (docs/contributors/decisions.md §3), in the order RFC 6749
 * §4.1.2.1 sets: first the client and the redirect URI — when either is wrong the browser must not be
 * redirected, so the problem is shown on a page — then everything else, whose errors go back to the
 * client by redirect. The library checks the same things again when the user approves or denies; this
 * pass lets the sign-in and consent pages appear only for a request that can succeed, and turns an
 * unsupported response_type into its redirect at once.
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { ServerContext } from '../context.js';
import type { ApiClient } from '../store/index.js';

export interface AuthorizationRequest {
  client: ApiClient;
  /** one of the client's registered redirect URIs, exactly */
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
}

export type CheckedAuthorization =
  | { ok: true; request: AuthorizationRequest }
  /** shown on an error page: never a redirect */
  | { ok: false; redirect: false; problem: string }
  /** sent back to the (registered) redirect URI */
  | {
      ok: false;
      redirect: true;
      redirectUri: string;
      state: string | undefined;
      error: OAuth2Server.OAuthError;
    };

/** RFC 6749 Appendix A.5: state is 1*VSCHAR. */
const VSCHAR = /^[\x20-\x7e]+$/;
/** RFC 7636 §4.2: code_challenge is 43 to 128 unreserved characters. */
const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

type Param = { kind: 'absent' } | { kind: 'one'; value: string } | { kind: 'repeated' };

/** A parameter of the query or form: RFC 6749 §3.1 forbids sending one more than once. */
function param(params: Record<string, unknown>, name: string): Param {
  const value = params[name];
  if (value === undefined || value === '') return { kind: 'absent' };
  if (typeof value === 'string') return { kind: 'one', value };
  return { kind: 'repeated' };
}

export async function checkAuthorizationRequest(
  input: unknown,
  context: ServerContext,
): Promise<CheckedAuthorization> {
  const params = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const page = (problem: string): CheckedAuthorization => ({ ok: false, redirect: false, problem });

  const clientId = param(params, 'client_id');
  if (clientId.kind !== 'one') {
    return page(
      clientId.kind === 'absent'
        ? 'The request names no application (client_id is missing).'
        : 'client_id is given more than once.',
    );
  }
  const client = await context.store.apiClients.findByApiKey(clientId.value);
  if (client === undefined) return page('The request names an unknown application (client_id).');
  const redirectUri = param(params, 'redirect_uri');
  if (redirectUri.kind !== 'one') {
    return page(
      redirectUri.kind === 'absent'
        ? 'The request has no redirect_uri.'
        : 'redirect_uri is given more than once.',
    );
  }
  if (!client.redirectUris.includes(redirectUri.value)) {
    return page(`The redirect_uri is not one of the redirect URIs registered for ${client.name}.`);
  }

  const back = (error: OAuth2Server.OAuthError, state?: string): CheckedAuthorization => ({
    ok: false,
    redirect: true,
    redirectUri: redirectUri.value,
    state,
    error,
  });
  const state = param(params, 'state');
  if (state.kind === 'repeated')
    return back(new OAuth2Server.InvalidRequestError('Invalid parameter: `state`'));
  if (state.kind === 'one' && !VSCHAR.test(state.value)) {
    return back(new OAuth2Server.InvalidRequestError('Invalid parameter: `state`'));
  }
  const stateValue = state.kind === 'one' ? state.value : undefined;

  const responseType = param(params, 'response_type');
  if (responseType.kind === 'absent') {
    return back(new OAuth2Server.InvalidRequestError('Missing parameter: `response_type`'), stateValue);
  }
  if (responseType.kind === 'repeated') {
    return back(new OAuth2Server.InvalidRequestError('Invalid parameter: `response_type`'), stateValue);
  }
  if (responseType.value !== 'code') {
    return back(
      new OAuth2Server.UnsupportedResponseTypeError(
        'Unsupported response type: `response_type` is not supported',
      ),
      stateValue,
    );
  }

  // PKCE (RFC 7636): S256 only, as the library does unless told to allow "plain".
  const challenge = param(params, 'code_challenge');
  const method = param(params, 'code_challenge_method');
  if (challenge.kind === 'repeated' || method.kind === 'repeated') {
    return back(
      new OAuth2Server.InvalidRequestError('Invalid request: a PKCE parameter is given more than once'),
      stateValue,
    );
  }
  if (method.kind === 'one' && method.value !== 'S256') {
    return back(
      new OAuth2Server.InvalidRequestError('Invalid request: `code_challenge_method` must be "S256"'),
      stateValue,
    );
  }
  if (challenge.kind === 'absent' && method.kind === 'one') {
    return back(new OAuth2Server.InvalidRequestError('Missing parameter: `code_challenge`'), stateValue);
  }
  if (challenge.kind === 'one' && !CODE_CHALLENGE.test(challenge.value)) {
    return back(new OAuth2Server.InvalidRequestError('Invalid parameter: `code_challenge`'), stateValue);
  }

  return {
    ok: true,
    request: {
      client,
      redirectUri: redirectUri.value,
      state: stateValue,
      codeChallenge: challenge.kind === 'one' ? challenge.value : undefined,
      codeChallengeMethod: challenge.kind === 'one' ? 'S256' : undefined,
    },
  };
}

/** The request's parameters again, for the consent form's hidden fields and the library. */
export function authorizationParams(request: AuthorizationRequest): Record<string, string> {
  const params: Record<string, string> = {
    client_id: request.client.apiKey,
    redirect_uri: request.redirectUri,
    response_type: 'code',
  };
  if (request.state !== undefined) params.state = request.state;
  if (request.codeChallenge !== undefined) {
    params.code_challenge = request.codeChallenge;
    params.code_challenge_method = request.codeChallengeMethod ?? 'S256';
  }
  return params;
}

/**
 * Browser sessions of the web pages (docs/contributors/decisions.md §3–4): the cookie `rideport_session` holds a random
 * token whose SHA-256 is in the sessions table (store/sessions.ts). The cookie is HttpOnly,
 * SameSite=Lax (so the browser still sends it when a client's site links to /oauth/authorize) and
 * Secure when the public base URL is https (options.secureCookies).
 */
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerContext } from '../context.js';
import type { UserRow } from '../db/schema.js';

export const SESSION_COOKIE = 'rideport_session';

function cookieOptions(context: ServerContext): CookieSerializeOptions {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure: context.options.secureCookies };
}

function lastingCookieOptions(context: ServerContext): CookieSerializeOptions {
  return { ...cookieOptions(context), maxAge: Math.floor(context.options.sessionLifetimeMs / 1000) };
}

/** The raw session cookie, or '' (also what CSRF tokens are bound to; see csrf.ts). */
export function sessionCookie(request: FastifyRequest): string {
  return request.cookies[SESSION_COOKIE] ?? '';
}

/**
 * The signed-in user, or undefined. A live session's cookie is sent again with a fresh Max-Age, so the
 * browser keeps it as long as the server does (sessions expire a while after their last use).
 */
export async function signedInUser(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
): Promise<UserRow | undefined> {
  const token = sessionCookie(request);
  if (token === '') return undefined;
  const user = await context.store.sessions.user(token);
  if (user !== undefined) void reply.setCookie(SESSION_COOKIE, token, lastingCookieOptions(context));
  return user;
}

/** Signs `userId` in with a new session (never reusing the cookie the browser came with). */
export async function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  userId: number,
): Promise<void> {
  const previous = sessionCookie(request);
  if (previous !== '') await context.store.sessions.end(previous);
  const token = await context.store.sessions.start(userId);
  void reply.setCookie(SESSION_COOKIE, token, lastingCookieOptions(context));
}

export async function endSession(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
): Promise<void> {
  const token = sessionCookie(request);
  if (token !== '') await context.store.sessions.end(token);
  void reply.clearCookie(SESSION_COOKIE, cookieOptions(context));
}

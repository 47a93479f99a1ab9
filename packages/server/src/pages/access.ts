/**
 * Who may see which page (docs/contributors/decisions.md §1 "Failures", §4): pages need a signed-in person (otherwise
 * they send the browser to the sign-in form and back); an unknown id is 404; someone else's API
 * client, or an organization one does not administer, is 403.
 */
import type { FastifyReply } from 'fastify';
import type { ServerContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import { forbidden, notFound } from '../errors.js';
import type { ApiClient } from '../store/index.js';

export function redirectToSignIn(reply: FastifyReply, returnTo: string): FastifyReply {
  return reply.redirect(`/sign_in?${new URLSearchParams({ return_to: returnTo }).toString()}`, 303);
}

/**
 * An API client the user may manage: their own, or one of an organization they administer (the
 * organization's API clients page links to the same settings page).
 */
export async function manageableClient(
  context: ServerContext,
  user: UserRow,
  clientId: number,
): Promise<ApiClient> {
  const client = await context.store.apiClients.findById(clientId);
  if (client === undefined) throw notFound('There is no such API client.');
  if (client.ownerId === user.id) return client;
  if ((await context.store.users.roleIn(client.ownerId, user.id)) === 'admin') return client;
  throw forbidden('This API client belongs to someone else.');
}

/** The organization `organizationId`, if the user administers it. */
export async function administeredOrganization(
  context: ServerContext,
  user: UserRow,
  organizationId: number,
): Promise<UserRow> {
  const organization = await context.store.users.findById(organizationId);
  if (organization?.kind !== 'organization') throw notFound('There is no such organization.');
  if ((await context.store.users.roleIn(organization.id, user.id)) !== 'admin') {
    throw forbidden('Only administrators of this organization can manage its API clients.');
  }
  return organization;
}

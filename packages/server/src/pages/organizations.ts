/**
 * The API clients page of an organization (docs/integrators/api.md, Basic authentication step 2;
 * docs/contributors/decisions.md §1 and §4): organizations have no email and password, so an administrator creates
 * their API clients here and, for one of them, "create new auth token": a token that acts as the
 * organization, shown once on the answer page and never again (only its hash is kept).
 *
 * Routes (administrators of the organization only; others get 403):
 *   GET  /organizations/:id/api_clients                           the clients and a form for a new one
 *   POST /organizations/:id/api_clients                           create a client owned by the organization
 *   POST /organizations/:id/api_clients/:clientId/auth_tokens     create an auth token and show it
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PluginOptions, ServerContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import { notFound } from '../errors.js';
import { idParameter } from '../whole-numbers.js';
import { administeredOrganization, redirectToSignIn } from './access.js';
import {
  clientSettingsFields,
  formValuesOf,
  parseClientForm,
  problemList,
  type ClientFormValues,
} from './api-client-form.js';
import { csrfField, csrfToken } from './csrf.js';
import { clientPath, notice } from './developer.js';
import { FormFields } from './forms.js';
import { html } from './html.js';
import { sendPage } from './layout.js';
import { signedInUser } from './session.js';

/** The organization `{id}` of the address; 400 in words when it is not a record id (issue 17). */
function organizationId(request: FastifyRequest): number {
  return idParameter(request.params, 'id', 'the organization id in the address');
}

function organizationPath(organization: UserRow): string {
  return `/organizations/${organization.id}/api_clients`;
}

export function organizationRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  const hidden = { schema: { hide: true } };

  app.get('/organizations/:id/api_clients', hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, request.url);
    const organization = await administeredOrganization(context, user, organizationId(request));
    return organizationPage(request, reply, context, user, organization, 200, formValuesOf(), []);
  });

  app.post('/organizations/:id/api_clients', hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, '/developer');
    const organization = await administeredOrganization(context, user, organizationId(request));
    const { values, settings, problems } = parseClientForm(new FormFields(request.body));
    if (settings === null) {
      return organizationPage(request, reply, context, user, organization, 400, values, problems);
    }
    const client = await context.store.apiClients.create(organization.id, settings);
    return reply.redirect(`${clientPath(client)}?notice=created`, 303);
  });

  app.post('/organizations/:id/api_clients/:clientId/auth_tokens', hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, '/developer');
    const organization = await administeredOrganization(context, user, organizationId(request));
    const clientId = idParameter(request.params, 'clientId', 'the API client id in the address');
    const client = await context.store.apiClients.findById(clientId);
    if (client?.ownerId !== organization.id) throw notFound('The organization has no such API client.');
    const { token } = await context.store.authTokens.issue(organization.id, client.id);
    const basic = Buffer.from(`${client.apiKey}:${token}`).toString('base64');
    return sendPage(reply, 200, {
      title: 'New auth token',
      user,
      csrfToken: csrfToken(request, reply),
      body: html`<h1>New auth token for ${organization.name}</h1>
        <p class="notice" role="status">
          <strong>Copy this token now: it is shown only once.</strong> Only its fingerprint is kept, so it
          cannot be shown again.
        </p>
        <dl>
          <dt>API client</dt>
          <dd>${client.name}</dd>
          <dt>API key (<code>x-service-api-key</code>)</dt>
          <dd><code id="api-key">${client.apiKey}</code></dd>
          <dt>Auth token (<code>x-service-auth-token</code>)</dt>
          <dd><code class="secret" id="auth-token">${token}</code></dd>
          <dt>Or the header</dt>
          <dd><code>Authorization: Basic ${basic}</code></dd>
        </dl>
        <p>Requests with it act as the organization ${organization.name}.</p>
        <p>
          <a href="${organizationPath(organization)}">Back to the API clients of ${organization.name}</a>
        </p>`,
    });
  });
  return Promise.resolve();
}

async function organizationPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  organization: UserRow,
  statusCode: number,
  values: ClientFormValues,
  problems: string[],
): Promise<FastifyReply> {
  const token = csrfToken(request, reply);
  const clients = await context.store.apiClients.listByOwner(organization.id);
  const path = organizationPath(organization);
  return sendPage(reply, statusCode, {
    title: `API clients of ${organization.name}`,
    user,
    csrfToken: token,
    body: html`<h1>API clients of ${organization.name}</h1>
      ${notice(request)}
      <p>Organizations have no password: auth tokens created here act as the organization.</p>
      <section>
        <h2>API clients</h2>
        ${
          clients.length === 0
            ? html`<p>The organization has no API clients yet.</p>`
            : html`<table tabindex="0">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">API key</th>
                    <th scope="col">Auth token</th>
                  </tr>
                </thead>
                <tbody>
                  ${clients.map(
                    (client) =>
                      html`<tr>
                        <td><a href="${clientPath(client)}">${client.name}</a></td>
                        <td><code>${client.apiKey}</code></td>
                        <td>
                          <form method="post" action="${path}/${client.id}/auth_tokens">
                            ${csrfField(token)}
                            <button type="submit">Create new auth token</button>
                          </form>
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>
      <section>
        <h2>New API client</h2>
        ${problemList(problems)}
        <form method="post" action="${path}">
          ${csrfField(token)} ${clientSettingsFields(values)}
          <button type="submit">Create API client</button>
        </form>
      </section>`,
  });
}

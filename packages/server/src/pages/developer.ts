/**
 * Developer settings (docs/contributors/decisions.md §4; docs/integrators/api.md, OAuth 2.0 step 1): the signed-in person's API
 * clients — create, edit (name, redirect URIs, webhook URL and asset kinds), delete — each showing its
 * `api_key` (the OAuth `client_id`) and `client_secret`, with "regenerate secret", and the webhook
 * delivery log (issue 5).
 *
 * Routes:
 *   GET  /developer                               list, and the form for a new client
 *   POST /developer/api_clients                   create
 *   GET  /developer/api_clients/:id               credentials, settings, deliveries, delete
 *   POST /developer/api_clients/:id               save settings
 *   POST /developer/api_clients/:id/secret        regenerate the secret
 *   POST /developer/api_clients/:id/delete        delete (HTML forms cannot send DELETE)
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PluginOptions, ServerContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import type { ApiClient, DeliveryLogRow } from '../store/index.js';
import { idParameter } from '../whole-numbers.js';
import { manageableClient, redirectToSignIn } from './access.js';
import {
  clientSettingsFields,
  formValuesOf,
  parseClientForm,
  problemList,
  type ClientFormValues,
} from './api-client-form.js';
import { csrfField, csrfToken } from './csrf.js';
import { FormFields } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { sendPage } from './layout.js';
import { signedInUser } from './session.js';

/** Notices after a redirect, by a fixed key (the query never carries text to show). */
const NOTICES: Record<string, string> = {
  created: 'The API client was created.',
  saved: 'The settings were saved.',
  secret: 'A new client secret was generated; the old one no longer works.',
  deleted: 'The API client was deleted.',
};

export function notice(request: FastifyRequest): SafeHtml {
  const key = new FormFields(request.query).text('notice');
  const text = NOTICES[key];
  return text === undefined ? html`` : html`<p class="notice" role="status">${text}</p>`;
}

/** The API client `{id}` of the address; 400 in words when it is not a record id (issue 17). */
function clientId(request: FastifyRequest): number {
  return idParameter(request.params, 'id', 'the API client id in the address');
}

export function clientPath(client: ApiClient): string {
  return `/developer/api_clients/${client.id}`;
}

/** How many of a client's latest delivery attempts the settings page lists. */
export const DELIVERY_LOG_LENGTH = 50;

/**
 * The webhook delivery log of a client (docs/contributors/decisions.md §4 and §6: "every attempt is logged and shown on
 * the developer settings page"): its latest attempts, newest first, each with its time (UTC), the
 * delivery id (x-service-delivery, the same for every attempt at one batch), how many notifications
 * it carried, the attempt number, the answer's status or why there was none, and how long it took.
 */
function webhookDeliveriesSection(
  client: ApiClient,
  attempts: readonly DeliveryLogRow[],
  waiting: number,
): SafeHtml {
  const summary =
    attempts.length === 0
      ? client.webhookUrl === null
        ? 'No webhook URL is set, so no webhooks are sent.'
        : 'No webhook deliveries have been recorded for this client.'
      : `The latest ${attempts.length === 1 ? 'attempt' : `${attempts.length} attempts`}, newest first.`;
  return html`<section id="webhook-deliveries">
    <h2>Webhook deliveries</h2>
    <p>${summary}</p>
    ${
      waiting > 0 &&
      html`<p id="webhook-waiting">
        ${waiting === 1 ? '1 notification is' : `${waiting} notifications are`} waiting to be delivered.
      </p>`
    }
    ${
      attempts.length > 0 &&
      html`<table tabindex="0">
        <thead>
          <tr>
            <th scope="col">Time (UTC)</th>
            <th scope="col">Delivery</th>
            <th scope="col">Notifications</th>
            <th scope="col">Attempt</th>
            <th scope="col">Result</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          ${attempts.map((attempt) => {
            const time = new Date(attempt.attempted_at).toISOString();
            const ok =
              attempt.status_code !== null && attempt.status_code >= 200 && attempt.status_code < 300;
            return html`<tr class="${ok ? 'delivered' : 'failed'}">
              <td><time datetime="${time}">${time.replace('T', ' ').replace(/\.\d{3}Z$/, '')}</time></td>
              <td><code>${attempt.delivery_id}</code></td>
              <td>${attempt.notification_count}</td>
              <td>${attempt.attempt}</td>
              <td>${attempt.status_code === null ? attempt.error : `HTTP ${attempt.status_code}`}</td>
              <td>${attempt.duration_ms} ms</td>
            </tr>`;
          })}
        </tbody>
      </table>`
    }
  </section>`;
}

export function developerRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  const hidden = { schema: { hide: true } };

  app.get('/developer', hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, '/developer');
    return developerPage(request, reply, context, user, 200, formValuesOf(), []);
  });

  app.post('/developer/api_clients', hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, '/developer');
    const { values, settings, problems } = parseClientForm(new FormFields(request.body));
    if (settings === null) return developerPage(request, reply, context, user, 400, values, problems);
    const client = await context.store.apiClients.create(user.id, settings);
    return reply.redirect(`${clientPath(client)}?notice=created`, 303);
  });

  app.get('/developer/api_clients/:id', hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, request.url);
    const client = await manageableClient(context, user, clientId(request));
    return clientPage(request, reply, context, user, client, 200, formValuesOf(client), []);
  });

  app.post('/developer/api_clients/:id', hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, '/developer');
    const client = await manageableClient(context, user, clientId(request));
    const { values, settings, problems } = parseClientForm(new FormFields(request.body));
    if (settings === null) return clientPage(request, reply, context, user, client, 400, values, problems);
    await context.store.apiClients.update(client.id, settings);
    return reply.redirect(`${clientPath(client)}?notice=saved`, 303);
  });

  app.post('/developer/api_clients/:id/secret', hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, '/developer');
    const client = await manageableClient(context, user, clientId(request));
    await context.store.apiClients.regenerateSecret(client.id);
    return reply.redirect(`${clientPath(client)}?notice=secret`, 303);
  });

  app.post('/developer/api_clients/:id/delete', hidden, async (request, reply) => {
    const user = await signedInUser(request, reply, context);
    if (user === undefined) return redirectToSignIn(reply, '/developer');
    const client = await manageableClient(context, user, clientId(request));
    await context.store.apiClients.delete(client.id);
    const back = client.ownerId === user.id ? '/developer' : `/organizations/${client.ownerId}/api_clients`;
    return reply.redirect(`${back}?notice=deleted`, 303);
  });
  return Promise.resolve();
}

async function developerPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  statusCode: number,
  values: ClientFormValues,
  problems: string[],
): Promise<FastifyReply> {
  const token = csrfToken(request, reply);
  const clients = await context.store.apiClients.listByOwner(user.id);
  const administered = (await context.store.users.organizationsOf(user.id)).filter(
    (organization) => organization.role === 'admin',
  );
  return sendPage(reply, statusCode, {
    title: 'Developer settings',
    user,
    csrfToken: token,
    body: html`<h1>Developer settings</h1>
      ${notice(request)}
      <section>
        <h2>Your API clients</h2>
        ${
          clients.length === 0
            ? html`<p>You have no API clients yet.</p>`
            : html`<table tabindex="0">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">API key (client_id)</th>
                    <th scope="col">Redirect URIs</th>
                  </tr>
                </thead>
                <tbody>
                  ${clients.map(
                    (client) =>
                      html`<tr>
                        <td><a href="${clientPath(client)}">${client.name}</a></td>
                        <td><code>${client.apiKey}</code></td>
                        <td>${client.redirectUris.length}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>
      ${
        administered.length > 0 &&
        html`<section>
          <h2>Organizations you administer</h2>
          <ul>
            ${administered.map(
              (organization) =>
                html`<li>
                  <a href="/organizations/${organization.id}/api_clients">${organization.name}</a>: API
                  clients and auth tokens
                </li>`,
            )}
          </ul>
        </section>`
      }
      <section>
        <h2>New API client</h2>
        ${problemList(problems)}
        <form method="post" action="/developer/api_clients">
          ${csrfField(token)} ${clientSettingsFields(values)}
          <button type="submit">Create API client</button>
        </form>
      </section>`,
  });
}

async function clientPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  client: ApiClient,
  statusCode: number,
  values: ClientFormValues,
  problems: string[],
): Promise<FastifyReply> {
  const token = csrfToken(request, reply);
  const owner = client.ownerId === user.id ? undefined : await context.store.users.findById(client.ownerId);
  const attempts = await context.store.webhooks.recentAttempts(client.id, DELIVERY_LOG_LENGTH);
  const waiting = await context.store.webhooks.pendingCount(client.id);
  const path = clientPath(client);
  return sendPage(reply, statusCode, {
    title: `API client ${client.name}`,
    user,
    csrfToken: token,
    body: html`<h1>API client: ${client.name}</h1>
      ${notice(request)}
      ${
        owner === undefined
          ? html`<p><a href="/developer">All your API clients</a></p>`
          : html`<p>
              Belongs to the organization <a href="/organizations/${owner.id}/api_clients">${owner.name}</a>.
            </p>`
      }
      <section>
        <h2>Credentials</h2>
        <dl>
          <dt>API key (OAuth <code>client_id</code>)</dt>
          <dd><code id="api-key">${client.apiKey}</code></dd>
          <dt>Client secret (<code>client_secret</code>)</dt>
          <dd><code class="secret" id="client-secret">${context.store.apiClients.secretOf(client)}</code></dd>
        </dl>
        <p>
          Keep the client secret private: it proves to the server that a request comes from your application.
        </p>
        <form method="post" action="${path}/secret">
          ${csrfField(token)}
          <button type="submit">Regenerate secret</button>
        </form>
        <p>A new secret replaces the old one at once.</p>
      </section>
      <section>
        <h2>Settings</h2>
        ${problemList(problems)}
        <form method="post" action="${path}">
          ${csrfField(token)} ${clientSettingsFields(values)}
          <button type="submit">Save settings</button>
        </form>
      </section>
      ${webhookDeliveriesSection(client, attempts, waiting)}
      <section>
        <h2>Delete</h2>
        <p>Deleting the API client also revokes every auth token and access token issued through it.</p>
        <form method="post" action="${path}/delete">
          ${csrfField(token)}
          <button type="submit">Delete this API client</button>
        </form>
      </section>`,
  });
}

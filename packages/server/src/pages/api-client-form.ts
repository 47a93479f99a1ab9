/**
 * The settings form of an API client (docs/contributors/decisions.md §1 and §4; docs/integrators/api.md, OAuth 2.0 step 1):
 * name, redirect URIs one per line, webhook URL and the asset kinds it wants. Used by developer
 * settings and by the organization's API clients page.
 */
import type { AssetType } from '../db/schema.js';
import {
  isTooLong,
  MAX_REDIRECT_URIS,
  TEXT_MAX_CHARS,
  tooLongWords,
  type ApiClient,
  type ApiClientSettings,
} from '../store/index.js';
import type { FormFields } from './forms.js';
import { html, type SafeHtml } from './html.js';

export interface ClientFormValues {
  name: string;
  /** as typed: one URI per line */
  redirectUris: string;
  webhookUrl: string;
  webhookAssets: AssetType[];
}

const NAME_MAX_LENGTH = TEXT_MAX_CHARS.clientName;
const URI_MAX_LENGTH = TEXT_MAX_CHARS.url;
const ASSET_KINDS: ReadonlyArray<{ kind: AssetType; label: string }> = [
  { kind: 'route', label: 'Routes' },
  { kind: 'trip', label: 'Trips (rides)' },
];

/**
 * Schemes a redirect could abuse: script or local content in the browser. Every other scheme is
 * taken as a native app's private-use scheme (RFC 8252 §7.1, e.g. `com.example.app:/callback`).
 */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'filesystem:',
]);

export function formValuesOf(client?: ApiClient): ClientFormValues {
  return {
    name: client?.name ?? '',
    redirectUris: client?.redirectUris.join('\n') ?? '',
    webhookUrl: client?.webhookUrl ?? '',
    webhookAssets: client?.webhookAssets ?? ['route', 'trip'],
  };
}

/**
 * What is wrong with a redirect URI, or null. It must be an absolute http(s) URL with a host and no
 * user name or password, or a native app's custom-scheme URI; never with a fragment (RFC 6749 §3.1.2).
 * The URI is kept exactly as typed: /oauth/authorize compares redirect URIs as exact strings
 * (docs/contributors/decisions.md §3).
 */
export function redirectUriProblem(uri: string): string | null {
  if (isTooLong(uri, URI_MAX_LENGTH))
    return `${tooLongWords('a redirect URI', URI_MAX_LENGTH)}: ${uri.slice(0, 40)}…`;
  // eslint-disable-next-line no-control-regex -- whitespace and control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(uri)) return `redirect URI must not contain spaces: ${uri}`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `redirect URI is not an absolute URI: ${uri}`;
  }
  if (uri.includes('#')) return `redirect URI must not have a fragment (#…): ${uri}`;
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    if (url.username !== '' || url.password !== '')
      return `redirect URI must not contain a user name or password: ${uri}`;
    return null;
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol) || !/^[a-z][a-z0-9+.-]*:[^:]/i.test(uri)) {
    return `redirect URI must be an http or https URL, or a custom-scheme URI of a native app: ${uri}`;
  }
  return null;
}

/** What is wrong with a webhook URL, or null: an absolute http(s) URL (docs/contributors/decisions.md §6). */
export function webhookUrlProblem(uri: string): string | null {
  if (isTooLong(uri, URI_MAX_LENGTH)) return tooLongWords('the webhook URL', URI_MAX_LENGTH);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `webhook URL is not an absolute URL: ${uri}`;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    return `webhook URL must be an http or https URL: ${uri}`;
  }
  return null;
}

export interface ParsedClientForm {
  values: ClientFormValues;
  /** the settings to save, when there are no problems */
  settings: ApiClientSettings | null;
  problems: string[];
}

export function parseClientForm(form: FormFields): ParsedClientForm {
  const values: ClientFormValues = {
    name: form.text('name'),
    redirectUris: form.text('redirect_uris'),
    webhookUrl: form.text('webhook_url'),
    webhookAssets: ASSET_KINDS.map(({ kind }) => kind).filter((kind) =>
      form.list('webhook_assets').includes(kind),
    ),
  };
  const problems: string[] = [];
  if (values.name === '') problems.push('name is required');
  if (isTooLong(values.name, NAME_MAX_LENGTH)) problems.push(tooLongWords('name', NAME_MAX_LENGTH));
  const redirectUris = [
    ...new Set(
      values.redirectUris
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== ''),
    ),
  ];
  if (redirectUris.length > MAX_REDIRECT_URIS) problems.push(`at most ${MAX_REDIRECT_URIS} redirect URIs`);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) problems.push(problem);
  }
  if (values.webhookUrl !== '') {
    const problem = webhookUrlProblem(values.webhookUrl);
    if (problem !== null) problems.push(problem);
  }
  const settings: ApiClientSettings | null =
    problems.length > 0
      ? null
      : {
          name: values.name,
          redirectUris,
          webhookUrl: values.webhookUrl === '' ? null : values.webhookUrl,
          webhookAssets: values.webhookAssets,
        };
  return { values, settings, problems };
}

export function problemList(problems: readonly string[]): SafeHtml {
  if (problems.length === 0) return html``;
  return html`<div class="error" role="alert">
    <p>Please correct:</p>
    <ul>
      ${problems.map((problem) => html`<li>${problem}</li>`)}
    </ul>
  </div>`;
}

/** The labelled inputs of the settings (the caller wraps them in a form with its CSRF field). */
export function clientSettingsFields(values: ClientFormValues): SafeHtml {
  return html`<label for="client-name">Name</label>
    <input
      type="text"
      id="client-name"
      name="name"
      value="${values.name}"
      maxlength="${NAME_MAX_LENGTH}"
      required
    />
    <label for="client-redirect-uris">Redirect URIs (one per line)</label>
    <textarea id="client-redirect-uris" name="redirect_uris" rows="4">${values.redirectUris}</textarea>
    <label for="client-webhook-url">Webhook URL (optional)</label>
    <input type="url" id="client-webhook-url" name="webhook_url" value="${values.webhookUrl}" />
    <fieldset>
      <legend>Send webhooks for</legend>
      ${ASSET_KINDS.map(
        ({ kind, label }) =>
          html`<input
              type="checkbox"
              id="client-assets-${kind}"
              name="webhook_assets"
              value="${kind}"
              ${values.webhookAssets.includes(kind) ? html` checked` : ''}
            />
            <label for="client-assets-${kind}">${label}</label>`,
      )}
    </fieldset>`;
}

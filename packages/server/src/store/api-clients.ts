/**
 * API clients (docs/contributors/decisions.md §1): the api_key (also the OAuth client_id), a secret derived from the
 * master key and kept only as a hash, redirect URIs, the webhook target, and the legacy version.
 */
import type { AssetType, ApiClientRow } from '../db/schema.js';
import { constantTimeEqual, deriveClientSecret, randomApiKey, secretHash } from '../security/secrets.js';
import type { StoreContext } from './context.js';
import { assertFits, MAX_REDIRECT_URIS, TEXT_MAX_CHARS, TextTooLongError } from './text-limits.js';

/** The legacy interface's current version when a client is issued (docs/contributors/decisions.md §1). */
export const CURRENT_LEGACY_VERSION = 2;

export interface ApiClientSettings {
  name: string;
  redirectUris?: readonly string[];
  webhookUrl?: string | null;
  webhookAssets?: readonly AssetType[];
}

/** An API client as the rest of the server uses it: the row with its lists parsed. */
export interface ApiClient {
  id: number;
  ownerId: number;
  name: string;
  apiKey: string;
  redirectUris: string[];
  webhookUrl: string | null;
  webhookAssets: AssetType[];
  legacyVersion: number;
  secretGeneration: number;
  createdAt: number;
  updatedAt: number;
}

export class ApiClients {
  readonly #context: StoreContext;
  readonly #masterKey: Buffer;

  constructor(context: StoreContext, masterKey: Buffer) {
    this.#context = context;
    this.#masterKey = masterKey;
  }

  async create(ownerId: number, settings: ApiClientSettings): Promise<ApiClient> {
    assertSettingsFit(settings);
    const now = this.#context.clock();
    const apiKey = randomApiKey();
    const row = await this.#context.db
      .insertInto('api_clients')
      .values({
        owner_id: ownerId,
        name: settings.name.trim(),
        api_key: apiKey,
        secret_hash: secretHash(deriveClientSecret(this.#masterKey, apiKey, 1)),
        secret_generation: 1,
        redirect_uris: JSON.stringify(settings.redirectUris ?? []),
        webhook_url: settings.webhookUrl ?? null,
        webhook_assets: (settings.webhookAssets ?? ['route', 'trip']).join(','),
        legacy_version: CURRENT_LEGACY_VERSION,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toApiClient(row);
  }

  async update(id: number, settings: ApiClientSettings): Promise<ApiClient | undefined> {
    assertSettingsFit(settings);
    const row = await this.#context.db
      .updateTable('api_clients')
      .set({
        name: settings.name.trim(),
        redirect_uris: JSON.stringify(settings.redirectUris ?? []),
        webhook_url: settings.webhookUrl ?? null,
        webhook_assets: (settings.webhookAssets ?? ['route', 'trip']).join(','),
        updated_at: this.#context.clock(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row === undefined ? undefined : toApiClient(row);
  }

  /** A new secret: the old one stops working at once. */
  async regenerateSecret(id: number): Promise<ApiClient | undefined> {
    const client = await this.findById(id);
    if (client === undefined) return undefined;
    const generation = client.secretGeneration + 1;
    const row = await this.#context.db
      .updateTable('api_clients')
      .set({
        secret_generation: generation,
        secret_hash: secretHash(deriveClientSecret(this.#masterKey, client.apiKey, generation)),
        updated_at: this.#context.clock(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toApiClient(row);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.#context.db.deleteFrom('api_clients').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** The client's secret (for its owner's settings page and for signing its webhooks). */
  secretOf(client: ApiClient): string {
    return deriveClientSecret(this.#masterKey, client.apiKey, client.secretGeneration);
  }

  async findById(id: number): Promise<ApiClient | undefined> {
    const row = await this.#context.db
      .selectFrom('api_clients')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toApiClient(row);
  }

  async findByApiKey(apiKey: string): Promise<ApiClient | undefined> {
    const row = await this.#context.db
      .selectFrom('api_clients')
      .selectAll()
      .where('api_key', '=', apiKey)
      .executeTakeFirst();
    return row === undefined ? undefined : toApiClient(row);
  }

  /** The client with this id and secret (OAuth client authentication), compared in constant time. */
  async authenticate(apiKey: string, secret: string): Promise<ApiClient | undefined> {
    const row = await this.#context.db
      .selectFrom('api_clients')
      .selectAll()
      .where('api_key', '=', apiKey)
      .executeTakeFirst();
    const matches = constantTimeEqual(row?.secret_hash ?? '', secretHash(secret));
    return row !== undefined && matches ? toApiClient(row) : undefined;
  }

  async listByOwner(ownerId: number): Promise<ApiClient[]> {
    const rows = await this.#context.db
      .selectFrom('api_clients')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toApiClient);
  }
}

/** The settings' texts within their maxima (store/text-limits.ts), else TextTooLongError. */
function assertSettingsFit(settings: ApiClientSettings): void {
  assertFits('name', settings.name.trim(), TEXT_MAX_CHARS.clientName);
  const redirectUris = settings.redirectUris ?? [];
  if (redirectUris.length > MAX_REDIRECT_URIS) {
    throw new TextTooLongError(
      'redirect URIs',
      MAX_REDIRECT_URIS,
      `at most ${MAX_REDIRECT_URIS} redirect URIs can be registered`,
    );
  }
  for (const uri of redirectUris) assertFits('a redirect URI', uri, TEXT_MAX_CHARS.url);
  assertFits('the webhook URL', settings.webhookUrl, TEXT_MAX_CHARS.url);
}

export function toApiClient(row: ApiClientRow): ApiClient {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    apiKey: row.api_key,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    webhookUrl: row.webhook_url,
    webhookAssets: row.webhook_assets
      .split(',')
      .filter((kind): kind is AssetType => kind === 'route' || kind === 'trip'),
    legacyVersion: row.legacy_version,
    secretGeneration: row.secret_generation,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

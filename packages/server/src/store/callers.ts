/**
 * Who is behind a credential, in one query: the token, its API client and its user joined. Every
 * authenticated request asks this, and three separate lookups were a good part of a small request's
 * cost (issue 4's bench/api). A miss says nothing about why; callers then ask the detailed checks
 * (AuthTokens.check, OAuth.findLiveToken) for the message. Both queries are compiled once
 * (db/prepared.ts): compiling them was most of what the check cost.
 */
import { PreparedQuery } from '../db/prepared.js';
import type { ApiClientRow, UserRow } from '../db/schema.js';
import { secretHash } from '../security/secrets.js';
import { toApiClient, type ApiClient } from './api-clients.js';
import { TOUCH_INTERVAL_MS } from './auth-tokens.js';
import type { StoreContext } from './context.js';

export interface ResolvedCaller {
  user: UserRow;
  client: ApiClient;
}

/** The client's columns under names that cannot clash with the user's. */
const CLIENT_COLUMNS = [
  'c.id as client_id',
  'c.owner_id as client_owner_id',
  'c.name as client_name',
  'c.api_key as client_api_key',
  'c.secret_hash as client_secret_hash',
  'c.secret_generation as client_secret_generation',
  'c.redirect_uris as client_redirect_uris',
  'c.webhook_url as client_webhook_url',
  'c.webhook_assets as client_webhook_assets',
  'c.legacy_version as client_legacy_version',
  'c.created_at as client_created_at',
  'c.updated_at as client_updated_at',
] as const;

type ClientColumns = { [K in keyof ApiClientRow as `client_${K}`]: ApiClientRow[K] };

function clientOf(row: ClientColumns): ApiClient {
  return toApiClient({
    id: row.client_id,
    owner_id: row.client_owner_id,
    name: row.client_name,
    api_key: row.client_api_key,
    secret_hash: row.client_secret_hash,
    secret_generation: row.client_secret_generation,
    redirect_uris: row.client_redirect_uris,
    webhook_url: row.client_webhook_url,
    webhook_assets: row.client_webhook_assets,
    legacy_version: row.client_legacy_version,
    created_at: row.client_created_at,
    updated_at: row.client_updated_at,
  });
}

function userOf(row: UserRow): UserRow {
  return {
    id: row.id,
    kind: row.kind,
    email: row.email,
    name: row.name,
    first_name: row.first_name,
    last_name: row.last_name,
    description: row.description,
    password_hash: row.password_hash,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export class Callers {
  readonly #context: StoreContext;
  readonly #authTokenLifetimeMs: number;
  readonly #byAuthToken;
  readonly #byAccessToken;

  constructor(context: StoreContext, authTokenLifetimeMs: number) {
    this.#context = context;
    this.#authTokenLifetimeMs = authTokenLifetimeMs;
    this.#byAuthToken = new PreparedQuery(context.db, 2, (db, tokenHash: string, apiKey: string) =>
      db
        .selectFrom('auth_tokens as t')
        .innerJoin('api_clients as c', 'c.id', 't.api_client_id')
        .innerJoin('users as u', 'u.id', 't.user_id')
        .selectAll('u')
        .select(CLIENT_COLUMNS)
        .select(['t.id as token_id', 't.last_used_at as token_last_used_at'])
        .where('t.token_hash', '=', tokenHash)
        .where('c.api_key', '=', apiKey)
        .where('t.revoked_at', 'is', null),
    );
    this.#byAccessToken = new PreparedQuery(context.db, 1, (db, tokenHash: string) =>
      db
        .selectFrom('oauth_tokens as t')
        .innerJoin('api_clients as c', 'c.id', 't.api_client_id')
        .innerJoin('users as u', 'u.id', 't.user_id')
        .selectAll('u')
        .select(CLIENT_COLUMNS)
        .where('t.token_hash', '=', tokenHash)
        .where('t.revoked_at', 'is', null),
    );
  }

  /** The user and client of a live auth token presented with its client's API key; moves its last use. */
  async byAuthToken(apiKey: string, token: string): Promise<ResolvedCaller | undefined> {
    const row = await this.#byAuthToken.executeTakeFirst(secretHash(token), apiKey);
    if (row === undefined) return undefined;
    const now = this.#context.clock();
    if (now - row.token_last_used_at > this.#authTokenLifetimeMs) return undefined;
    if (now - row.token_last_used_at > TOUCH_INTERVAL_MS) {
      await this.#context.db
        .updateTable('auth_tokens')
        .set({ last_used_at: now })
        .where('id', '=', row.token_id)
        .execute();
    }
    return { user: userOf(row), client: clientOf(row) };
  }

  /** The user and client of a live (unrevoked) OAuth access token. */
  async byAccessToken(token: string): Promise<ResolvedCaller | undefined> {
    const row = await this.#byAccessToken.executeTakeFirst(secretHash(token));
    return row === undefined ? undefined : { user: userOf(row), client: clientOf(row) };
  }
}

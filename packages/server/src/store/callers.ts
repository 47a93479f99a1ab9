/**
 * Who is behind a credential, in one query: the token, its API client and its user joined. Every
 * authenticated request asks this, and three separate lookups were a good part of a small request's
 * cost (issue 4's bench/api). A miss says nothing about why; callers then ask the detailed checks
 * (AuthTokens.check, OAuth.findLiveToken) for the message. Both queries are compiled once
 * (db/prepared.ts): compiling them was most of what the check cost. What they find is kept while the
 * database is unchanged (db/generation.ts): a revoked token, a deleted client or user is a write, in
 * this process or another, so the next lookup asks the database again.
 */
import { PreparedQuery } from '../db/prepared.js';
import type { ApiClientRow, UserRow } from '../db/schema.js';
import { secretHash } from '../security/secrets.js';
import { VersionedCache } from '../versioned-cache.js';
import { toApiClient, type ApiClient } from './api-clients.js';
import { TOUCH_INTERVAL_MS } from './auth-tokens.js';
import type { StoreContext } from './context.js';
import { touchLastUse } from './touch.js';

export interface ResolvedCaller {
  readonly user: Readonly<UserRow>;
  readonly client: Readonly<ApiClient>;
}

/**
 * Callers kept per kind of credential: far more than a local server's users ever present at once. An
 * entry is a user and an API client row with bounded text (store/text-limits), a few KB at most: under
 * 4 MB per kind whatever the database holds (issue 22).
 */
const CACHED_CALLERS = 1000;

interface ResolvedAuthToken {
  caller: ResolvedCaller;
  tokenId: number;
  /** Unix milliseconds, as stored when the caller was resolved */
  lastUsedAt: number;
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

/** Frozen: one resolved caller serves every request until the database changes. */
function callerOf(row: UserRow & ClientColumns): ResolvedCaller {
  return Object.freeze({ user: Object.freeze(userOf(row)), client: Object.freeze(clientOf(row)) });
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
  /** by API key and token hash */
  readonly #authTokens = new VersionedCache<ResolvedAuthToken>(CACHED_CALLERS);
  /** by token hash */
  readonly #accessTokens = new VersionedCache<ResolvedCaller>(CACHED_CALLERS);

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
    const stamp = await this.#context.generation.stamp();
    const tokenHash = secretHash(token);
    const key = `${apiKey}\n${tokenHash}`;
    let resolved = this.#authTokens.get(key, stamp);
    if (resolved === undefined) {
      const row = await this.#byAuthToken.executeTakeFirst(tokenHash, apiKey);
      if (row === undefined) return undefined;
      resolved = { caller: callerOf(row), tokenId: row.token_id, lastUsedAt: row.token_last_used_at };
      this.#authTokens.set(key, stamp, resolved);
    }
    const now = this.#context.clock();
    if (now - resolved.lastUsedAt > this.#authTokenLifetimeMs) return undefined;
    if (now - resolved.lastUsedAt > TOUCH_INTERVAL_MS) {
      // A write: the kept caller is asked for again next time, with its new last use.
      const tokenId = resolved.tokenId;
      await touchLastUse(() =>
        this.#context.db
          .updateTable('auth_tokens')
          .set({ last_used_at: now })
          .where('id', '=', tokenId)
          .execute(),
      );
    }
    return resolved.caller;
  }

  /** The user and client of a live (unrevoked) OAuth access token. */
  async byAccessToken(token: string): Promise<ResolvedCaller | undefined> {
    const stamp = await this.#context.generation.stamp();
    const tokenHash = secretHash(token);
    let caller = this.#accessTokens.get(tokenHash, stamp);
    if (caller === undefined) {
      const row = await this.#byAccessToken.executeTakeFirst(tokenHash);
      if (row === undefined) return undefined;
      caller = callerOf(row);
      this.#accessTokens.set(tokenHash, stamp, caller);
    }
    return caller;
  }
}

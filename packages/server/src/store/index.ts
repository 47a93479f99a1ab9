/**
 * The data-access layer (design.md, "Storage"; issue 4: "Nothing else in the server writes SQL"): one
 * repository per kind of record, all over the same Kysely instance and clock. Every multi-step change
 * runs in one transaction inside its repository.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ResolvedOptions } from '../options.js';
import { ApiClients } from './api-clients.js';
import { AuthTokens } from './auth-tokens.js';
import { OAuth } from './oauth.js';
import { Sessions } from './sessions.js';
import { Users } from './users.js';

export class Store {
  readonly users: Users;
  readonly apiClients: ApiClients;
  readonly authTokens: AuthTokens;
  readonly oauth: OAuth;
  readonly sessions: Sessions;

  constructor(db: Kysely<Database>, options: ResolvedOptions, masterKey: Buffer) {
    const context = { db, clock: options.clock };
    this.users = new Users(context);
    this.apiClients = new ApiClients(context, masterKey);
    this.authTokens = new AuthTokens(context, options.authTokenLifetimeMs);
    this.oauth = new OAuth(context);
    this.sessions = new Sessions(context, options.sessionLifetimeMs);
  }
}

export type { ApiClient, ApiClientSettings } from './api-clients.js';
export type { IssuedAuthToken } from './auth-tokens.js';
export type { OAuthAccessToken, OAuthGrant } from './oauth.js';

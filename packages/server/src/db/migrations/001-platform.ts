/**
 * Migration 1: accounts, API clients, every credential, routes, trips, events and the change log
 * (issue 4; docs/contributors/decisions.md §1–4). Later issues add their own numbered migrations (the upload queue and
 * the webhook outbox come with issue 5).
 */
import { sql, type Kysely } from 'kysely';

/** Columns routes and trips share; see AssetColumns in ../schema.ts. */
const ASSET_COLUMNS = sql`
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  visibility TEXT NOT NULL CHECK (visibility IN ('public', 'friends_only', 'private')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  distance REAL,
  elevation_gain REAL,
  elevation_loss REAL,
  first_lat REAL,
  first_lng REAL,
  last_lat REAL,
  last_lng REAL,
  sw_lat REAL,
  sw_lng REAL,
  ne_lat REAL,
  ne_lng REAL,
  track_type TEXT NOT NULL,
  terrain TEXT NOT NULL,
  point_count INTEGER NOT NULL
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE users (
      id INTEGER PRIMARY KEY,
      kind TEXT NOT NULL CHECK (kind IN ('person', 'organization')),
      email TEXT COLLATE NOCASE UNIQUE,
      name TEXT NOT NULL,
      first_name TEXT,
      last_name TEXT,
      description TEXT,
      password_hash TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      CHECK ((kind = 'person') = (email IS NOT NULL))
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE memberships (
      organization_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
      created_at INTEGER NOT NULL,
      PRIMARY KEY (organization_id, user_id)
    ) STRICT`.execute(db);
  await sql`CREATE INDEX memberships_by_user ON memberships (user_id)`.execute(db);
  await sql`
    CREATE TABLE api_clients (
      id INTEGER PRIMARY KEY,
      owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      api_key TEXT NOT NULL UNIQUE,
      secret_hash TEXT NOT NULL,
      secret_generation INTEGER NOT NULL,
      redirect_uris TEXT NOT NULL,
      webhook_url TEXT,
      webhook_assets TEXT NOT NULL,
      legacy_version INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX api_clients_by_owner ON api_clients (owner_id)`.execute(db);
  await sql`
    CREATE TABLE auth_tokens (
      id INTEGER PRIMARY KEY,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      api_client_id INTEGER NOT NULL REFERENCES api_clients(id) ON DELETE CASCADE,
      token_hash TEXT NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      last_used_at INTEGER NOT NULL,
      revoked_at INTEGER
    ) STRICT`.execute(db);
  await sql`CREATE INDEX auth_tokens_by_user ON auth_tokens (user_id, api_client_id)`.execute(db);
  await sql`
    CREATE TABLE oauth_grants (
      id INTEGER PRIMARY KEY,
      code_hash TEXT NOT NULL UNIQUE,
      api_client_id INTEGER NOT NULL REFERENCES api_clients(id) ON DELETE CASCADE,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      redirect_uri TEXT NOT NULL,
      scope TEXT NOT NULL,
      code_challenge TEXT,
      code_challenge_method TEXT,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE oauth_tokens (
      id INTEGER PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      api_client_id INTEGER NOT NULL REFERENCES api_clients(id) ON DELETE CASCADE,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      grant_id INTEGER REFERENCES oauth_grants(id) ON DELETE SET NULL,
      scope TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      revoked_at INTEGER
    ) STRICT`.execute(db);
  await sql`CREATE INDEX oauth_tokens_by_grant ON oauth_tokens (grant_id)`.execute(db);
  await sql`CREATE INDEX oauth_tokens_by_user ON oauth_tokens (user_id, api_client_id)`.execute(db);
  await sql`
    CREATE TABLE sessions (
      id INTEGER PRIMARY KEY,
      session_hash TEXT NOT NULL UNIQUE,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL,
      last_seen_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE TABLE routes (${ASSET_COLUMNS}) STRICT`.execute(db);
  await sql`
    CREATE TABLE trips (
      ${ASSET_COLUMNS},
      departed_at INTEGER,
      time_zone TEXT,
      activity_type TEXT,
      is_stationary INTEGER NOT NULL,
      duration REAL,
      moving_time REAL,
      avg_speed REAL,
      max_speed REAL,
      avg_cad REAL,
      min_cad REAL,
      max_cad REAL,
      avg_hr REAL,
      min_hr REAL,
      max_hr REAL,
      avg_watts REAL,
      min_watts REAL,
      max_watts REAL,
      calories REAL,
      device TEXT
    ) STRICT`.execute(db);
  // Lists are ordered by updated_at, then id, both descending (docs/contributors/decisions.md §2).
  for (const table of ['routes', 'trips']) {
    await sql`CREATE INDEX ${sql.raw(`${table}_by_user`)} ON ${sql.table(table)} (user_id, updated_at DESC, id DESC)`.execute(
      db,
    );
    await sql`CREATE INDEX ${sql.raw(`${table}_by_update`)} ON ${sql.table(table)} (updated_at DESC, id DESC)`.execute(
      db,
    );
  }
  await sql`
    CREATE TABLE route_track_points (
      asset_id INTEGER PRIMARY KEY REFERENCES routes(id) ON DELETE CASCADE,
      points TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE trip_track_points (
      asset_id INTEGER PRIMARY KEY REFERENCES trips(id) ON DELETE CASCADE,
      points TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`
    CREATE TABLE events (
      id INTEGER PRIMARY KEY,
      user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      description TEXT,
      location TEXT,
      url TEXT,
      start_date TEXT NOT NULL,
      end_date TEXT,
      visibility TEXT NOT NULL CHECK (visibility IN ('public', 'friends_only', 'private')),
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX events_by_user ON events (user_id, updated_at DESC, id DESC)`.execute(db);
  // No foreign key to the asset: a deletion is logged after its row is gone.
  await sql`
    CREATE TABLE asset_changes (
      id INTEGER PRIMARY KEY,
      item_type TEXT NOT NULL CHECK (item_type IN ('route', 'trip')),
      item_id INTEGER NOT NULL,
      item_user_id INTEGER NOT NULL,
      user_id INTEGER NOT NULL,
      action TEXT NOT NULL CHECK (action IN ('created', 'updated', 'deleted')),
      at INTEGER NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX asset_changes_by_owner ON asset_changes (item_user_id, at, id)`.execute(db);
}

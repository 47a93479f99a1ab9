/**
 * Migration 1: accounts, API clients, every credential, routes, trips, events and the change log
 * (issue 4). Later issues add their own numbered migrations (the upload queue and the webhook outbox
 * come with issue 5).
 */
import { sql, type ColumnBuilderCallback } from 'kysely';
import type { MigrationDb, MigrationDialect, TableBuilder } from './dialect.js';

const VISIBILITY = sql`visibility IN ('public', 'friends_only', 'private')`;
const notNull: ColumnBuilderCallback = (column) => column.notNull();
const userId: ColumnBuilderCallback = (column) => column.notNull().references('users.id').onDelete('cascade');
const clientId: ColumnBuilderCallback = (column) =>
  column.notNull().references('api_clients.id').onDelete('cascade');

/** Columns routes and trips share; see AssetColumns in ../schema.ts. */
function assetColumns(table: TableBuilder, { integer, real, text, id }: MigrationDialect): TableBuilder {
  let columns = table
    .addColumn('id', integer, id)
    .addColumn('user_id', integer, userId)
    .addColumn('name', text, notNull)
    .addColumn('description', text)
    .addColumn('visibility', text, (column) => column.notNull().check(VISIBILITY))
    .addColumn('created_at', integer, notNull)
    .addColumn('updated_at', integer, notNull);
  for (const name of [
    'distance',
    'elevation_gain',
    'elevation_loss',
    'first_lat',
    'first_lng',
    'last_lat',
    'last_lng',
    'sw_lat',
    'sw_lng',
    'ne_lat',
    'ne_lng',
  ]) {
    columns = columns.addColumn(name, real);
  }
  return columns
    .addColumn('track_type', text, notNull)
    .addColumn('terrain', text, notNull)
    .addColumn('point_count', integer, notNull);
}

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  const { integer, real, text, id } = dialect;

  await dialect.enableCaseInsensitiveText(db);
  await dialect
    .createTable(db, 'users')
    .addColumn('id', integer, id)
    .addColumn('kind', text, (column) => column.notNull().check(sql`kind IN ('person', 'organization')`))
    .addColumn('email', dialect.caseInsensitiveText, (column) => column.unique())
    .addColumn('name', text, notNull)
    .addColumn('first_name', text)
    .addColumn('last_name', text)
    .addColumn('description', text)
    .addColumn('password_hash', text)
    .addColumn('created_at', integer, notNull)
    .addColumn('updated_at', integer, notNull)
    // Named as PostgreSQL names a CHECK on more than one column that has no name of its own.
    .addCheckConstraint('users_check', sql`(kind = 'person') = (email IS NOT NULL)`)
    .execute();
  await dialect
    .createTable(db, 'memberships')
    .addColumn('organization_id', integer, userId)
    .addColumn('user_id', integer, userId)
    .addColumn('role', text, (column) => column.notNull().check(sql`role IN ('admin', 'member')`))
    .addColumn('created_at', integer, notNull)
    .addPrimaryKeyConstraint('memberships_pkey', ['organization_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_by_user').on('memberships').column('user_id').execute();
  await dialect
    .createTable(db, 'api_clients')
    .addColumn('id', integer, id)
    .addColumn('owner_id', integer, userId)
    .addColumn('name', text, notNull)
    .addColumn('api_key', text, (column) => column.notNull().unique())
    .addColumn('secret_hash', text, notNull)
    .addColumn('secret_generation', integer, notNull)
    .addColumn('redirect_uris', text, notNull)
    .addColumn('webhook_url', text)
    .addColumn('webhook_assets', text, notNull)
    .addColumn('legacy_version', integer, notNull)
    .addColumn('created_at', integer, notNull)
    .addColumn('updated_at', integer, notNull)
    .execute();
  await db.schema.createIndex('api_clients_by_owner').on('api_clients').column('owner_id').execute();
  await dialect
    .createTable(db, 'auth_tokens')
    .addColumn('id', integer, id)
    .addColumn('user_id', integer, userId)
    .addColumn('api_client_id', integer, clientId)
    .addColumn('token_hash', text, (column) => column.notNull().unique())
    .addColumn('created_at', integer, notNull)
    .addColumn('updated_at', integer, notNull)
    .addColumn('last_used_at', integer, notNull)
    .addColumn('revoked_at', integer)
    .execute();
  await db.schema
    .createIndex('auth_tokens_by_user')
    .on('auth_tokens')
    .columns(['user_id', 'api_client_id'])
    .execute();
  await dialect
    .createTable(db, 'oauth_grants')
    .addColumn('id', integer, id)
    .addColumn('code_hash', text, (column) => column.notNull().unique())
    .addColumn('api_client_id', integer, clientId)
    .addColumn('user_id', integer, userId)
    .addColumn('redirect_uri', text, notNull)
    .addColumn('scope', text, notNull)
    .addColumn('code_challenge', text)
    .addColumn('code_challenge_method', text)
    .addColumn('created_at', integer, notNull)
    .addColumn('expires_at', integer, notNull)
    .addColumn('used_at', integer)
    .execute();
  await dialect
    .createTable(db, 'oauth_tokens')
    .addColumn('id', integer, id)
    .addColumn('token_hash', text, (column) => column.notNull().unique())
    .addColumn('api_client_id', integer, clientId)
    .addColumn('user_id', integer, userId)
    .addColumn('grant_id', integer, (column) => column.references('oauth_grants.id').onDelete('set null'))
    .addColumn('scope', text, notNull)
    .addColumn('created_at', integer, notNull)
    .addColumn('revoked_at', integer)
    .execute();
  await db.schema.createIndex('oauth_tokens_by_grant').on('oauth_tokens').column('grant_id').execute();
  await db.schema
    .createIndex('oauth_tokens_by_user')
    .on('oauth_tokens')
    .columns(['user_id', 'api_client_id'])
    .execute();
  await dialect
    .createTable(db, 'sessions')
    .addColumn('id', integer, id)
    .addColumn('session_hash', text, (column) => column.notNull().unique())
    .addColumn('user_id', integer, userId)
    .addColumn('created_at', integer, notNull)
    .addColumn('last_seen_at', integer, notNull)
    .addColumn('expires_at', integer, notNull)
    .execute();
  await assetColumns(dialect.createTable(db, 'routes'), dialect).execute();
  let trips = assetColumns(dialect.createTable(db, 'trips'), dialect)
    .addColumn('departed_at', integer)
    .addColumn('time_zone', text)
    .addColumn('activity_type', text)
    .addColumn('is_stationary', integer, notNull);
  for (const name of [
    'duration',
    'moving_time',
    'avg_speed',
    'max_speed',
    'avg_cad',
    'min_cad',
    'max_cad',
    'avg_hr',
    'min_hr',
    'max_hr',
    'avg_watts',
    'min_watts',
    'max_watts',
    'calories',
  ]) {
    trips = trips.addColumn(name, real);
  }
  await trips.addColumn('device', text).execute();
  // Lists are ordered by updated_at, then id, both descending.
  for (const table of ['routes', 'trips']) {
    await db.schema
      .createIndex(`${table}_by_user`)
      .on(table)
      .columns(['user_id', 'updated_at desc', 'id desc'])
      .execute();
    await db.schema
      .createIndex(`${table}_by_update`)
      .on(table)
      .columns(['updated_at desc', 'id desc'])
      .execute();
  }
  for (const [table, assets] of [
    ['route_track_points', 'routes'],
    ['trip_track_points', 'trips'],
  ] as const) {
    await dialect
      .createTable(db, table)
      .addColumn('asset_id', integer, (column) =>
        column.primaryKey().references(`${assets}.id`).onDelete('cascade'),
      )
      .addColumn('points', text, notNull)
      .execute();
  }
  await dialect
    .createTable(db, 'events')
    .addColumn('id', integer, id)
    .addColumn('user_id', integer, userId)
    .addColumn('name', text, notNull)
    .addColumn('description', text)
    .addColumn('location', text)
    .addColumn('url', text)
    .addColumn('start_date', text, notNull)
    .addColumn('end_date', text)
    .addColumn('visibility', text, (column) => column.notNull().check(VISIBILITY))
    .addColumn('created_at', integer, notNull)
    .addColumn('updated_at', integer, notNull)
    .execute();
  await db.schema
    .createIndex('events_by_user')
    .on('events')
    .columns(['user_id', 'updated_at desc', 'id desc'])
    .execute();
  // No foreign key to the asset: a deletion is logged after its row is gone.
  await dialect
    .createTable(db, 'asset_changes')
    .addColumn('id', integer, id)
    .addColumn('item_type', text, (column) => column.notNull().check(sql`item_type IN ('route', 'trip')`))
    .addColumn('item_id', integer, notNull)
    .addColumn('item_user_id', integer, notNull)
    .addColumn('user_id', integer, notNull)
    .addColumn('action', text, (column) =>
      column.notNull().check(sql`action IN ('created', 'updated', 'deleted')`),
    )
    .addColumn('at', integer, notNull)
    .execute();
  await db.schema
    .createIndex('asset_changes_by_owner')
    .on('asset_changes')
    .columns(['item_user_id', 'at', 'id'])
    .execute();
}

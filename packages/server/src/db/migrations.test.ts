/**
 * Issue 35: the migrations make, on each engine, exactly the schema the migration trees before issue 35
 * made, and move stored rows as they moved them. What those trees gave was recorded once in
 * db/before-issue-35/ (the commit that added this test ran it against them); never record it again.
 *
 * - `*-shape.json`: the schema as the engines are compared on it (test-support/schema-shape.ts).
 * - `*-details.json`: what that shape leaves out (types as declared, defaults, CHECKs, STRICT,
 *   AUTOINCREMENT, index order and conditions, triggers and their functions, constraint names,
 *   PostgreSQL's storage and compression settings), read below.
 * - `postgres-migrations.json`: the SQL PostgreSQL's migrations sent, to make databases as those
 *   versions left them.
 * - `sqlite-data.json`: the rows of a database that old versions filled step by step (rows written
 *   after 001, 003, 004 and 007, as servers of those versions wrote them), once every later migration
 *   has run: the backfills of 002, 004, 008, 009 and 012 included. PostgreSQL must move them alike.
 *
 * PostgreSQL databases of those versions recorded `009-baseline` and `010-…` to `015-…`; they are made
 * here by replaying postgres-migrations.json, and must open under this tree with the same rows, their
 * history adopted (migrations/postgres-dialect.ts, `adoptHistory`), and end as a new database of this
 * tree does. The migrations since (016 on) are checked on those rows too: each column one adds is
 * listed in ADDED_SINCE_35 with the value older rows take.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
  type MigrationProvider,
  type RawBuilder,
} from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownPostgresCluster, type PostgresCluster } from '../test-support/postgres-cluster.js';
import { postgresShape, sqliteShape } from '../test-support/schema-shape.js';
import { MIGRATIONS, migrationProvider } from './migrations/index.js';
import { BASELINE_NOW, postgresMigrationDialect } from './migrations/postgres-dialect.js';
import { openPostgres } from './postgres.js';
import { sqliteMigrationDialect } from './migrations/sqlite-dialect.js';

const sqliteMigrations = migrationProvider(sqliteMigrationDialect);
const postgresMigrations = migrationProvider(postgresMigrationDialect);

const before = (name: string): URL => new URL(`./before-issue-35/${name}`, import.meta.url);

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(before(name), 'utf8')) as unknown;
}

function expectFixture(name: string, actual: unknown): void {
  expect(actual).toEqual(fixture(name));
}

/**
 * PostgreSQL's migrations before issue 35 (`009-baseline`, then `010-…` to `015-…`) as the SQL they
 * sent, recorded in before-issue-35/postgres-migrations.json: a database as those versions made it.
 */
function postgresMigrationsBefore35(): MigrationProvider {
  const sent = fixture('postgres-migrations.json') as { name: string; statements: string[] }[];
  const migrations = Object.fromEntries(
    sent.map(({ name, statements }) => [
      name,
      {
        async up(db: Db): Promise<void> {
          for (const statement of statements) await sql.raw(statement).execute(db);
        },
      },
    ]),
  );
  return { getMigrations: () => Promise.resolve(migrations) };
}

// ---------------------------------------------------------------------------------------------------
// The engines

type Db = Kysely<unknown>;

function sqliteDb(): Db {
  return new Kysely({ dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }) });
}

/** A Kysely over `url` that gives 64-bit integers as numbers, as db/postgres.ts does. */
function postgresDb(url: string): Db {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, Number);
  return new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, types }) }),
  });
}

async function migrateTo(db: Db, provider: MigrationProvider, name?: string): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error } = name === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(name);
  if (error !== undefined) throw error instanceof Error ? error : new Error(JSON.stringify(error));
}

// ---------------------------------------------------------------------------------------------------
// What the shape leaves out

/** Lower case, no identifier quotes, white space folded and none beside brackets and commas. */
function folded(text: string): string {
  return text
    .replace(/["`]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),])\s*/g, '$1')
    .trim()
    .toLowerCase();
}

/** The bracketed expressions after each CHECK in a CREATE TABLE statement, folded. */
function checksOf(create: string): string[] {
  const checks: string[] = [];
  const pattern = /\bcheck\s*\(/gi;
  for (let match = pattern.exec(create); match !== null; match = pattern.exec(create)) {
    let depth = 0;
    let end = match.index + match[0].length - 1;
    for (; end < create.length; end++) {
      if (create[end] === '(') depth += 1;
      else if (create[end] === ')' && --depth === 0) break;
    }
    checks.push(folded(create.slice(match.index + match[0].length, end)));
  }
  return checks.sort();
}

async function sqliteDetails(db: Db): Promise<Record<string, unknown>> {
  const objects = await sql<{ type: string; name: string; tbl_name: string; sql: string | null }>`
    SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name`.execute(db);
  const tables: Record<string, unknown> = {};
  for (const table of objects.rows.filter((row) => row.type === 'table')) {
    if (table.name.startsWith('kysely_') || table.name === 'sqlite_sequence') continue;
    const create = table.sql ?? '';
    const list = await sql<{ strict: number }>`
      SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = ${table.name}`.execute(db);
    const columns = await sql<{ name: string; type: string; notnull: number; dflt_value: string | null }>`
      SELECT name, type, "notnull", dflt_value FROM pragma_table_info(${table.name})`.execute(db);
    const indexes = await sql<{ name: string; unique: number; origin: string; partial: number }>`
      SELECT name, "unique", origin, partial FROM pragma_index_list(${table.name}) ORDER BY name`.execute(db);
    const indexWords: string[] = [];
    for (const index of indexes.rows) {
      const keys = await sql<{ name: string | null; desc: number; coll: string }>`
        SELECT name, "desc", coll FROM pragma_index_xinfo(${index.name}) WHERE key = 1 ORDER BY seqno`.execute(
        db,
      );
      const indexSql = objects.rows.find((row) => row.name === index.name)?.sql ?? '';
      const where = /\bwhere\b([\s\S]*)$/i.exec(indexSql)?.[1];
      const keyWords = keys.rows.map(
        (key) => `${key.name ?? '?'}${key.desc === 1 ? ' desc' : ''} ${key.coll}`,
      );
      indexWords.push(
        `${index.origin} ${index.unique === 1 ? 'unique ' : ''}${index.origin === 'c' ? `${index.name} ` : ''}` +
          `(${keyWords.join(', ')})${where === undefined ? '' : ` where ${folded(where)}`}`,
      );
    }
    const keys = await sql<{
      id: number;
      table: string;
      from: string;
      to: string;
      on_update: string;
      on_delete: string;
    }>`
      SELECT id, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(${table.name})
      ORDER BY id, seq`.execute(db);
    tables[table.name] = {
      strict: list.rows[0]?.strict === 1,
      autoincrement: /\bautoincrement\b/i.test(create),
      columns: Object.fromEntries(
        columns.rows.map((column) => [
          column.name,
          `${column.type.toUpperCase()}${column.notnull === 1 ? ' NOT NULL' : ''}` +
            (column.dflt_value === null ? '' : ` DEFAULT ${column.dflt_value}`) +
            (new RegExp(`\\b${column.name}["\`]?\\s+TEXT\\s+COLLATE\\s+NOCASE`, 'i').test(create)
              ? ' COLLATE NOCASE'
              : ''),
        ]),
      ),
      checks: checksOf(create),
      indexes: indexWords.sort(),
      foreignKeys: keys.rows
        .map(
          (key) =>
            `${key.from} -> ${key.table}(${key.to}) on update ${key.on_update} on delete ${key.on_delete}`,
        )
        .sort(),
    };
  }
  const triggers = objects.rows
    .filter((row) => row.type === 'trigger')
    .map((row) => ({ name: row.name, table: row.tbl_name, sql: folded(row.sql ?? '') }));
  return { tables, triggers };
}

async function postgresDetails(db: Db): Promise<Record<string, unknown>> {
  const rows = async <R>(query: RawBuilder<R>): Promise<R[]> => (await query.execute(db)).rows;
  const columns = await rows(sql<{
    table: string;
    name: string;
    words: string;
  }>`
    SELECT c.relname AS table, a.attname AS name,
      format_type(a.atttypid, a.atttypmod)
        || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
        || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
        || CASE a.attidentity WHEN 'd' THEN ' IDENTITY BY DEFAULT' WHEN 'a' THEN ' IDENTITY ALWAYS' ELSE '' END
        || ' STORAGE ' || a.attstorage::text
        || CASE WHEN a.attcompression::text <> '' THEN ' COMPRESSION ' || a.attcompression::text ELSE '' END
        || CASE WHEN a.attcollation NOT IN (0, 100) THEN ' COLLATE ' || (SELECT collname FROM pg_collation WHERE oid = a.attcollation) ELSE '' END
        AS words
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
      AND c.relname NOT LIKE 'kysely\\_%'
    ORDER BY c.relname, a.attnum`);
  const constraints = await rows(sql<{ table: string; words: string }>`
    SELECT c.relname AS table, k.conname || ': ' || pg_get_constraintdef(k.oid) AS words
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relname NOT LIKE 'kysely\\_%'
    ORDER BY 1, 2`);
  const indexes = await rows(sql<{ table: string; words: string }>`
    SELECT tablename AS table, indexdef AS words FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename NOT LIKE 'kysely\\_%' ORDER BY 1, 2`);
  const tables: Record<
    string,
    { columns: Record<string, string>; constraints: string[]; indexes: string[] }
  > = {};
  for (const column of columns) {
    (tables[column.table] ??= { columns: {}, constraints: [], indexes: [] }).columns[column.name] =
      column.words;
  }
  for (const constraint of constraints) tables[constraint.table]?.constraints.push(constraint.words);
  for (const index of indexes) tables[index.table]?.indexes.push(index.words);
  const triggers = await rows(sql<{ words: string }>`
    SELECT pg_get_triggerdef(t.oid) AS words FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE NOT t.tgisinternal AND n.nspname = current_schema() ORDER BY 1`);
  // Functions of our own: not those an extension (citext) brings.
  const functions = await rows(sql<{ words: string }>`
    SELECT pg_get_functiondef(p.oid) AS words FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = current_schema()
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
    ORDER BY p.proname`);
  const sequences = await rows(sql<{ words: string }>`
    SELECT s.relname || ' start ' || q.seqstart || ' increment ' || q.seqincrement AS words
    FROM pg_sequence q JOIN pg_class s ON s.oid = q.seqrelid JOIN pg_namespace n ON n.oid = s.relnamespace
    WHERE n.nspname = current_schema() ORDER BY 1`);
  const extensions = await rows(sql<{ name: string }>`
    SELECT extname AS name FROM pg_extension WHERE extname <> 'plpgsql' ORDER BY 1`);
  return {
    tables,
    triggers: triggers.map((row) => row.words),
    // Bodies are compared with their white space folded: the layout of the text is not the schema.
    functions: functions.map((row) => row.words.replace(/\s+/g, ' ').trim()),
    sequences: sequences.map((row) => row.words),
    extensions: extensions.map((row) => row.name),
  };
}

// ---------------------------------------------------------------------------------------------------
// Rows, as old versions wrote them

const T = 1_717_232_400_000;

/** Points as the JSON column holds them. */
const TIMED_POINTS = JSON.stringify([
  { x: 8.5417, y: 47.3769, e: 408.2, t: 1717232400 },
  { x: 8.5419, y: 47.3771 },
  { x: 8.5422, y: 47.3774, t: 1717232460 },
]);
const UNTIMED_POINTS = JSON.stringify([
  { x: 8.5417, y: 47.3769 },
  { x: 8.5419, y: 47.3771 },
]);
/** Four points packed in version 2 (store/track-points.ts as of issue 21), one without a time. */
const PACKED_VERSION_2 = Buffer.from(
  '02006f000400000004000000010400000000000090daf4400002050900000000040000000104000000000000a4ea1c410002050a00' +
    '00000004000000010100000000000000e4af4000020608000000000300000001000000000000c4b896d9410d00000000000000' +
    '000205000000000002000000010000000000000000005e400c0000000000000000010000000000000100000001000000000000' +
    '0000406a4008000000000000000000000000000000',
  'hex',
);

/** Points packed in version 1, as servers before issue 5's figures wrote them: float64 values only. */
function packedVersion1(points: Record<string, number>[]): Buffer {
  const keys = ['x', 'y', 'e', 't', 'c', 'h', 'p', 's', 'd', 'T'];
  const present = keys.map((key) => points.filter((point) => point[key] !== undefined).length);
  const bitmapBytes = Math.ceil(Math.ceil(points.length / 8) / 8) * 8;
  const parts: Buffer[] = [];
  const header = Buffer.alloc(8);
  header.writeUInt8(1, 0);
  header.writeUInt16LE(
    present.reduce((mask, n, k) => (n > 0 ? mask | (1 << k) : mask), 0),
    2,
  );
  header.writeUInt32LE(points.length, 4);
  parts.push(header);
  keys.forEach((key, k) => {
    const n = present[k]!;
    if (n === 0) return;
    const section = Buffer.alloc(8);
    section.writeUInt32LE(n, 0);
    parts.push(section);
    if (n < points.length) {
      const bitmap = Buffer.alloc(bitmapBytes);
      points.forEach((point, i) => {
        if (point[key] !== undefined) bitmap[i >> 3]! |= 1 << (i & 7);
      });
      parts.push(bitmap);
    }
    for (const point of points) {
      if (point[key] === undefined) continue;
      const value = Buffer.alloc(8);
      value.writeDoubleLE(point[key], 0);
      parts.push(value);
    }
  });
  return Buffer.concat(parts);
}

const PACKED_VERSION_1 = packedVersion1([
  { x: 7.1, y: 46.2, t: 1717300000 },
  { x: 7.2, y: 46.3 },
  { x: 7.3, y: 46.4, t: 1717300042.5 },
]);

const asset = (id: number, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  user_id: 1,
  name,
  description: null,
  visibility: 'public',
  created_at: T + id,
  updated_at: T + id,
  distance: 1234.5,
  first_lat: 47.3769,
  first_lng: 8.5417,
  track_type: 'loop',
  terrain: 'flat',
  point_count: 3,
  ...extra,
});

const tripColumns = { is_stationary: 0, departed_at: T, duration: 3600.25, device: 'Edge 530' };

/** Rows of a version that had migrations up to 001. */
async function rowsAfter001(db: Db): Promise<void> {
  const insert = (table: string, rows: Record<string, unknown>[]) =>
    db
      .insertInto(table as never)
      .values(rows)
      .execute();
  await insert('users', [
    {
      id: 1,
      kind: 'person',
      email: 'Rider@Example.com',
      name: 'n'.repeat(300),
      first_name: 'Anna',
      last_name: 'l'.repeat(256),
      password_hash: 'hash',
      created_at: T,
      updated_at: T,
    },
    {
      id: 2,
      kind: 'organization',
      name: 'Club',
      description: 'd'.repeat(10_050),
      created_at: T,
      updated_at: T,
    },
  ]);
  await insert('memberships', [{ organization_id: 2, user_id: 1, role: 'admin', created_at: T }]);
  await insert('api_clients', [
    {
      id: 1,
      owner_id: 1,
      name: 'c'.repeat(150),
      api_key: 'key',
      secret_hash: 'secret',
      secret_generation: 1,
      redirect_uris: '[]',
      webhook_assets: '["trip"]',
      legacy_version: 1,
      created_at: T,
      updated_at: T,
    },
  ]);
  await insert('routes', [
    asset(1, 'Loop'),
    asset(2, `  Route\tto the\u202e lake ${'r'.repeat(300)}`, { description: 'x'.repeat(10_001) }),
  ]);
  await insert('trips', [
    asset(1, 'Morning ride', tripColumns),
    // More bytes than migration 009 reads as a text's start: its characters are counted in pieces.
    asset(2, 'é'.repeat(70_000), tripColumns),
    asset(3, 'Evening lap', { ...tripColumns, device: `Edge ${'d'.repeat(300)}` }),
    asset(4, 'Stationary', { ...tripColumns, is_stationary: 1, description: 'y'.repeat(10_001) }),
  ]);
  await insert('route_track_points', [
    { asset_id: 1, points: UNTIMED_POINTS },
    { asset_id: 2, points: UNTIMED_POINTS },
  ]);
  await insert('trip_track_points', [
    { asset_id: 1, points: TIMED_POINTS },
    { asset_id: 2, points: TIMED_POINTS },
    { asset_id: 3, points: '[]' },
    { asset_id: 4, points: UNTIMED_POINTS },
  ]);
  await insert('events', [
    {
      id: 3,
      user_id: 1,
      name: 'Gran Fondo',
      start_date: '2024-06-01',
      visibility: 'public',
      created_at: T,
      updated_at: T,
    },
  ]);
  // Deleted assets the change log remembers: their ids are never drawn again (migration 002).
  await insert('asset_changes', [
    { item_type: 'trip', item_id: 1, item_user_id: 1, user_id: 1, action: 'created', at: T },
    { item_type: 'trip', item_id: 9, item_user_id: 1, user_id: 1, action: 'deleted', at: T + 1 },
    { item_type: 'route', item_id: 7, item_user_id: 1, user_id: 1, action: 'deleted', at: T + 2 },
  ]);
}

/** Rows of a version that had migrations up to 003: an upload and what it made, a club route. */
async function rowsAfter003(db: Db): Promise<void> {
  await db
    .insertInto('queued_tasks' as never)
    .values({
      id: 1,
      user_id: 1,
      api_client_id: 1,
      status: 1,
      response_code: 'success',
      message: `Already on the platform as ${'x'.repeat(5000)}`,
      progress: 100,
      sha256: '0'.repeat(64),
      filename: `${'f'.repeat(300)}.gpx`,
      byte_length: 1,
      metadata: '{}',
      attempts: 1,
      created_at: T,
      updated_at: T,
      finished_at: T,
    })
    .execute();
  // Associated in this order, which is not the key's: migration 012 keeps it.
  for (const [type, id] of [
    ['trip', 3],
    ['trip', 1],
    ['route', 2],
  ] as const) {
    await db
      .insertInto('task_objects' as never)
      .values({ task_id: 1, asset_type: type, asset_id: id })
      .execute();
  }
  await db
    .insertInto('club_routes' as never)
    .values({ organization_id: 2, route_id: 1, shared_by: 1, created_at: T })
    .execute();
  await sql`UPDATE trips SET source_sha256 = ${'0'.repeat(64)} WHERE id = 3`.execute(db);
}

/** Rows of a version that had migrations up to 004: points stored packed only. */
async function rowsAfter004(db: Db): Promise<void> {
  await db
    .insertInto('trips' as never)
    .values([asset(5, 'Packed', tripColumns), asset(6, 'Packed long ago', tripColumns)] as never)
    .execute();
  await db
    .insertInto('trip_track_points' as never)
    .values([
      { asset_id: 5, packed: PACKED_VERSION_2 },
      { asset_id: 6, packed: PACKED_VERSION_1 },
    ] as never)
    .execute();
}

/** Rows of a version that had migrations up to 007: warnings, rendered records. */
async function rowsAfter007(db: Db): Promise<void> {
  const many = Array.from({ length: 60 }, (_, i) => ({
    code: 'RIDEFILE_BAD_CRC',
    message: `${i} ${'m'.repeat(4000)}`,
  }));
  await sql`UPDATE trips SET warnings = ${JSON.stringify(many)} WHERE id = 1`.execute(db);
  await sql`UPDATE trips SET warnings = ${'[{"code":"RIDEFILE_TRUNCATED","message":"cut"}]'} WHERE id = 3`.execute(
    db,
  );
  await sql`UPDATE routes SET warnings = '[]', last_point_at = NULL WHERE id = 2`.execute(db);
  for (const table of ['routes', 'trips']) {
    await sql`UPDATE ${sql.table(table)} SET record_json = '{"rendered":true}', record_format = 3`.execute(
      db,
    );
  }
}

/** A database as versions since 001 filled it, brought to the newest schema by `provider`. */
async function filledStepByStep(db: Db, provider: MigrationProvider): Promise<void> {
  await migrateTo(db, provider, '001-platform');
  await rowsAfter001(db);
  await migrateTo(db, provider, '003-queue-clubs-webhooks');
  await rowsAfter003(db);
  await migrateTo(db, provider, '004-packed-track-points');
  await rowsAfter004(db);
  await migrateTo(db, provider, '007-asset-warnings');
  await rowsAfter007(db);
  await migrateTo(db, provider);
}

/** The last migration of the trees before issue 35: what the recorded fixtures describe. */
const LAST_BEFORE_35 = '015-blob-storage';

/**
 * Columns the migrations since issue 35 added, each with the value the rows stored before it take:
 * a migration that adds a column adds it here.
 */
const ADDED_SINCE_35: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  queued_tasks: { gzipped_by_server: 0 }, // 016
  task_uploads: { large_value_id: null }, // 017
  original_files: { large_value_id: null }, // 017
};

/** Tables the migrations since issue 35 made: empty in a database of an older version, then left out. */
const TABLES_ADDED_SINCE_35: readonly string[] = ['large_values', 'large_value_parts']; // 017

/**
 * Rows read now, as a database of a version before issue 35 held them: each column added since is
 * checked to hold what older rows take, then left out.
 */
function asBefore35(all: Record<string, unknown[]>): Record<string, unknown[]> {
  for (const table of TABLES_ADDED_SINCE_35) expect(all[table], table).toEqual([]);
  return Object.fromEntries(
    Object.entries(all)
      .filter(([table]) => !TABLES_ADDED_SINCE_35.includes(table))
      .map(([table, rows]) => {
        const added = ADDED_SINCE_35[table] ?? {};
        const kept = (rows as Record<string, unknown>[]).map((row) => {
          for (const [column, value] of Object.entries(added)) {
            expect(row[column], `${table}.${column}`).toEqual(value);
          }
          return Object.fromEntries(Object.entries(row).filter(([column]) => !(column in added)));
        });
        return [table, kept];
      }),
  );
}

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** A value as the data fixture holds it: long texts and bytes by their length, digest and start. */
function summarised(value: unknown): unknown {
  if (Buffer.isBuffer(value)) {
    return value.length <= 64 ? `bytes ${value.toString('hex')}` : `${value.length} bytes ${sha256(value)}`;
  }
  if (typeof value === 'string' && value.length > 120) {
    return `${Array.from(value).length} chars ${sha256(value)} ${value.slice(0, 40)}…`;
  }
  return value;
}

/** Every table's rows, each with its columns in name order, sorted. */
async function contents(db: Db, tables: string[]): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const table of [...tables].sort()) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(db);
    all[table] = sortedRows(
      rows.map((row) =>
        Object.fromEntries(
          Object.keys(row)
            .sort()
            .map((column) => [column, summarised(row[column])]),
        ),
      ),
    );
  }
  return all;
}

function sortedRows(rows: unknown[]): unknown[] {
  return rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

/** Every table's rows of a PostgreSQL database, as `contents` gives them. */
async function postgresRows(db: Db): Promise<Record<string, unknown[]>> {
  return contents(db, Object.keys(await postgresShape(db)));
}

/** The rows of kysely_migration, by name. */
async function history(db: Db): Promise<Record<string, string>> {
  const { rows } = await sql<{ name: string; timestamp: string }>`
    SELECT name, timestamp FROM kysely_migration ORDER BY name`.execute(db);
  return Object.fromEntries(rows.map((row) => [row.name, row.timestamp]));
}

/** Rows of every kind the versions since 001 wrote, written at once into a newer schema. */
async function rowsOfEveryVersion(db: Db): Promise<void> {
  await rowsAfter001(db);
  await rowsAfter003(db);
  await rowsAfter004(db);
  await rowsAfter007(db);
}

// ---------------------------------------------------------------------------------------------------

it('keep the names SQLite databases since 001 have recorded, and PostgreSQL adopts the first nine', () => {
  const names = Object.keys(MIGRATIONS);
  expect(names.slice(0, 15)).toEqual([
    '001-platform',
    '002-asset-records',
    '003-queue-clubs-webhooks',
    '004-packed-track-points',
    '005-laps',
    '006-sign-in-links',
    '007-asset-warnings',
    '008-recordings',
    '009-bounded-text',
    '010-original-files',
    '011-preferences',
    '012-task-object-order',
    '013-rate-windows',
    '014-change-signals',
    '015-blob-storage',
  ]);
  // Later ones follow in their numbered order.
  names.forEach((name, index) => {
    expect(name.slice(0, 4)).toBe(`${String(index + 1).padStart(3, '0')}-`);
  });
  expect(BASELINE_NOW).toEqual(names.slice(0, 9));
});

describe('the migrations on SQLite', () => {
  it('make the schema the migrations before issue 35 made', async () => {
    const db = sqliteDb();
    try {
      await migrateTo(db, sqliteMigrations, LAST_BEFORE_35);
      expectFixture('sqlite-shape.json', await sqliteShape(db));
      expectFixture('sqlite-details.json', await sqliteDetails(db));
    } finally {
      await db.destroy();
    }
  });

  it('move the rows of older versions as the migrations before issue 35 moved them', async () => {
    const db = sqliteDb();
    try {
      await filledStepByStep(db, sqliteMigrations);
      expectFixture('sqlite-data.json', asBefore35(await contents(db, Object.keys(await sqliteShape(db)))));
    } finally {
      await db.destroy();
    }
  });
});

const ownCluster = ownPostgresCluster('migration tests on PostgreSQL');
let cluster: PostgresCluster | undefined;
/** a session on the cluster's `postgres` database, which makes the others */
let admin: Db | undefined;
let databaseCount = 0;

/** The URL of a new, empty database on the cluster. */
async function newPostgresUrl(): Promise<string> {
  databaseCount += 1;
  const name = `migrations_${databaseCount}`;
  await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin!);
  return cluster!.url(name);
}

describe.skipIf(ownCluster.skipped !== null)('on PostgreSQL', () => {
  beforeAll(async () => {
    cluster = await ownCluster.start();
    admin = postgresDb(cluster.url('postgres'));
  }, 60_000);
  afterAll(async () => {
    await admin?.destroy();
    cluster?.stop();
  });

  describe('the migrations', () => {
    it('make the schema the migrations before issue 35 made', async () => {
      const db = postgresDb(await newPostgresUrl());
      try {
        await migrateTo(db, postgresMigrations, LAST_BEFORE_35);
        expectFixture('postgres-shape.json', await postgresShape(db));
        expectFixture('postgres-details.json', await postgresDetails(db));
      } finally {
        await db.destroy();
      }
    });

    it('are what before-issue-35/postgres-migrations.json replays', async () => {
      const db = postgresDb(await newPostgresUrl());
      try {
        await migrateTo(db, postgresMigrationsBefore35());
        expect(await postgresShape(db)).toEqual(fixture('postgres-shape.json'));
        expect(await postgresDetails(db)).toEqual(fixture('postgres-details.json'));
      } finally {
        await db.destroy();
      }
    });

    it("move the rows of older versions as SQLite's moved them", async () => {
      const db = postgresDb(await newPostgresUrl());
      try {
        await filledStepByStep(db, postgresMigrations);
        const expected = fixture('sqlite-data.json') as Record<string, Record<string, unknown>[]>;
        // SQLite draws ids from a table of its own (migration 002), PostgreSQL from its sequences; and
        // PostgreSQL keeps no order of insertion for migration 012 to keep (databases made before it
        // were SQLite's).
        delete expected.id_sequences;
        expected.task_objects = sortedRows(
          expected.task_objects!.map((row) => ({ ...row, position: 0 })),
        ) as Record<string, unknown>[];
        expect(asBefore35(await postgresRows(db))).toEqual(expected);
      } finally {
        await db.destroy();
      }
    });
  });

  describe('databases of versions before issue 35', () => {
    let latest: Promise<{ shape: unknown; details: unknown }> | undefined;
    /** The schema of a new database migrated by this tree: what an older one must end as. */
    function latestPostgres(): Promise<{ shape: unknown; details: unknown }> {
      latest ??= (async () => {
        const db = postgresDb(await newPostgresUrl());
        try {
          await migrateTo(db, postgresMigrations);
          return { shape: await postgresShape(db), details: await postgresDetails(db) };
        } finally {
          await db.destroy();
        }
      })();
      return latest;
    }

    /** A database as a version before issue 35 left it (migrated up to `last`), holding rows of every kind. */
    async function oldDatabase(last?: string): Promise<{ url: string; db: Db }> {
      const url = await newPostgresUrl();
      const db = postgresDb(url);
      await migrateTo(db, postgresMigrationsBefore35(), last);
      await rowsOfEveryVersion(db);
      return { url, db };
    }

    it('open with the same schema and rows, their history under the names of the migrations that made it', async () => {
      const { url, db } = await oldDatabase();
      try {
        const rows = await postgresRows(db);
        const before = await history(db);
        expect(Object.keys(before)).toEqual(Object.keys(await postgresMigrationsBefore35().getMigrations()));
        expect(Object.keys(before)[0]).toBe('009-baseline');
        const opened = await openPostgres(url);
        await opened.close();
        expect(asBefore35(await postgresRows(db))).toEqual(rows);
        expect(await postgresShape(db)).toEqual((await latestPostgres()).shape);
        expect(await postgresDetails(db)).toEqual((await latestPostgres()).details);
        const after = await history(db);
        expect(Object.keys(after)).toEqual(Object.keys(MIGRATIONS));
        // The nine were made when the baseline was; the later ones keep their own times.
        for (const name of BASELINE_NOW) expect(after[name]).toBe(before['009-baseline']);
        for (const name of Object.keys(before).slice(1)) expect(after[name]).toBe(before[name]);

        // Opened again, there is nothing left to adopt or to run.
        await (await openPostgres(url)).close();
        expect(await history(db)).toEqual(after);
      } finally {
        await db.destroy();
      }
    });

    it('adopt their history once when several servers start on one at the same moment', async () => {
      const { url, db } = await oldDatabase();
      try {
        const rows = await postgresRows(db);
        const nodes = await Promise.all([openPostgres(url), openPostgres(url), openPostgres(url)]);
        await Promise.all(nodes.map((node) => node.close()));
        expect(Object.keys(await history(db))).toEqual(Object.keys(MIGRATIONS));
        expect(asBefore35(await postgresRows(db))).toEqual(rows);
      } finally {
        await db.destroy();
      }
    });

    it('run the migrations after those an older version had, and end as a database it migrated fully', async () => {
      const first = await oldDatabase('009-baseline');
      const full = await oldDatabase();
      try {
        expect(Object.keys(await history(first.db))).toEqual(['009-baseline']);
        await (await openPostgres(first.url)).close();
        expect(Object.keys(await history(first.db))).toEqual(Object.keys(MIGRATIONS));
        expect(await postgresShape(first.db)).toEqual((await latestPostgres()).shape);
        expect(await postgresDetails(first.db)).toEqual((await latestPostgres()).details);
        expect(asBefore35(await postgresRows(first.db))).toEqual(await postgresRows(full.db));
      } finally {
        await first.db.destroy();
        await full.db.destroy();
      }
    });
  });
});

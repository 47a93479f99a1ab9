/**
 * A database's schema as the engines can be compared on it (issue 18: "a test that compares the two
 * schemas through introspection, so they cannot drift"): per table its columns with their kind of
 * value and nullability, its primary key, its unique keys, its named indexes and its foreign keys. Read
 * from SQLite's pragmas and from PostgreSQL's catalogue, in the same words.
 */
import { sql, type Kysely } from 'kysely';

/** A column's kind of value, in words both engines map to. */
export type ColumnKind = 'integer' | 'real' | 'text' | 'case-insensitive text' | 'bytes';

export interface TableShape {
  columns: Record<string, { kind: ColumnKind; notNull: boolean }>;
  primaryKey: string[];
  /** column lists of unique keys (constraints and unique indexes alike), sorted */
  uniqueKeys: string[];
  /** named indexes that are not keys: "name (columns) [where …]" */
  indexes: string[];
  /** "columns -> table(columns) on delete <action>", sorted */
  foreignKeys: string[];
}

export type SchemaShape = Record<string, TableShape>;

/** Kysely's own bookkeeping, and what each engine keeps apart from the schema. */
const NOT_SCHEMA = new Set(['kysely_migration', 'kysely_migration_lock', 'sqlite_sequence']);

const SQLITE_KINDS: Record<string, ColumnKind> = {
  INTEGER: 'integer',
  REAL: 'real',
  TEXT: 'text',
  BLOB: 'bytes',
};

export async function sqliteShape<DB>(db: Kysely<DB>): Promise<SchemaShape> {
  const tables = await sql<{ name: string; sql: string }>`
    SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name`.execute(db);
  const shape: SchemaShape = {};
  for (const table of tables.rows) {
    if (NOT_SCHEMA.has(table.name)) continue;
    const columns = await sql<{ name: string; type: string; notnull: number; pk: number }>`
      SELECT name, type, "notnull", pk FROM pragma_table_info(${table.name})`.execute(db);
    const shaped: TableShape = { columns: {}, primaryKey: [], uniqueKeys: [], indexes: [], foreignKeys: [] };
    for (const column of columns.rows) {
      const caseInsensitive = new RegExp(`\\b${column.name}"?\\s+TEXT\\s+COLLATE\\s+NOCASE`, 'i').test(
        table.sql,
      );
      shaped.columns[column.name] = {
        kind: caseInsensitive ? 'case-insensitive text' : (SQLITE_KINDS[column.type] ?? 'text'),
        // SQLite lets a primary key column hold null unless it is an INTEGER PRIMARY KEY; ours never do.
        notNull: column.notnull === 1 || column.pk > 0,
      };
    }
    shaped.primaryKey = columns.rows
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    const indexes = await sql<{ name: string; unique: number; origin: string; partial: number }>`
      SELECT name, "unique", origin, partial FROM pragma_index_list(${table.name})`.execute(db);
    for (const index of indexes.rows) {
      if (index.origin === 'pk') continue;
      const indexColumns = await sql<{ name: string }>`
        SELECT name FROM pragma_index_info(${index.name}) ORDER BY seqno`.execute(db);
      const list = indexColumns.rows.map((column) => column.name).join(', ');
      if (index.unique === 1 && index.partial === 0) shaped.uniqueKeys.push(list);
      else shaped.indexes.push(`${index.name} (${list})${index.partial === 1 ? ' partial' : ''}`);
    }
    const keys = await sql<{ id: number; table: string; from: string; to: string; on_delete: string }>`
      SELECT id, "table", "from", "to", on_delete FROM pragma_foreign_key_list(${table.name})
      ORDER BY id, seq`.execute(db);
    const byId = new Map<number, { from: string[]; to: string[]; table: string; onDelete: string }>();
    for (const key of keys.rows) {
      const entry = byId.get(key.id) ?? { from: [], to: [], table: key.table, onDelete: key.on_delete };
      entry.from.push(key.from);
      entry.to.push(key.to);
      byId.set(key.id, entry);
    }
    shaped.foreignKeys = [...byId.values()].map(foreignKeyWords);
    shape[table.name] = sorted(shaped);
  }
  return shape;
}

const POSTGRES_KINDS: Record<string, ColumnKind> = {
  bigint: 'integer',
  integer: 'integer',
  'double precision': 'real',
  text: 'text',
  citext: 'case-insensitive text',
  bytea: 'bytes',
};

const POSTGRES_ON_DELETE: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

export async function postgresShape<DB>(db: Kysely<DB>): Promise<SchemaShape> {
  const columns = await sql<{ table: string; name: string; type: string; not_null: boolean }>`
    SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, NULL) AS type,
      a.attnotnull AS not_null
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`.execute(db);
  const shape: SchemaShape = {};
  for (const column of columns.rows) {
    if (NOT_SCHEMA.has(column.table)) continue;
    const table = (shape[column.table] ??= {
      columns: {},
      primaryKey: [],
      uniqueKeys: [],
      indexes: [],
      foreignKeys: [],
    });
    table.columns[column.name] = {
      kind: POSTGRES_KINDS[column.type] ?? (column.type as ColumnKind),
      notNull: column.not_null,
    };
  }
  const indexes = await sql<{
    table: string;
    name: string;
    primary: boolean;
    unique: boolean;
    partial: boolean;
    columns: string[];
  }>`
    SELECT t.relname AS table, i.relname AS name, x.indisprimary AS primary, x.indisunique AS unique,
      x.indpred IS NOT NULL AS partial,
      ARRAY(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, position)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.position)::text[]
        AS columns
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = current_schema()`.execute(db);
  for (const index of indexes.rows) {
    const table = shape[index.table];
    if (table === undefined) continue;
    const list = index.columns.join(', ');
    if (index.primary) table.primaryKey = index.columns;
    else if (index.unique && !index.partial) table.uniqueKeys.push(list);
    else table.indexes.push(`${index.name} (${list})${index.partial ? ' partial' : ''}`);
  }
  const keys = await sql<{ table: string; from: string[]; to: string[]; target: string; on_delete: string }>`
    SELECT t.relname AS table, f.relname AS target, k.confdeltype AS on_delete,
      ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY AS c(attnum, position)
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = c.attnum ORDER BY c.position)::text[]
        AS from,
      ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY AS c(attnum, position)
        JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = c.attnum ORDER BY c.position)::text[]
        AS to
    FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_class f ON f.oid = k.confrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE k.contype = 'f' AND n.nspname = current_schema()`.execute(db);
  for (const key of keys.rows) {
    shape[key.table]?.foreignKeys.push(
      foreignKeyWords({
        from: key.from,
        to: key.to,
        table: key.target,
        onDelete: POSTGRES_ON_DELETE[key.on_delete] ?? key.on_delete,
      }),
    );
  }
  for (const name of Object.keys(shape)) shape[name] = sorted(shape[name]!);
  return shape;
}

function foreignKeyWords(key: { from: string[]; to: string[]; table: string; onDelete: string }): string {
  return `${key.from.join(', ')} -> ${key.table}(${key.to.join(', ')}) on delete ${key.onDelete}`;
}

function sorted(table: TableShape): TableShape {
  return {
    columns: table.columns,
    primaryKey: table.primaryKey,
    uniqueKeys: [...table.uniqueKeys].sort(),
    indexes: [...table.indexes].sort(),
    foreignKeys: [...table.foreignKeys].sort(),
  };
}

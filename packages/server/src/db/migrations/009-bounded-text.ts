/**
 * Migration 9 (issue 17, "Text from files is unbounded"): text stored before the store had maxima is
 * shortened to them, so no row stored earlier can break a list or a page for its owner (three trips with
 * 200 MB names made every trip list of their rider answer 500 for good). The maxima are the store's as
 * they were when it shipped, and so are the ways of shortening: both are frozen with it in
 * frozen/bounded-text.ts (issue 35).
 *
 * - routes and trips: a name or a device over its maximum, which came from the file, is cleaned and
 *   shortened as the parser (@rideport/ridefile) did it when this shipped, and the row's warnings say so with the
 *   length it had, as a new upload's would; a description is cut; the warnings themselves are bounded
 *   as the parser bounds them (each message, at most 3 of one code). The record JSON of a row changed
 *   is dropped, and rendered again from the columns when read (store/asset-records.ts).
 * - upload tasks: a message (which named rides) is cut with "…", a file name cut.
 * - people, organizations and API clients: names and descriptions are cut (they came from
 *   `rideport admin`, which had no maxima).
 *
 * Only rows over a maximum are touched, one at a time, and a long text is never read whole: the
 * database gives its size in bytes, its first bytes, and its characters counted a megabyte at a time.
 * Bytes, not SQLite's text functions: those stop at a NUL character, which a file could put in a name
 * (`MigrationDialect.textBytes`).
 * URLs (redirect URIs, webhook URLs, event URLs) and emails are left as they are: cut, they would name
 * something else, and every way in to them had a maximum already.
 */
import { sql } from 'kysely';
import type { MigrationDb, MigrationDialect } from './dialect.js';
import {
  boundedFileText,
  boundedWarnings,
  codePointCount,
  cutToWholeChars,
  cutWithEllipsis,
  MAX_CHARS,
  MAX_STORED_WARNINGS,
  storedWarnings,
  type Warning,
} from './frozen/bounded-text.js';

/** Bytes of a long text read as its start: more than any maximum needs, and what the parser looks at. */
const START_BYTES = 64 * 1024;
/** Bytes read at a time to count a long text's characters. */
const COUNT_BYTES = 1 << 20;
/** A warnings column longer than this (in bytes) is looked at: the parser now writes far less. */
const WARNINGS_JSON_BYTES = MAX_STORED_WARNINGS * 4096;

type Table = 'routes' | 'trips' | 'queued_tasks' | 'users' | 'api_clients';

/** How a text over its maximum is shortened. */
type Shorten =
  /** as the parser shortens a file's text, with a warning on the route or trip */
  | { kind: 'file'; field: 'name' | 'device' }
  /** its first characters (descriptions, names typed into `rideport admin`, file names) */
  | { kind: 'cut' }
  /** its first characters and "…" (our own sentences) */
  | { kind: 'ellipsis' };

const COLUMNS: ReadonlyArray<{ table: Table; column: string; maxChars: number; shorten: Shorten }> = [
  {
    table: 'routes',
    column: 'name',
    maxChars: MAX_CHARS.assetName,
    shorten: { kind: 'file', field: 'name' },
  },
  {
    table: 'trips',
    column: 'name',
    maxChars: MAX_CHARS.assetName,
    shorten: { kind: 'file', field: 'name' },
  },
  {
    table: 'trips',
    column: 'device',
    maxChars: MAX_CHARS.device,
    shorten: { kind: 'file', field: 'device' },
  },
  {
    table: 'routes',
    column: 'description',
    maxChars: MAX_CHARS.assetDescription,
    shorten: { kind: 'cut' },
  },
  {
    table: 'trips',
    column: 'description',
    maxChars: MAX_CHARS.assetDescription,
    shorten: { kind: 'cut' },
  },
  {
    table: 'queued_tasks',
    column: 'message',
    maxChars: MAX_CHARS.taskMessage,
    shorten: { kind: 'ellipsis' },
  },
  { table: 'queued_tasks', column: 'filename', maxChars: MAX_CHARS.filename, shorten: { kind: 'cut' } },
  { table: 'users', column: 'name', maxChars: MAX_CHARS.userName, shorten: { kind: 'cut' } },
  { table: 'users', column: 'first_name', maxChars: MAX_CHARS.userName, shorten: { kind: 'cut' } },
  { table: 'users', column: 'last_name', maxChars: MAX_CHARS.userName, shorten: { kind: 'cut' } },
  {
    table: 'users',
    column: 'description',
    maxChars: MAX_CHARS.userDescription,
    shorten: { kind: 'cut' },
  },
  { table: 'api_clients', column: 'name', maxChars: MAX_CHARS.clientName, shorten: { kind: 'cut' } },
];

export async function up(db: MigrationDb, dialect: MigrationDialect): Promise<void> {
  /** what was shortened of each route and trip, said as the parser says it, by table and id */
  const said = { routes: new Map<number, Warning[]>(), trips: new Map<number, Warning[]>() };
  for (const { table, column, maxChars, shorten } of COLUMNS) {
    // A text has at least as many bytes as characters: only these can be too long.
    const { rows } = await sql<{ id: number }>`SELECT id FROM ${sql.table(table)}
      WHERE octet_length(${sql.ref(column)}) > ${maxChars} ORDER BY id`.execute(db);
    for (const { id } of rows) {
      const text = await storedText(db, dialect, table, column, id);
      if (text.chars <= maxChars) continue;
      let value: string | null;
      if (shorten.kind === 'file') {
        const warnings = (table === 'routes' ? said.routes : said.trips).get(id) ?? [];
        (table === 'routes' ? said.routes : said.trips).set(id, warnings);
        value = boundedFileText(shorten.field, text.start, warnings, text.chars - codePointCount(text.start));
        // A name is never empty (store/assets.ts names an unnamed one; this one had only controls).
        if (column === 'name') value ??= table === 'routes' ? 'Untitled route' : 'Untitled ride';
      } else if (shorten.kind === 'cut') {
        value = cutToWholeChars(text.start, maxChars);
      } else {
        value = cutWithEllipsis(text.start, maxChars);
      }
      await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${value} WHERE id = ${id}`.execute(db);
    }
  }
  for (const table of ['routes', 'trips'] as const) {
    const { rows } = await sql<{ id: number }>`SELECT id FROM ${sql.table(table)}
      WHERE octet_length(warnings) > ${WARNINGS_JSON_BYTES} ORDER BY id`.execute(db);
    const ids = new Set([...said[table].keys(), ...rows.map((row) => row.id)]);
    for (const id of ids) {
      const { rows: found } = await sql<{ warnings: string | null }>`
        SELECT warnings FROM ${sql.table(table)} WHERE id = ${id}`.execute(db);
      const warnings = boundedWarnings([
        ...storedWarnings(found[0]?.warnings ?? null),
        ...(said[table].get(id) ?? []),
      ]);
      await sql`UPDATE ${sql.table(table)} SET warnings = ${JSON.stringify(warnings)}, record_json = NULL,
        record_format = NULL WHERE id = ${id}`.execute(db);
    }
  }
}

/**
 * The start of a stored text (its first START_BYTES, whole characters) and its length in characters,
 * without reading a long one whole.
 */
async function storedText(
  db: MigrationDb,
  dialect: MigrationDialect,
  table: Table,
  column: string,
  id: number,
): Promise<{ start: string; chars: number }> {
  const piece = async (from: number, bytes: number): Promise<Buffer> => {
    const { rows } = await sql<{ piece: Buffer | null }>`
      SELECT ${dialect.textBytes(sql.ref(column), from, bytes)} AS piece
      FROM ${sql.table(table)} WHERE id = ${id}`.execute(db);
    return rows[0]?.piece ?? Buffer.alloc(0);
  };
  const first = await piece(0, START_BYTES);
  const start = decodeWholeChars(first);
  if (first.length < START_BYTES) return { start, chars: codePointCount(start) };
  let chars = 0;
  for (let from = 0; ; from += COUNT_BYTES) {
    const bytes = await piece(from, COUNT_BYTES);
    // A character is its lead byte: every byte but the continuation bytes 10xxxxxx.
    for (const byte of bytes) if ((byte & 0xc0) !== 0x80) chars += 1;
    if (bytes.length < COUNT_BYTES) return { start, chars };
  }
}

/** UTF-8 bytes as text, without the character the end may cut (a lead byte and part of its bytes). */
function decodeWholeChars(bytes: Buffer): string {
  let end = bytes.length;
  let back = 0;
  while (back < 4 && end - back - 1 >= 0 && (bytes[end - back - 1]! & 0xc0) === 0x80) back += 1;
  const lead = bytes[end - back - 1];
  if (lead !== undefined && lead >= 0xc0) {
    const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (back + 1 < needed) end -= back + 1;
  }
  return bytes.subarray(0, end).toString('utf8');
}

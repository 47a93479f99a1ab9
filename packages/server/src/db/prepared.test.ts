/**
 * Queries compiled once (db/prepared.ts): each run binds its own values, constants of the query stay,
 * a query that does not bind each value once as a parameter is refused, and a run takes its turn on
 * the connection instead of reading inside a transaction that is open.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from './open.js';
import { PreparedQuery } from './prepared.js';

let database: OpenDatabase;

beforeEach(async () => {
  database = await openDatabase(':memory:');
  const now = Date.parse('2026-03-01T12:00:00Z');
  for (const [email, name] of [
    ['anna@example.com', 'Anna'],
    ['ben@example.com', 'Ben'],
    ['cleo@example.com', 'Cleo'],
  ] as const) {
    await database.db
      .insertInto('users')
      .values({
        kind: 'person',
        email,
        name,
        first_name: null,
        last_name: null,
        description: null,
        password_hash: 'x',
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
});
afterEach(async () => {
  await database.close();
});

describe('PreparedQuery', () => {
  it('binds the values of each run, in the order the query uses them, and keeps its constants', async () => {
    const query = new PreparedQuery(database.db, 2, (db, name: string, email: string) =>
      db
        .selectFrom('users')
        .select(['name', 'email'])
        .where('kind', '=', 'person')
        .where((eb) => eb.or([eb('email', '=', email), eb('name', '=', name)]))
        .orderBy('id'),
    );
    expect(await query.execute('Cleo', 'anna@example.com')).toEqual([
      { name: 'Anna', email: 'anna@example.com' },
      { name: 'Cleo', email: 'cleo@example.com' },
    ]);
    expect(await query.execute('Ben', 'nobody@example.com')).toEqual([
      { name: 'Ben', email: 'ben@example.com' },
    ]);
    expect(await query.executeTakeFirst('Nobody', 'nobody@example.com')).toBeUndefined();
  });

  it('refuses a query that does not bind each value exactly once as a parameter', () => {
    expect(
      () =>
        // The second value is never used.
        new PreparedQuery<[string, string], { id: number }>(database.db, 2, (db, email) =>
          db.selectFrom('users').select('id').where('email', '=', email),
        ),
    ).toThrow('a prepared query must bind each of its values exactly once');
    expect(
      () =>
        new PreparedQuery(database.db, 1, (db, email: string) =>
          db.selectFrom('users').select('id').where('email', '=', email).where('name', '=', email),
        ),
    ).toThrow('a prepared query must bind each of its values exactly once');
  });

  it('waits for an open transaction instead of reading its uncommitted rows', async () => {
    const query = new PreparedQuery(database.db, 1, (db, name: string) =>
      db.selectFrom('users').select('email').where('name', '=', name),
    );
    let renamed!: () => void;
    const transaction = database.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ name: 'Anne' }).where('name', '=', 'Anna').execute();
      await new Promise<void>((resolve) => {
        renamed = resolve;
      });
      throw new Error('rolled back');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const read = query.execute('Anne');
    renamed();
    await expect(transaction).rejects.toThrow('rolled back');
    expect(await read).toEqual([]);
  });
});

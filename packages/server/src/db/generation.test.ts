/**
 * The database generation (db/generation.ts): the stamp moves with every write on this connection and
 * every commit on another, never while nothing changed, and inside a transaction never repeats.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from './open.js';

let directory: string;
let database: OpenDatabase;

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'rideport-generation-'));
  database = await openDatabase(join(directory, 'rideport.sqlite'));
});
afterEach(async () => {
  await database.close();
  rmSync(directory, { recursive: true, force: true });
});

async function addUser(email: string): Promise<void> {
  await database.db
    .insertInto('users')
    .values({ kind: 'person', email, name: email, created_at: 0, updated_at: 0 })
    .execute();
}

describe('DatabaseGeneration', () => {
  it('keeps its stamp while only reads run', async () => {
    const { generation, db } = database;
    const before = await generation.stamp();
    await db.selectFrom('users').selectAll().execute();
    expect(await generation.stamp()).toBe(before);
  });

  it('moves with a write on this connection, an INSERT … RETURNING too', async () => {
    const { generation, db } = database;
    const before = await generation.stamp();
    await addUser('a@example.com');
    const afterInsert = await generation.stamp();
    expect(afterInsert).toBeGreaterThan(before);
    await db
      .updateTable('users')
      .set({ name: 'A' })
      .where('email', '=', 'a@example.com')
      .returningAll()
      .execute();
    expect(await generation.stamp()).toBeGreaterThan(afterInsert);
  });

  it('moves with a commit on another connection', async () => {
    const { generation } = database;
    const before = await generation.stamp();
    const other = new SqliteDatabase(join(directory, 'rideport.sqlite'));
    try {
      other
        .prepare('INSERT INTO users (kind, email, name, created_at, updated_at) VALUES (?, ?, ?, 0, 0)')
        .run('person', 'b@example.com', 'B');
    } finally {
      other.close();
    }
    expect(await generation.stamp()).toBeGreaterThan(before);
  });

  it('never repeats a stamp while a transaction is open on the connection', async () => {
    const { generation, db } = database;
    const stamps: number[] = [];
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('users').selectAll().execute();
      stamps.push(await generation.stamp(), await generation.stamp());
    });
    expect(stamps[1]).toBeGreaterThan(stamps[0]!);
    // Once it is over, reads alone keep the stamp again.
    const after = await generation.stamp();
    expect(await generation.stamp()).toBe(after);
  });
});

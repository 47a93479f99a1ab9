/**
 * The PostgreSQL engine (issue 18) on a throwaway cluster: its schema equals SQLite's, and what several
 * server processes on one database rely on holds with two "nodes" (two pools) racing each other.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ConflictError, DatabaseUnreachableError } from '../errors.js';
import { DEFAULT_LIMITS, resolveOptions } from '../options.js';
import { Store, storeOptionsOf } from '../store/index.js';
import { postgresShape, sqliteShape } from '../test-support/schema-shape.js';
import { sharedPostgres } from '../test-support/shared-postgres.js';
import { openDatabase, type OpenDatabase } from './open.js';
import { MIGRATIONS } from './migrations/index.js';
import { openPostgres } from './postgres.js';
import { databaseTargetOf } from './target.js';

// The run's cluster (issue 35): nothing here stops it or changes it beyond databases of this file's own.
const cluster = sharedPostgres('PostgreSQL engine tests');

/** A new, empty database on the cluster; its URL. */
async function newDatabase(): Promise<string> {
  return cluster.url(await cluster.newDatabase('rideport'));
}

function storeOf(database: OpenDatabase): Store {
  return new Store(
    database,
    storeOptionsOf(
      resolveOptions({ databasePath: ':memory:', baseUrl: 'http://rideport.test', limits: DEFAULT_LIMITS }),
    ),
    randomBytes(32),
  );
}

describe.skipIf(cluster.skipped !== null)('the PostgreSQL engine', () => {
  it('has the same tables, columns, keys and indexes as SQLite', async () => {
    const sqlite = await openDatabase(':memory:');
    const postgres = await openPostgres(await newDatabase());
    try {
      const sqliteTables = await sqliteShape(sqlite.db);
      const postgresTables = await postgresShape(postgres.db);
      // SQLite draws ids from a table of its own (migration 002); PostgreSQL's identity columns have
      // sequences that do the same (db/postgres.ts). Nothing else may differ.
      expect(Object.keys(sqliteTables)).toContain('id_sequences');
      delete sqliteTables.id_sequences;
      expect(postgresTables).toEqual(sqliteTables);
      expect(Object.keys(postgresTables).length).toBeGreaterThan(15);
    } finally {
      await sqlite.close();
      await postgres.close();
    }
  });

  it("connects over the Unix socket, the host in the URL's query as libpq writes it", async () => {
    const name = new URL(await newDatabase()).pathname.slice(1);
    const url = cluster.socketUrl(name);
    expect(databaseTargetOf(url)).toEqual({ engine: 'postgres', url });
    const database = await openPostgres(url);
    try {
      // inet_server_addr() is null on a Unix-socket connection.
      const { rows } = await sql<{ socket: boolean }>`SELECT inet_server_addr() IS NULL AS socket`.execute(
        database.db,
      );
      expect(rows).toEqual([{ socket: true }]);
      const rider = await storeOf(database).users.createPerson({
        email: 'socket@example.com',
        password: 'long enough',
      });
      expect(typeof rider.id).toBe('number');
    } finally {
      await database.close();
    }
  });

  it('says in words why it cannot connect, keeping the code', async () => {
    const name = new URL(await newDatabase()).pathname.slice(1);
    const refusals: [string, RegExp, string][] = [
      [
        'postgres://rideport@/rides?host=/nonexistent',
        /^cannot connect to the database: no PostgreSQL server listens on the Unix socket \/nonexistent\/\.s\.PGSQL\.5432$/,
        'ENOENT',
      ],
      // Port 1 on the loopback: nothing listens there.
      [
        'postgres://rideport@127.0.0.1:1/rides',
        /^cannot connect to the database: no PostgreSQL server listens on 127\.0\.0\.1:1$/,
        'ECONNREFUSED',
      ],
      [
        cluster.url(`${name}_missing`),
        new RegExp(`^cannot connect to the database: database "${name}_missing" does not exist$`),
        '3D000',
      ],
    ];
    for (const [url, words, code] of refusals) {
      const failure = (await openPostgres(url).catch((error: unknown) => error)) as Error & { code?: string };
      expect(failure).toBeInstanceOf(Error);
      expect(failure.message).toMatch(words);
      expect(failure.code).toBe(code);
    }
  });

  it('says in words, within its limit, that a host which never answers cannot be reached', async () => {
    // A listener that takes connections and never says a word: a firewall or a cut network looks so.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const started = performance.now();
      const failure = (await openPostgres(`postgres://rideport@127.0.0.1:${port}/rides`, {
        connectTimeoutMs: 300,
      }).catch((error: unknown) => error)) as Error;
      expect(failure).toBeInstanceOf(DatabaseUnreachableError);
      expect(failure.message).toBe(
        `cannot connect to the database: postgres://rideport@127.0.0.1:${port}/rides did not answer within 0.3 s`,
      );
      // Not TCP's own timeout: the limit (generous bounds; not a timing test of the driver).
      expect(performance.now() - started).toBeLessThan(5000);
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('migrates once when several servers start on one new database at the same moment', async () => {
    const url = await newDatabase();
    const nodes = await Promise.all([openPostgres(url), openPostgres(url), openPostgres(url)]);
    try {
      const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(nodes[0].db);
      expect(rows.map((row) => row.name).sort()).toEqual(Object.keys(MIGRATIONS).sort());
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });

  it('never lets two nodes claim the same task, however they race', async () => {
    const url = await newDatabase();
    const [a, b] = [await openPostgres(url), await openPostgres(url)];
    try {
      const [storeA, storeB] = [storeOf(a), storeOf(b)];
      const rider = await storeA.users.createPerson({ email: 'racer@example.com', password: 'long enough' });
      const taskCount = 40;
      for (let i = 0; i < taskCount; i++) {
        await storeA.tasks.create({
          userId: rider.id,
          apiClientId: null,
          sha256: `${i}`.padStart(64, '0'),
          filename: `ride-${i}.gpx`,
          bytes: Buffer.from(`ride ${i}`),
          metadata: {},
        });
      }
      // Eight claimers on each node, each claiming until nothing waits.
      const claimed: number[] = [];
      const claimer = async (store: Store, owner: string): Promise<void> => {
        for (;;) {
          const task = await store.tasks.claim(owner, 60_000);
          if (task === undefined) return;
          expect(task.attempts).toBe(1);
          claimed.push(task.id);
        }
      };
      await Promise.all(
        Array.from({ length: 16 }, (_, i) => claimer(i % 2 === 0 ? storeA : storeB, `worker-${i}`)),
      );
      expect(claimed).toHaveLength(taskCount);
      expect(new Set(claimed).size).toBe(taskCount);
      const { rows } = await sql<{ attempts: number }>`SELECT attempts FROM queued_tasks`.execute(a.db);
      expect(rows.every((row) => row.attempts === 1)).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('gives ids from sequences: distinct across nodes, never one used before', async () => {
    const url = await newDatabase();
    const [a, b] = [await openPostgres(url), await openPostgres(url)];
    try {
      const draws = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          (i % 2 === 0 ? a : b).db
            .transaction()
            .execute((trx) => (i % 2 === 0 ? a : b).engine.nextId(trx, 'trips')),
        ),
      );
      expect(new Set(draws).size).toBe(draws.length);
      // An id drawn in a transaction that rolled back is not drawn again either.
      await expect(
        a.db.transaction().execute(async (trx) => {
          await a.engine.nextId(trx, 'trips');
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const next = await a.db.transaction().execute((trx) => a.engine.nextId(trx, 'trips'));
      expect(next).toBeGreaterThan(Math.max(...draws) + 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('stores uploads and originals uncompressed, and track points compressed with lz4 (migration 15)', async () => {
    const database = await openPostgres(await newDatabase());
    try {
      const store = storeOf(database);
      const rider = await store.users.createPerson({ email: 'blobs@example.com', password: 'long enough' });
      // Bytes pglz would compress well: what the column's storage decides, not the bytes.
      const compressible = Buffer.from('<trkpt lat="47.1" lon="8.5"/>'.repeat(4000));
      const taskId = await store.tasks.create({
        userId: rider.id,
        apiClientId: null,
        sha256: '1'.padStart(64, '0'),
        filename: 'ride.gpx',
        bytes: compressible,
        metadata: {},
      });
      await store.originalFiles.save(
        {
          userId: rider.id,
          filename: 'ride.gpx',
          format: 'gpx',
          uploadedGzip: false,
          byteLength: compressible.length,
          stored: { bytes: compressible },
        },
        database.db,
      );
      // pg_column_compression: null for a value stored as it is.
      const stored = await sql<{ table: string; compression: string | null; length: number }>`
        SELECT 'task_uploads' AS table, pg_column_compression(bytes) AS compression, length(bytes) AS length
        FROM task_uploads
        UNION ALL
        SELECT 'original_files', pg_column_compression(bytes), length(bytes) FROM original_files`.execute(
        database.db,
      );
      expect(stored.rows).toEqual([
        { table: 'task_uploads', compression: null, length: compressible.length },
        { table: 'original_files', compression: null, length: compressible.length },
      ]);
      expect((await store.tasks.uploadBytes(taskId))?.equals(compressible)).toBe(true);

      const columns = await sql<{ table: string; column: string; storage: string; compression: string }>`
        SELECT c.relname AS table, a.attname AS column, a.attstorage AS storage, a.attcompression AS compression
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE c.relname IN ('task_uploads', 'original_files', 'trip_track_points', 'route_track_points')
          AND a.attname IN ('bytes', 'packed', 'points')
        ORDER BY 1, 2`.execute(database.db);
      const lz4 = await sql<{ built: boolean }>`
        SELECT 'lz4' = ANY(enumvals) AS built FROM pg_settings WHERE name = 'default_toast_compression'`.execute(
        database.db,
      );
      const compressed = lz4.rows[0]?.built === true ? 'l' : '';
      expect(columns.rows).toEqual([
        { table: 'original_files', column: 'bytes', storage: 'e', compression: '' },
        { table: 'route_track_points', column: 'packed', storage: 'x', compression: compressed },
        { table: 'route_track_points', column: 'points', storage: 'x', compression: compressed },
        { table: 'task_uploads', column: 'bytes', storage: 'e', compression: '' },
        { table: 'trip_track_points', column: 'packed', storage: 'x', compression: compressed },
        { table: 'trip_track_points', column: 'points', storage: 'x', compression: compressed },
      ]);
    } finally {
      await database.close();
    }
  });

  it('gives 64-bit integers as numbers, and keeps emails unique whatever their case', async () => {
    const database = await openPostgres(await newDatabase());
    try {
      const store = storeOf(database);
      const person = await store.users.createPerson({ email: 'Case@Example.com', password: 'long enough' });
      expect(typeof person.id).toBe('number');
      expect(typeof person.created_at).toBe('number');
      expect((await store.users.findByEmail('case@example.COM'))?.id).toBe(person.id);
      const duplicate = await store.users
        .createPerson({ email: 'CASE@example.com', password: 'long enough' })
        .catch((error: unknown) => error);
      expect(duplicate).toBeInstanceOf(ConflictError);
      expect(database.engine.isUniqueViolation((duplicate as ConflictError).cause)).toBe(true);
    } finally {
      await database.close();
    }
  });
});

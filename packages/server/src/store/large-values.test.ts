/**
 * Large values (issue 36, store/large-values.ts; migration 017): bytes come back as they went in at
 * every size around a part, other statements run while one is written, and a value lives exactly as
 * long as a row names it: the triggers delete it with the last, the nightly purge deletes one that
 * no upload ever named once it is old, and one deleted while it is read is said to be gone.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as turn } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../platform.js';
import { storeOnly } from '../test-support/store-only.js';
import { LARGE_VALUE_PART_BYTES as PART, LargeValueGoneError } from './large-values.js';

let platform: Platform;
let userId: number;
let now = Date.UTC(2026, 11, 7, 12);

beforeAll(async () => {
  ({ platform, userId } = await storeOnly({ email: 'lara@example.com', name: 'Lara' }, () => now));
});
afterAll(async () => {
  await platform.close();
});

const values = () => platform.store.largeValues;
const rows = () =>
  platform.store.transaction(async (trx) => ({
    values: (await trx.selectFrom('large_values').select('id').execute()).map((row) => row.id),
    parts: (await trx.selectFrom('large_value_parts').select('value_id').execute()).length,
  }));

async function partsOf(id: number, byteLength: number): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  for await (const part of values().parts(id, byteLength)) parts.push(part);
  return parts;
}

/** A task whose upload is the large value `largeValueId`, as Tasks.createMany makes one. */
async function taskNaming(largeValueId: number): Promise<number> {
  return platform.store.transaction(async (trx) => {
    const { id } = await trx
      .insertInto('queued_tasks')
      .values({
        user_id: userId,
        api_client_id: null,
        status: 0,
        response_code: 'pending',
        message: 'waiting',
        progress: 0,
        sha256: 'f'.repeat(64),
        filename: null,
        byte_length: 1,
        metadata: '{}',
        external_id: null,
        attempts: 0,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('task_uploads')
      .values({ task_id: id, bytes: Buffer.alloc(0), large_value_id: largeValueId })
      .execute();
    return id;
  });
}

describe('LargeValues', () => {
  it('gives back every byte, in parts of a part’s size, at every size around a part', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom(0, 1, PART - 1, PART, PART + 1, 2 * PART, 3 * PART + 7),
          fc.integer({ min: 0, max: 4 * PART }),
        ),
        async (size) => {
          const bytes = randomBytes(size);
          const id = await values().write(bytes);
          const parts = await partsOf(id, size);
          expect(parts.length).toBe(Math.ceil(size / PART));
          expect(parts.slice(0, -1).every((part) => part.length === PART)).toBe(true);
          expect(Buffer.concat(parts).equals(bytes)).toBe(true);
          const read = await values().read(id);
          expect(read?.equals(bytes)).toBe(true);
          // Memory of its own, which the parse worker takes without a copy (queue/pool.ts).
          expect([read!.byteOffset, read!.buffer.byteLength]).toEqual([0, size]);
          expect(await values().byteLength(id)).toBe(size);
          expect(await values().deleteIfUnnamed(id)).toBe(true);
        },
      ),
      { numRuns: 12 },
    );
    expect(await rows()).toEqual({ values: [], parts: 0 });
  });

  it('lets other statements run between its parts', async () => {
    let written = false as boolean;
    const writing = values()
      .write(randomBytes(8 * PART))
      .finally(() => {
        written = true;
      });
    // What a reader sees meanwhile: the parts written so far. Written in one statement, a value
    // would be seen as nothing or whole.
    const seen = new Set<number>();
    while (!written) {
      // A request arrives as an event of its own, as a reader's next statement does here.
      await turn();
      seen.add((await rows()).parts);
    }
    expect([...seen].filter((parts) => parts > 0 && parts < 8).length).toBeGreaterThanOrEqual(3);
    await values().deleteIfUnnamed(await writing);
  });

  it('lives while a task’s upload or an original file names it, and goes with the last', async () => {
    const id = await values().write(randomBytes(PART + 10));
    const taskId = await taskNaming(id);
    expect(await values().deleteIfUnnamed(id)).toBe(false);
    const fileId = await platform.store.transaction((trx) =>
      platform.store.originalFiles.save(
        {
          userId,
          filename: 'ride.gpx.gz',
          format: 'gpx',
          stored: { largeValueId: id },
          uploadedGzip: true,
          byteLength: PART + 10,
        },
        trx,
      ),
    );
    await platform.store.transaction((trx) =>
      trx.deleteFrom('task_uploads').where('task_id', '=', taskId).execute(),
    );
    expect((await rows()).values).toEqual([id]);
    await platform.store.transaction((trx) =>
      trx.deleteFrom('original_files').where('id', '=', fileId).execute(),
    );
    expect(await rows()).toEqual({ values: [], parts: 0 });
    await platform.store.transaction((trx) =>
      trx.deleteFrom('queued_tasks').where('id', '=', taskId).execute(),
    );
  });

  it('goes with the task (the purge deletes tasks, their uploads with them)', async () => {
    const id = await values().write(randomBytes(PART + 1));
    const taskId = await taskNaming(id);
    await platform.store.transaction((trx) =>
      trx.deleteFrom('queued_tasks').where('id', '=', taskId).execute(),
    );
    expect(await rows()).toEqual({ values: [], parts: 0 });
  });

  it('is deleted by the purge when no row names it an hour after it was written, not before', async () => {
    const named = await values().write(randomBytes(PART + 1));
    const taskId = await taskNaming(named);
    const unnamed = await values().write(randomBytes(PART + 1));
    expect(await values().deleteUnnamed()).toBe(0);
    now += 59 * 60 * 1000;
    expect(await values().deleteUnnamed()).toBe(0);
    now += 2 * 60 * 1000;
    expect((await platform.store.tasks.purge()).unnamedValues).toBe(1);
    expect((await rows()).values).toEqual([named]);
    expect(unnamed).not.toBe(named);
    await platform.store.transaction((trx) =>
      trx.deleteFrom('queued_tasks').where('id', '=', taskId).execute(),
    );
    expect(await rows()).toEqual({ values: [], parts: 0 });
  });

  it('says a value deleted while it is read is gone', async () => {
    const id = await values().write(randomBytes(3 * PART));
    const parts = values().parts(id, 3 * PART);
    expect((await parts.next()).value).toHaveLength(PART);
    expect(await values().deleteIfUnnamed(id)).toBe(true);
    await expect(parts.next()).rejects.toBeInstanceOf(LargeValueGoneError);
    expect(await values().read(id)).toBeUndefined();
    await expect(partsOf(id, 3 * PART)).rejects.toBeInstanceOf(LargeValueGoneError);
  });
});

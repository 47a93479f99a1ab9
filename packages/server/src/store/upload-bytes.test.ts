/**
 * An upload's bytes come back from the store as they went in, whatever their size (issue 18, "Upload
 * bytes": on PostgreSQL they are read in slices into one buffer, db/engine.ts bytesReadSlice), in
 * memory of their own that the parse worker can take without a copy, and not at all once the task's
 * bytes are gone.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_BYTES_READ_SLICE } from '../db/postgres.js';
import type { Platform } from '../platform.js';
import { storeOnly } from '../test-support/store-only.js';

// The store alone, without a server: no upload queue claims these tasks and ends them meanwhile.
let platform: Platform;
let userId: number;

beforeAll(async () => {
  ({ platform, userId } = await storeOnly({ email: 'uma@example.com', name: 'Uma' }));
});
afterAll(async () => {
  await platform.close();
});

describe('Tasks.uploadBytes', () => {
  const slice = POSTGRES_BYTES_READ_SLICE;
  const sizes = [1, 1000, slice - 1, slice, slice + 1, 2 * slice + 3];

  it('gives back every byte, at every size around the slice the engine reads in', async () => {
    for (const size of sizes) {
      const bytes = randomBytes(size);
      const taskId = await platform.store.tasks.create({
        userId,
        apiClientId: null,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        filename: 'ride.fit',
        bytes,
        metadata: {},
        externalId: null,
      });
      const read = await platform.store.tasks.uploadBytes(taskId);
      expect(read?.length, `${size} bytes`).toBe(size);
      expect(read!.equals(bytes), `${size} bytes`).toBe(true);
      // Memory of its own: the whole ArrayBuffer, so queue/pool.ts moves it to the worker uncopied.
      expect([read!.byteOffset, read!.buffer.byteLength], `${size} bytes`).toEqual([0, size]);
    }
  });

  it('gives nothing for a task whose bytes are gone', async () => {
    expect(await platform.store.tasks.uploadBytes(987_654)).toBeUndefined();
  });
});

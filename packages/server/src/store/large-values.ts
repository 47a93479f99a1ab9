/**
 * Byte values larger than a part, stored part by part (migration 017; issue 36, "one rider's upload
 * never costs another rider more than a few milliseconds"). A value written in one statement holds the
 * server's main thread and its one SQLite connection while the whole of it is written (an 18.7 MB
 * upload took 85–105 ms); written as parts of `LARGE_VALUE_PART_BYTES`, each by a statement of its
 * own outside any transaction, with the event loop turning between them, every other request waits
 * for one part at most. The value is then named, in the transaction that makes its row, by that row's
 * `large_value_id` (task_uploads, original_files).
 *
 * A value that no row names is one whose upload failed before its transaction committed (or a server
 * stopped between the two): `deleteUnnamed` deletes it, by the nightly purge, once it is old enough
 * that no upload can still be about to name it. The triggers of migration 017 delete a value with the
 * last row that names it.
 */
import { setImmediate as turn } from 'node:timers/promises';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import type { StoreContext } from './context.js';

/** The size of a part, and the least size of a value stored in parts (a smaller one is one statement anyway). */
export const LARGE_VALUE_PART_BYTES = 1024 * 1024;

/** A value no row names is deleted once it is this old: far longer than any upload takes to commit. */
const UNNAMED_VALUE_AGE_MS = 60 * 60 * 1000;

/** An empty `bytes` value for a row whose bytes are a large value. */
export const IN_LARGE_VALUE = Buffer.alloc(0);

/** Whether `bytes` are stored as a large value rather than in their row. */
export function isLarge(bytes: Uint8Array): boolean {
  return bytes.byteLength > LARGE_VALUE_PART_BYTES;
}

export class LargeValues {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /**
   * Stores `bytes` part by part, outside any transaction (never pass one: the parts must not hold the
   * connection between them); the value's id, for a row to name it. Should a part fail, the parts
   * written are deleted, and the error thrown.
   */
  async write(bytes: Uint8Array): Promise<number> {
    const { db, clock } = this.#context;
    const { id } = await db
      .insertInto('large_values')
      .values({ byte_length: bytes.byteLength, created_at: clock() })
      .returning('id')
      .executeTakeFirstOrThrow();
    try {
      for (let part = 0, start = 0; start < bytes.byteLength; part++, start += LARGE_VALUE_PART_BYTES) {
        // Other requests' statements run between the parts.
        await turn();
        const end = Math.min(start + LARGE_VALUE_PART_BYTES, bytes.byteLength);
        await db
          .insertInto('large_value_parts')
          // A view of the same memory: the driver copies what it binds.
          .values({
            value_id: id,
            part,
            bytes: Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start),
          })
          .execute();
      }
    } catch (error) {
      await this.deleteIfUnnamed(id).catch(() => undefined);
      throw error;
    }
    return id;
  }

  /**
   * The parts of the value of `byteLength` bytes in order, each read by a statement of its own when it
   * is wanted; throws `LargeValueGoneError` when the value is gone, or deleted while it is read (its
   * ride was deleted).
   */
  async *parts(id: number, byteLength: number): AsyncGenerator<Buffer> {
    let read = 0;
    for (let part = 0; read < byteLength; part++) {
      const row = await this.#context.db
        .selectFrom('large_value_parts')
        .select('bytes')
        .where('value_id', '=', id)
        .where('part', '=', part)
        .executeTakeFirst();
      if (row === undefined || row.bytes.length === 0 || read + row.bytes.length > byteLength) {
        throw new LargeValueGoneError(id);
      }
      read += row.bytes.length;
      yield row.bytes;
    }
  }

  /** The value whole, in memory of its own; undefined when it is gone (deleted, or deleted while read). */
  async read(id: number): Promise<Buffer | undefined> {
    const byteLength = await this.byteLength(id);
    if (byteLength === undefined) return undefined;
    const bytes = Buffer.allocUnsafeSlow(byteLength);
    let at = 0;
    try {
      for await (const part of this.parts(id, byteLength)) {
        part.copy(bytes, at);
        at += part.length;
      }
    } catch (error) {
      if (error instanceof LargeValueGoneError) return undefined;
      throw error;
    }
    return bytes;
  }

  /** The value's length in bytes; undefined when it is gone. */
  async byteLength(id: number): Promise<number | undefined> {
    const row = await this.#context.db
      .selectFrom('large_values')
      .select('byte_length')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.byte_length;
  }

  /** Deletes the value unless a row names it (an upload written but not committed); whether it did. */
  async deleteIfUnnamed(id: number): Promise<boolean> {
    const result = await this.#context.db
      .deleteFrom('large_values')
      .where('id', '=', id)
      .where(namedByNoRow)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * Deletes the values no row names that are older than any upload in progress (the nightly purge);
   * how many.
   */
  async deleteUnnamed(): Promise<number> {
    const result = await this.#context.db
      .deleteFrom('large_values')
      .where('created_at', '<', this.#context.clock() - UNNAMED_VALUE_AGE_MS)
      .where(namedByNoRow)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** No task's upload nor original file names the value. */
function namedByNoRow(eb: ExpressionBuilder<Database, 'large_values'>): Expression<SqlBool> {
  return eb.and([
    eb.not(
      eb.exists(
        eb
          .selectFrom('task_uploads')
          .select('task_id')
          .whereRef('task_uploads.large_value_id', '=', 'large_values.id'),
      ),
    ),
    eb.not(
      eb.exists(
        eb
          .selectFrom('original_files')
          .select('id')
          .whereRef('original_files.large_value_id', '=', 'large_values.id'),
      ),
    ),
  ]);
}

/** A large value was deleted while it was read. */
export class LargeValueGoneError extends Error {
  constructor(id: number) {
    super(`the stored bytes ${id} were deleted while they were read`);
    this.name = 'LargeValueGoneError';
  }
}

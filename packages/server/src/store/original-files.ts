/**
 * The files uploads were read from (issue 20, "Original files"; migration 10): kept gzip-compressed
 * with the routes and trips made from them, so their owner can download the file as they sent it. The
 * triggers of migration 10 delete a file with the last route or trip that names it. A file larger than a
 * part is a large value (large-values.ts, migration 017), written before the upload queue's transaction
 * and named by the row, or the task's own upload when the file is the upload itself.
 */
import type { Kysely } from 'kysely';
import type { AssetType, Database } from '../db/schema.js';
import type { StoreContext } from './context.js';
import { IN_LARGE_VALUE, isLarge, type LargeValues } from './large-values.js';

export interface NewOriginalFile {
  userId: number;
  filename: string | null;
  /** the format the parser read */
  format: string;
  /**
   * the upload as sent when it was gzip, else the upload gzip-compressed: in the row (`bytes`), or a
   * large value written already (`largeValueId`)
   */
  stored: { bytes: Uint8Array } | { largeValueId: number };
  uploadedGzip: boolean;
  /** bytes of the upload as sent */
  byteLength: number;
}

export interface OriginalFile {
  filename: string | null;
  format: string;
  uploadedGzip: boolean;
  byteLength: number;
  /** the length of the gzip-compressed bytes */
  gzippedLength: number;
  /** the gzip-compressed bytes, a part at a time (a large value is read as it is sent) */
  gzipped: Iterable<Buffer> | AsyncIterable<Buffer>;
}

/**
 * An original's bytes made ready before the upload queue's transaction: `stored` says where they are,
 * for `OriginalFiles.save` in the transaction; `release`, after it, deletes what was written for them
 * and no row named (the transaction rolled back, or found the ride stored already).
 */
export interface StagedOriginal {
  stored(db: Kysely<Database>): Promise<NewOriginalFile['stored']>;
  release(): Promise<void>;
}

export class OriginalFiles {
  readonly #context: StoreContext;
  readonly #largeValues: LargeValues;

  constructor(context: StoreContext, largeValues: LargeValues) {
    this.#context = context;
    this.#largeValues = largeValues;
  }

  /**
   * Makes the original's bytes (`gzipped`) ready to be named in a transaction. A small file goes in its
   * row. A large one is a large value (large-values.ts): when it is the task's own upload
   * (`uploadOfTask`: a `.gz` upload, a ride of a ZIP), the value the upload is already; else one
   * written now, part by part, outside any transaction.
   */
  async stage(gzipped: Uint8Array, uploadOfTask: number | null): Promise<StagedOriginal> {
    const none = (): Promise<void> => Promise.resolve();
    if (!isLarge(gzipped)) return { stored: () => Promise.resolve({ bytes: gzipped }), release: none };
    if (uploadOfTask !== null) {
      return {
        stored: async (db) => {
          const row = await db
            .selectFrom('task_uploads')
            .select('large_value_id')
            .where('task_id', '=', uploadOfTask)
            .executeTakeFirst();
          // A task stored before large values (migration 017) holds its upload in its row.
          const largeValueId = row?.large_value_id ?? null;
          return largeValueId === null ? { bytes: gzipped } : { largeValueId };
        },
        release: none,
      };
    }
    const largeValueId = await this.#largeValues.write(gzipped);
    return {
      stored: () => Promise.resolve({ largeValueId }),
      release: async () => {
        // Left behind when this fails, it goes with the nightly purge.
        await this.#largeValues.deleteIfUnnamed(largeValueId).catch(() => false);
      },
    };
  }

  /** Stores the file in `db` (the upload queue's transaction); its id. */
  async save(file: NewOriginalFile, db: Kysely<Database>): Promise<number> {
    const { stored } = file;
    const { id } = await db
      .insertInto('original_files')
      .values({
        user_id: file.userId,
        filename: file.filename,
        format: file.format,
        uploaded_gzip: file.uploadedGzip ? 1 : 0,
        byte_length: file.byteLength,
        bytes:
          'bytes' in stored
            ? // A view of the same memory, not a copy (better-sqlite3 binds Buffers).
              Buffer.from(stored.bytes.buffer, stored.bytes.byteOffset, stored.bytes.byteLength)
            : IN_LARGE_VALUE,
        large_value_id: 'largeValueId' in stored ? stored.largeValueId : null,
        created_at: this.#context.clock(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  }

  /** The original of a route or trip; undefined when it has none (made from points, or before 10). */
  async ofAsset(type: AssetType, assetId: number): Promise<OriginalFile | undefined> {
    const row = await this.#context.db
      .selectFrom(type === 'trip' ? 'trips as a' : ('routes as a' as 'trips as a'))
      .innerJoin('original_files as f', 'f.id', 'a.original_file_id')
      .leftJoin('large_values as v', 'v.id', 'f.large_value_id')
      .select([
        'f.filename',
        'f.format',
        'f.uploaded_gzip',
        'f.byte_length',
        'f.bytes',
        'f.large_value_id',
        'v.byte_length as value_length',
      ])
      .where('a.id', '=', assetId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const { large_value_id: largeValueId, value_length: valueLength } = row;
    const details = {
      filename: row.filename,
      format: row.format,
      uploadedGzip: row.uploaded_gzip === 1,
      byteLength: row.byte_length,
    };
    if (largeValueId === null) return { ...details, gzippedLength: row.bytes.length, gzipped: [row.bytes] };
    // The key names a value, so it is there: a value goes only with the last row naming it.
    return {
      ...details,
      gzippedLength: valueLength!,
      gzipped: this.#largeValues.parts(largeValueId, valueLength!),
    };
  }
}

/**
 * The files uploads were read from (issue 20, "Original files"; migration 10): kept gzip-compressed
 * with the routes and trips made from them, so their owner can download the file as they sent it. The
 * triggers of migration 10 delete a file with the last route or trip that names it.
 */
import type { Kysely } from 'kysely';
import type { AssetType, Database } from '../db/schema.js';
import type { StoreContext } from './context.js';

export interface NewOriginalFile {
  userId: number;
  filename: string | null;
  /** the format the parser read */
  format: string;
  /** the upload as sent when it was gzip, else the upload gzip-compressed */
  bytes: Uint8Array;
  uploadedGzip: boolean;
  /** bytes of the upload as sent */
  byteLength: number;
}

export interface OriginalFile {
  filename: string | null;
  format: string;
  uploadedGzip: boolean;
  byteLength: number;
  /** gzip-compressed */
  bytes: Buffer;
}

export class OriginalFiles {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /** Stores the file in `db` (the upload queue's transaction); its id. */
  async save(file: NewOriginalFile, db: Kysely<Database>): Promise<number> {
    const { id } = await db
      .insertInto('original_files')
      .values({
        user_id: file.userId,
        filename: file.filename,
        format: file.format,
        uploaded_gzip: file.uploadedGzip ? 1 : 0,
        byte_length: file.byteLength,
        // A view of the same memory, not a copy (better-sqlite3 binds Buffers).
        bytes: Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength),
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
      .select(['f.filename', 'f.format', 'f.uploaded_gzip', 'f.byte_length', 'f.bytes'])
      .where('a.id', '=', assetId)
      .executeTakeFirst();
    return row === undefined
      ? undefined
      : {
          filename: row.filename,
          format: row.format,
          uploadedGzip: row.uploaded_gzip === 1,
          byteLength: row.byte_length,
          bytes: row.bytes,
        };
  }
}
